//===- LayoutNormalization.cpp - Transposed-B contractions to NN ----------===//
#include "stages/cpu/LayoutNormalization.h"
#include "stages/cpu/LinalgProblem.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace retune::cpu {
namespace {

/// The op's B operand: which of its map results go where in the NN layout
/// (batch dims, then k dims, then n dims), or empty when B is already NN
/// or the op is not one this rewrite handles.
SmallVector<int64_t> nnPermutation(linalg::LinalgOp op, int64_t minRows) {
  if (!isRootOp(op) || op.getNumDpsInputs() != 2 ||
      !isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::GenericOp>(op))
    return {};
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->n.empty() || dims->k.empty())
    return {};
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t rows = 1;
  for (unsigned m : dims->m)
    rows *= ranges[m];
  AffineMap map = op.getIndexingMapsArray()[1];
  if (rows < minRows || !map.isProjectedPermutation() || map.getNumResults() == 0)
    return {};
  auto dimAt = [&](unsigned i) { return map.getDimPosition(i); };
  if (!llvm::is_contained(dims->k, dimAt(map.getNumResults() - 1)))
    return {}; // n (or batch) innermost already
  SmallVector<int64_t> order;
  for (ArrayRef<unsigned> group : {ArrayRef<unsigned>(dims->batch),
                                   ArrayRef<unsigned>(dims->k),
                                   ArrayRef<unsigned>(dims->n)})
    for (unsigned i = 0; i < map.getNumResults(); ++i)
      if (llvm::is_contained(group, dimAt(i)))
        order.push_back(i);
  if (order.size() != map.getNumResults())
    return {};
  return order;
}

} // namespace

unsigned normalizeOperandLayouts(ModuleOp module, int64_t minRows) {
  SmallVector<std::pair<linalg::LinalgOp, SmallVector<int64_t>>> work;
  module.walk([&](linalg::LinalgOp op) {
    SmallVector<int64_t> perm = nnPermutation(op, minRows);
    if (!perm.empty())
      work.emplace_back(op, std::move(perm));
  });
  OpBuilder builder(module.getContext());
  for (auto &[op, perm] : work) {
    OpOperand &b = op->getOpOperand(1);
    auto type = cast<RankedTensorType>(b.get().getType());
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(type.getDimSize(p));
    builder.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value empty = tensor::EmptyOp::create(builder, loc, shape,
                                          type.getElementType());
    Value transposed =
        linalg::TransposeOp::create(builder, loc, b.get(), empty, perm)
            ->getResult(0);
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<AffineExpr> results;
    for (int64_t p : perm)
      results.push_back(maps[1].getResult(p));
    maps[1] = AffineMap::get(maps[1].getNumDims(), 0, results,
                             module.getContext());
    op->setAttr("indexing_maps", builder.getAffineMapArrayAttr(maps));
    b.set(transposed);
  }
  return work.size();
}

} // namespace retune::cpu
