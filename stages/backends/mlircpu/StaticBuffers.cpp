//===- StaticBuffers.cpp - Plan a function's buffers once per instance ----===//
#include "stages/backends/mlircpu/StaticBuffers.h"
#include "stages/backends/mlircpu/LinalgProblem.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace retune::cpu {

/// Alignment of a planned buffer: the allocation's, at least a cache line.
constexpr uint64_t kMinAlignment = 64;

static bool plannable(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  return type.hasStaticShape() && type.getLayout().isIdentity() &&
         !type.getMemorySpace() && alloc.getDynamicSizes().empty() &&
         alloc.getSymbolOperands().empty();
}

unsigned privatizeSharedFills(ModuleOp module) {
  SmallVector<linalg::LinalgOp> roots;
  module.walk([&](linalg::LinalgOp op) {
    if (isRootOp(op) && op.getNumDpsInits() == 1)
      roots.push_back(op);
  });
  unsigned cloned = 0;
  for (linalg::LinalgOp root : roots) {
    OpOperand *init = root.getDpsInitOperand(0);
    auto fill = init->get().getDefiningOp<linalg::FillOp>();
    if (!fill || fill->hasOneUse())
      continue;
    OpBuilder builder(root);
    Operation *copy = builder.clone(*fill);
    init->set(copy->getResult(0));
    ++cloned;
  }
  return cloned;
}

unsigned planStaticBuffers(ModuleOp module) {
  SymbolTable symbols(module);
  OpBuilder builder(module.getContext());
  unsigned planned = 0;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    // The entry block runs exactly once per call: one buffer per alloc.
    for (Operation &op : llvm::make_early_inc_range(func.front())) {
      auto alloc = dyn_cast<memref::AllocOp>(&op);
      if (!alloc || !plannable(alloc))
        continue;
      MemRefType type = alloc.getType();
      uint64_t alignment =
          std::max<uint64_t>(alloc.getAlignment().value_or(0), kMinAlignment);
      builder.setInsertionPoint(func);
      auto global = memref::GlobalOp::create(
          builder, alloc.getLoc(), "__retune_buffer",
          builder.getStringAttr("private"), type, builder.getUnitAttr(),
          /*constant=*/false, builder.getI64IntegerAttr(alignment));
      symbols.insert(global); // renames on a clash
      builder.setInsertionPoint(alloc);
      Value buffer = memref::GetGlobalOp::create(builder, alloc.getLoc(), type,
                                                 global.getSymName());
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      alloc.replaceAllUsesWith(buffer);
      alloc.erase();
      ++planned;
    }
  }
  return planned;
}

/// The dealloc of `alloc` in its own block, when that is its only one.
static memref::DeallocOp deallocInBlock(memref::AllocOp alloc) {
  memref::DeallocOp found;
  for (Operation *user : alloc->getUsers())
    if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
      if (found || dealloc->getBlock() != alloc->getBlock())
        return nullptr;
      found = dealloc;
    }
  return found;
}

unsigned scopeLoopBuffers(ModuleOp module) {
  SmallVector<memref::AllocOp> allocs;
  module.walk([&](memref::AllocOp alloc) {
    auto func = alloc->getParentOfType<func::FuncOp>();
    if (func && alloc->getBlock() != &func.front() && plannable(alloc))
      allocs.push_back(alloc);
  });
  auto pointer = LLVM::LLVMPointerType::get(module.getContext());
  unsigned scoped = 0;
  for (memref::AllocOp alloc : allocs) {
    memref::DeallocOp dealloc = deallocInBlock(alloc);
    if (!dealloc)
      continue;
    // The bytes live from here to the dealloc, as the heap buffer did; the
    // stack pointer goes back where it was, so a loop does not grow it.
    OpBuilder builder(alloc);
    Value saved = LLVM::StackSaveOp::create(builder, alloc.getLoc(), pointer);
    uint64_t alignment =
        std::max<uint64_t>(alloc.getAlignment().value_or(0), kMinAlignment);
    auto alloca =
        memref::AllocaOp::create(builder, alloc.getLoc(), alloc.getType(),
                                 builder.getI64IntegerAttr(alignment));
    alloc.replaceAllUsesWith(alloca.getResult());
    alloc.erase();
    builder.setInsertionPoint(dealloc);
    LLVM::StackRestoreOp::create(builder, dealloc.getLoc(), saved);
    dealloc.erase();
    ++scoped;
  }
  return scoped;
}

} // namespace retune::cpu
