#include "stages/backends/mlircpu/StaticBuffers.h"
#include "stages/backends/mlircpu/CpuCompiler.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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
