#include "stages/backends/mlircpu/StaticBuffers.h"
#include "stages/backends/mlircpu/CpuCompiler.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace retune::cpu;

namespace {

constexpr const char *kModule = R"mlir(
func.func @f(%n: index) -> memref<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() {alignment = 128 : i64} : memref<4x8xf32>
  %b = memref.alloc() : memref<16xf32>
  %d = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %inner = memref.alloc() : memref<8xf32>
    memref.store %zero, %inner[%c0] : memref<8xf32>
  }
  memref.store %zero, %b[%c0] : memref<16xf32>
  memref.store %zero, %d[%c0] : memref<?xf32>
  memref.dealloc %b : memref<16xf32>
  return %a : memref<4x8xf32>
}
)mlir";

TEST(StaticBuffersTest, EntryBlockStaticAllocsBecomeGlobals) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kModule, &compilerContext());
  ASSERT_TRUE(module);
  EXPECT_EQ(planStaticBuffers(*module), 2u);
  ASSERT_TRUE(succeeded(verify(*module)));

  SmallVector<memref::GlobalOp> globals(module->getOps<memref::GlobalOp>());
  ASSERT_EQ(globals.size(), 2u);
  EXPECT_NE(globals[0].getSymName(), globals[1].getSymName());
  EXPECT_EQ(globals[0].getAlignment(), 128u); // the alloc's, kept
  EXPECT_EQ(globals[1].getAlignment(), 64u);  // at least a cache line
  for (memref::GlobalOp g : globals) {
    EXPECT_TRUE(g.isUninitialized());
    EXPECT_TRUE(g.isPrivate());
  }
  unsigned gets = 0, allocs = 0, deallocs = 0;
  module->walk([&](Operation *op) {
    gets += isa<memref::GetGlobalOp>(op);
    allocs += isa<memref::AllocOp>(op);
    deallocs += isa<memref::DeallocOp>(op);
  });
  EXPECT_EQ(gets, 2u);
  // The dynamic one and the one inside the loop stay allocations.
  EXPECT_EQ(allocs, 2u);
  EXPECT_EQ(deallocs, 0u);
}

/// A panel per iteration of a loop and of a parallel loop (allocated and
/// freed in the body), and one never freed.
constexpr const char *kLoops = R"mlir(
func.func @g(%n: index, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %panel = memref.alloc() : memref<64x16xf32>
    memref.store %zero, %panel[%c0, %c0] : memref<64x16xf32>
    %v = memref.load %panel[%c0, %c0] : memref<64x16xf32>
    memref.dealloc %panel : memref<64x16xf32>
    memref.store %v, %out[%c0] : memref<8xf32>
  }
  scf.forall (%t) in (2) {
    %panel = memref.alloc() : memref<32xf32>
    memref.store %zero, %panel[%c0] : memref<32xf32>
    memref.dealloc %panel : memref<32xf32>
  }
  %kept = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
    %leaked = memref.alloc() : memref<4xf32>
    memref.store %acc, %leaked[%c0] : memref<4xf32>
    scf.yield %acc : f32
  }
  return
}
)mlir";

TEST(StaticBuffersTest, LoopBodyScratchGoesToTheStack) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kLoops, &compilerContext());
  ASSERT_TRUE(module);
  // Both freed panels move; the one never freed stays an allocation.
  EXPECT_EQ(scopeLoopBuffers(*module), 2u);
  ASSERT_TRUE(succeeded(verify(*module)));
  unsigned saves = 0, restores = 0, allocas = 0, allocs = 0, deallocs = 0;
  module->walk([&](Operation *op) {
    saves += isa<LLVM::StackSaveOp>(op);
    restores += isa<LLVM::StackRestoreOp>(op);
    allocas += isa<memref::AllocaOp>(op);
    allocs += isa<memref::AllocOp>(op);
    deallocs += isa<memref::DeallocOp>(op);
  });
  EXPECT_EQ(saves, 2u);
  EXPECT_EQ(restores, 2u);
  EXPECT_EQ(allocas, 2u);
  EXPECT_EQ(allocs, 1u);
  EXPECT_EQ(deallocs, 0u);
  // Each alloca sits between its save and its restore, in its loop body.
  module->walk([&](memref::AllocaOp alloca) {
    EXPECT_EQ(alloca.getAlignment(), 64u);
    auto save = dyn_cast_or_null<LLVM::StackSaveOp>(alloca->getPrevNode());
    ASSERT_TRUE(save);
    ASSERT_TRUE(save->hasOneUse());
    Operation *restore = *save->getUsers().begin();
    EXPECT_EQ(restore->getBlock(), alloca->getBlock());
    EXPECT_TRUE(alloca->isBeforeInBlock(restore));
    EXPECT_TRUE((isa<scf::ForOp, scf::ForallOp>(alloca->getParentOp())));
  });
}

} // namespace

TEST(StaticBuffersTest, EachRootGetsItsOwnFill) {
  constexpr const char *text = R"mlir(
func.func @f(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = linalg.matmul ins(%b, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0, %1, %f : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
)mlir";
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, &compilerContext());
  ASSERT_TRUE(module);
  EXPECT_EQ(privatizeSharedFills(*module), 2u);
  ASSERT_TRUE(succeeded(verify(*module)));
  // Each matmul's init is a fill used by it alone; the returned one stays.
  module->walk([](linalg::MatmulOp op) {
    auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
    ASSERT_TRUE(fill);
    EXPECT_TRUE(fill->hasOneUse());
  });
  // A fill with one user is left as it is.
  EXPECT_EQ(privatizeSharedFills(*module), 0u);
}
