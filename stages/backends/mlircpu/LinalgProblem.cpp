//===- LinalgProblem.cpp - Problems from upstream linalg ops --------------===//
#include "stages/backends/mlircpu/LinalgProblem.h"
#include "stages/backends/mlircpu/EpilogueFusion.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace retune::cpu {

std::string typeName(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

static bool isContraction(linalg::LinalgOp op) {
  return linalg::isaContractionOpInterface(op) &&
         succeeded(linalg::inferContractionDims(op));
}

static bool isConvolution(linalg::LinalgOp op) {
  return linalg::isaConvolutionOpInterface(op) &&
         succeeded(linalg::inferConvolutionDims(op));
}

bool isRootOp(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape())
    return false;
  return isContraction(op) || isConvolution(op);
}

/// One role letter per loop (see Problem::dimRoles).
static std::string rolesOf(linalg::LinalgOp op, OpKind kind) {
  std::string roles(op.getNumLoops(), '?');
  auto mark = [&](ArrayRef<unsigned> dims, char role) {
    for (unsigned d : dims)
      roles[d] = role;
  };
  if (kind == OpKind::Contraction) {
    linalg::ContractionDimensions dims = *linalg::inferContractionDims(op);
    mark(dims.batch, 'b');
    mark(dims.m, 'm');
    mark(dims.n, 'n');
    mark(dims.k, 'k');
    return roles;
  }
  linalg::ConvolutionDimensions dims = *linalg::inferConvolutionDims(op);
  mark(dims.batch, 'b');
  mark(dims.outputImage, 'o');
  mark(dims.outputChannel, 'f');
  mark(dims.filterLoop, 'r');
  mark(dims.inputChannel, 'c');
  mark(dims.depth, 'd');
  return roles;
}

/// The fields every problem of `op` has: op, loops, maps, types, target.
static Problem describeOp(linalg::LinalgOp op, StringRef target) {
  Problem problem;
  problem.opName = op->getName().getStringRef().str();
  for (int64_t range : op.getStaticLoopRanges())
    problem.loopRanges.push_back(range);
  for (utils::IteratorType it : op.getIteratorTypesArray())
    problem.iteratorTypes.push_back(
        it == utils::IteratorType::parallel ? "parallel" : "reduction");
  for (AffineMap map : op.getIndexingMapsArray()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    AffineMapAttr::get(map).print(os);
    problem.indexingMaps.push_back(text);
  }
  for (OpOperand &operand : op->getOpOperands())
    problem.elementTypes.push_back(
        typeName(getElementTypeOrSelf(operand.get().getType())));
  problem.numInputs = op.getNumDpsInputs();
  problem.target = target.str();
  return problem;
}

static std::string printMap(AffineMap map) {
  std::string text;
  llvm::raw_string_ostream os(text);
  AffineMapAttr::get(map).print(os);
  return text;
}

/// What the matcher and the dispatch id know of a joined op.
static EpilogueOp describeEpilogueOp(linalg::GenericOp op) {
  EpilogueOp described;
  for (OpOperand *input : op.getDpsInputOperands()) {
    described.inputMaps.push_back(
        printMap(op.getMatchingIndexingMap(input)));
  }
  SmallVector<StringRef> names;
  for (Operation &bodyOp : op.getBody()->without_terminator())
    names.push_back(bodyOp.getName().getStringRef());
  described.body = llvm::join(names, ",");
  return described;
}

linalg::LinalgOp prologueOf(linalg::LinalgOp root, unsigned input) {
  if (input >= root.getNumDpsInputs())
    return nullptr;
  Operation *producer = root.getDpsInputs()[input].getDefiningOp();
  if (!isa_and_nonnull<linalg::TransposeOp, linalg::CopyOp>(producer))
    return nullptr;
  auto pack = cast<linalg::LinalgOp>(producer);
  if (!pack->hasAttr(kPrologueAttr) || !pack->getResult(0).hasOneUse() ||
      !pack.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>())
    return nullptr;
  return pack;
}

FailureOr<Problem> problemFromOp(linalg::LinalgOp op, StringRef target,
                                 std::string *why) {
  if (!isRootOp(op)) {
    if (why)
      *why = "not a static-shaped contraction or convolution on tensors";
    return failure();
  }
  Problem problem = describeOp(op, target);
  problem.kind = isContraction(op) ? OpKind::Contraction : OpKind::Convolution;
  problem.dimRoles = rolesOf(op, problem.kind);
  for (linalg::GenericOp joined : epilogueOf(op))
    problem.epilogue.push_back(describeEpilogueOp(joined));
  if (problem.kind == OpKind::Contraction)
    for (unsigned input = 0; input < problem.numInputs; ++input)
      if (linalg::LinalgOp pack = prologueOf(op, input))
        problem.prologue.push_back(
            {input, printMap(pack.getIndexingMapsArray()[0])});
  return problem;
}

FailureOr<Problem> elementwiseProblemFromOp(linalg::LinalgOp op,
                                            StringRef target) {
  // An epilogue is its root's action's to tile and vectorize.
  if (isRootOp(op) || op->hasAttr(kEpilogueAttr) ||
      !op.hasPureTensorSemantics() || op.hasDynamicShape() ||
      op->getNumResults() != 1 || op.getNumLoops() == 0 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return failure();
  Problem problem = describeOp(op, target);
  problem.kind = OpKind::Elementwise;
  problem.dimRoles.assign(op.getNumLoops(), 'p');
  // Vector lanes along the innermost dim of the output and of each input
  // (two dims for a transpose: a lanes x lanes block).
  for (AffineMap map : op.getIndexingMapsArray())
    if (map.getNumResults() > 0 && isa<AffineDimExpr>(map.getResults().back()))
      problem.dimRoles[map.getDimPosition(map.getNumResults() - 1)] = 'v';
  if (llvm::count(problem.dimRoles, 'v') > 2)
    return failure();
  return problem;
}

} // namespace retune::cpu
