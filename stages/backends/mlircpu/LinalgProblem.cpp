//===- LinalgProblem.cpp - Problems from upstream linalg ops --------------===//
#include "stages/backends/mlircpu/LinalgProblem.h"

#include "mlir/IR/BuiltinAttributes.h"
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

FailureOr<Problem> problemFromOp(linalg::LinalgOp op, StringRef target,
                                 std::string *why) {
  if (!isRootOp(op)) {
    if (why)
      *why = "not a static-shaped contraction or convolution on tensors";
    return failure();
  }
  Problem problem;
  problem.kind = isContraction(op) ? OpKind::Contraction : OpKind::Convolution;
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
  problem.dimRoles = rolesOf(op, problem.kind);
  problem.target = target.str();
  return problem;
}

} // namespace retune::cpu
