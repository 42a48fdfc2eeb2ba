//===- LayoutNormalization.cpp - Transposed-B contractions to NN ----------===//
#include "stages/backends/mlircpu/LayoutNormalization.h"
#include "stages/backends/mlircpu/CpuSpec.h"
#include "stages/backends/mlircpu/LinalgProblem.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace retune::cpu {
namespace {

/// How operand `input` (0: A, 1: B) of `op` is permuted into the NN layout
/// (A: batch, m, k; B: batch, k, n): the identity when it is NN already;
/// empty when the other side has too few rows/columns to pay for a pass
/// over the operand, or the op is not one this rewrite handles.
SmallVector<int64_t> nnPermutation(linalg::LinalgOp op, unsigned input,
                                   int64_t minRows) {
  if (!isRootOp(op) || op.getNumDpsInputs() != 2 ||
      !isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::GenericOp>(op))
    return {};
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.empty() || dims->k.empty())
    return {};
  // The transpose is paid once per call and reused by every row of the
  // other operand (B: the m rows; A: the n columns).
  ArrayRef<unsigned> parallel = input == 0 ? ArrayRef<unsigned>(dims->m)
                                           : ArrayRef<unsigned>(dims->n);
  ArrayRef<unsigned> reuse = input == 0 ? ArrayRef<unsigned>(dims->n)
                                        : ArrayRef<unsigned>(dims->m);
  ArrayRef<unsigned> k(dims->k);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t reuses = 1;
  for (unsigned d : reuse)
    reuses *= ranges[d];
  AffineMap map = op.getIndexingMapsArray()[input];
  if (reuses < minRows || !map.isProjectedPermutation() ||
      map.getNumResults() == 0)
    return {};
  auto dimAt = [&](unsigned i) { return map.getDimPosition(i); };
  ArrayRef<unsigned> innermost = input == 0 ? k : parallel;
  bool inPlace = llvm::is_contained(innermost, dimAt(map.getNumResults() - 1));
  SmallVector<ArrayRef<unsigned>> groups = {ArrayRef<unsigned>(dims->batch)};
  if (input == 0)
    groups.append({parallel, k});
  else
    groups.append({k, parallel});
  SmallVector<int64_t> order;
  for (ArrayRef<unsigned> group : groups)
    for (unsigned i = 0; i < map.getNumResults(); ++i)
      if (llvm::is_contained(group, dimAt(i)))
        order.push_back(i);
  if (order.size() != map.getNumResults())
    return {};
  // In place: NN already (B gets a packing copy), or a layout this rewrite
  // leaves alone.
  if (inPlace && !llvm::equal(order, llvm::seq<int64_t>(0, order.size())))
    return {};
  return order;
}

/// B's packing copy: `op` reads B through a copy into a fresh tensor that
/// joins its dispatch, so that each outer tile packs its panel.
void packOperand(linalg::LinalgOp op, unsigned input) {
  OpBuilder builder(op);
  OpOperand &operand = op->getOpOperand(input);
  auto type = cast<RankedTensorType>(operand.get().getType());
  Location loc = op.getLoc();
  Value empty = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                        type.getElementType());
  auto copy = linalg::CopyOp::create(builder, loc, operand.get(), empty);
  copy->setAttr(kPrologueAttr, builder.getUnitAttr());
  op->setAttr(kRootAttr, builder.getUnitAttr());
  operand.set(copy->getResult(0));
}

/// Replaces operand `input` of `op` by its transpose by `perm` and updates
/// the operand's indexing map to match.
void transposeOperand(linalg::LinalgOp op, unsigned input,
                      ArrayRef<int64_t> perm) {
  OpBuilder builder(op);
  OpOperand &operand = op->getOpOperand(input);
  auto type = cast<RankedTensorType>(operand.get().getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  Location loc = op.getLoc();
  Value empty =
      tensor::EmptyOp::create(builder, loc, shape, type.getElementType());
  auto transpose =
      linalg::TransposeOp::create(builder, loc, operand.get(), empty, perm);
  // B's panels are packed in the dispatch, where the m rows that reuse a
  // panel run inside its tile. A's would need every n column inside its
  // tile, so B would stream from memory once per A panel: A is transposed
  // whole, outside the dispatch.
  if (input == 1) {
    transpose->setAttr(kPrologueAttr, builder.getUnitAttr());
    op->setAttr(kRootAttr, builder.getUnitAttr());
  }
  Value transposed = transpose->getResult(0);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<AffineExpr> results;
  for (int64_t p : perm)
    results.push_back(maps[input].getResult(p));
  maps[input] =
      AffineMap::get(maps[input].getNumDims(), 0, results, op->getContext());
  op->setAttr("indexing_maps", builder.getAffineMapArrayAttr(maps));
  operand.set(transposed);
}

} // namespace

unsigned normalizeOperandLayouts(ModuleOp module, int64_t minRows) {
  SmallVector<linalg::LinalgOp> ops;
  module.walk([&](linalg::LinalgOp op) { ops.push_back(op); });
  unsigned rewritten = 0;
  for (linalg::LinalgOp op : ops)
    for (unsigned input : {0u, 1u}) {
      // Packed already (a dispatch the dump formed): running again changes
      // nothing.
      if (prologueOf(op, input))
        continue;
      SmallVector<int64_t> perm = nnPermutation(op, input, minRows);
      if (perm.empty())
        continue;
      if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()))) {
        if (input == 1)
          packOperand(op, input);
        continue;
      }
      transposeOperand(op, input, perm);
      ++rewritten;
    }
  return rewritten;
}

} // namespace retune::cpu
