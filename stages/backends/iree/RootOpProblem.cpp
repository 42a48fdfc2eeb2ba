//===- RootOpProblem.cpp - A root op's Problem from its maps --------------===//
#include "stages/backends/iree/RootOpProblem.h"

#include "stages/support/FileUtil.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/StringExtras.h"

#include <functional>

using namespace llvm;

namespace retune::iree {

namespace {

std::string printType(mlir::Type type) {
  std::string s;
  raw_string_ostream os(s);
  type.print(os);
  return s;
}

std::string printMap(mlir::AffineMap map) {
  std::string s;
  raw_string_ostream os(s);
  mlir::AffineMapAttr::get(map).print(os);
  return s;
}

} // namespace

std::unique_ptr<mlir::MLIRContext> makeReaderContext() {
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::linalg::LinalgDialect>();
  auto context = std::make_unique<mlir::MLIRContext>(
      registry, mlir::MLIRContext::Threading::DISABLED);
  context->allowUnregisteredDialects(true);
  context->loadAllAvailableDialects();
  return context;
}

namespace {

/// Classifies loops from the maps (inputs then inits) and iterator types.
Expected<std::pair<OpKind, std::string>>
classify(ArrayRef<mlir::AffineMap> maps, ArrayRef<std::string> iterators,
         unsigned numInputs, bool attention, const Twine &where) {
  unsigned numDims = maps.front().getNumDims();
  std::string roles(numDims, '?');
  auto uses = [&](mlir::AffineMap map, unsigned d) {
    return map.isFunctionOfDim(d);
  };
  auto plainUse = [&](mlir::AffineMap map, unsigned d) {
    for (mlir::AffineExpr e : map.getResults())
      if (auto dim = dyn_cast<mlir::AffineDimExpr>(e))
        if (dim.getPosition() == d)
          return true;
    return false;
  };
  if (attention) {
    if (maps.size() < 4)
      return makeError(where + ": attention needs query, key, value and "
                               "output maps");
    mlir::AffineMap q = maps[0], k = maps[1], v = maps[2], o = maps.back();
    for (unsigned d = 0; d < numDims; ++d) {
      bool inQ = uses(q, d), inK = uses(k, d), inV = uses(v, d),
           inO = uses(o, d);
      if (inQ && inK && inV && inO)
        roles[d] = 'b';
      else if (inQ && inO && !inK)
        roles[d] = 'm';
      else if (inQ && inK && !inO)
        roles[d] = 'k';
      else if (inK && inV && !inQ)
        roles[d] = 'l';
      else if (inV && inO && !inQ)
        roles[d] = 'n';
      else
        return makeError(where + ": attention loop d" + Twine(d) +
                         " has no batch/m/k1/k2/n role");
    }
    return std::make_pair(OpKind::Attention, roles);
  }
  if (numInputs != 2 || maps.size() != 3)
    return makeError(where + ": not a contraction or convolution (" +
                     Twine(numInputs) + " inputs, " + Twine(maps.size()) +
                     " maps); only those, attention and ops that only move "
                     "data (transposes, copies) are tuned");
  bool hasReduction = llvm::is_contained(iterators, "reduction");
  if (!hasReduction)
    return makeError(where + ": no reduction loop; elementwise ops that "
                             "compute are not tuned");
  mlir::AffineMap in = maps[0], filter = maps[1], out = maps[2];
  bool conv = !in.isProjectedPermutation() || !filter.isProjectedPermutation();
  for (unsigned d = 0; d < numDims; ++d) {
    bool parallel = iterators[d] == "parallel";
    bool inIn = uses(in, d), inF = uses(filter, d), inO = uses(out, d);
    if (!conv) {
      if (parallel && inIn && inF && inO)
        roles[d] = 'b';
      else if (parallel && inIn && inO && !inF)
        roles[d] = 'm';
      else if (parallel && inF && inO && !inIn)
        roles[d] = 'n';
      else if (!parallel && inIn && inF && !inO)
        roles[d] = 'k';
      else
        return makeError(where + ": loop d" + Twine(d) +
                         " is not a batch, M, N or K dimension; this "
                         "contraction shape is not tuned");
      continue;
    }
    bool compound = inIn && !plainUse(in, d);
    if (parallel && inO && inF && !inIn)
      roles[d] = 'f';
    else if (parallel && inO && compound)
      roles[d] = 'o';
    else if (parallel && inO && inIn && !inF)
      roles[d] = 'b';
    else if (parallel && inO && inIn && inF)
      roles[d] = 'd';
    else if (!parallel && inF && compound)
      roles[d] = 'r';
    else if (!parallel && inF && inIn)
      roles[d] = 'c';
    else
      return makeError(where + ": convolution loop d" + Twine(d) +
                       " has no batch/image/channel/filter role");
  }
  if (!conv && roles.find('k') == std::string::npos)
    return makeError(where + ": contraction without a K dimension");
  return std::make_pair(conv ? OpKind::Convolution : OpKind::Contraction,
                        roles);
}

/// Whether every result of `map` is a sum of dims, each maybe times a
/// positive stride: the input of a window copy (im2col reads `(c, kh + h,
/// kw + w)`, at stride 2 `(c, h * 2 + kh, w * 2 + kw)`).
bool readsWindows(mlir::AffineMap map) {
  auto stridedDim = [](mlir::AffineExpr e) {
    if (isa<mlir::AffineDimExpr>(e))
      return true;
    auto product = dyn_cast<mlir::AffineBinaryOpExpr>(e);
    if (!product || product.getKind() != mlir::AffineExprKind::Mul)
      return false;
    auto stride = dyn_cast<mlir::AffineConstantExpr>(product.getRHS());
    return isa<mlir::AffineDimExpr>(product.getLHS()) && stride &&
           stride.getValue() > 0;
  };
  std::function<bool(mlir::AffineExpr)> sumOfDims = [&](mlir::AffineExpr e) {
    if (stridedDim(e))
      return true;
    auto sum = dyn_cast<mlir::AffineBinaryOpExpr>(e);
    return sum && sum.getKind() == mlir::AffineExprKind::Add &&
           sumOfDims(sum.getLHS()) && sumOfDims(sum.getRHS());
  };
  return llvm::all_of(map.getResults(), sumOfDims);
}

/// A one-input op of parallel loops that only moves data is tuned, on CPU
/// targets, as an elementwise problem whose candidates vary IREE's own
/// config (a 24x410881 transpose of the PP-OCRv4 detector: 27 ms with
/// IREE's 16x16 register tile, 5.6 ms with 8x8 on the dispatch benchmark;
/// 1.23x in the model, docs/iree-backend.md). Roles as the mlir-cpu backend
/// gives them: 'v' on the innermost dim of the input and of the output (two
/// dims for a transpose), 'p' elsewhere. A window copy (im2col, whose input
/// map adds dims) is one too, its lanes on the output's innermost dim.
std::optional<std::string> dataMovementRoles(bool yieldsAnInput,
                                             ArrayRef<mlir::AffineMap> maps,
                                             const Problem &problem) {
  // The GPU spaces tile contractions, convolutions and attention only.
  if (!StringRef(problem.target).starts_with("cpu:") ||
      problem.numInputs != 1 || maps.size() != 2 ||
      llvm::is_contained(problem.iteratorTypes, "reduction") || !yieldsAnInput)
    return std::nullopt;
  std::string roles(problem.loopRanges.size(), 'p');
  mlir::AffineMap in = maps[0], out = maps[1];
  if (!out.isProjectedPermutation() ||
      !(in.isProjectedPermutation() || readsWindows(in)))
    return std::nullopt;
  if (in.isProjectedPermutation() && in.getNumResults() > 0)
    roles[in.getDimPosition(in.getNumResults() - 1)] = 'v';
  if (out.getNumResults() > 0)
    roles[out.getDimPosition(out.getNumResults() - 1)] = 'v';
  return roles;
}

/// A generic that computes without being a contraction or a convolution
/// (softmax's sum, a layer norm's mean, a fused elementwise chain) is tuned,
/// on CPU targets, by varying IREE's own config, as data movement is: on
/// MiniLM's softmax (12x128x128 f32, 1 thread) IREE's workgroup tile 4x32
/// ran in 310 us, 1x128 in 233 us. Roles: 'k' on reductions, 'v' on the
/// innermost parallel dim of an operand, 'p' elsewhere.
std::optional<std::string> computingRoles(ArrayRef<mlir::AffineMap> maps,
                                          const Problem &problem) {
  if (!StringRef(problem.target).starts_with("cpu:") ||
      problem.opName != "linalg.generic")
    return std::nullopt;
  std::string roles;
  for (const std::string &it : problem.iteratorTypes)
    roles += it == "reduction" ? 'k' : 'p';
  for (mlir::AffineMap map : maps) {
    if (!map.isProjectedPermutation())
      return std::nullopt;
    if (map.getNumResults() == 0)
      continue;
    unsigned inner = map.getDimPosition(map.getNumResults() - 1);
    if (roles[inner] == 'p')
      roles[inner] = 'v';
  }
  return roles;
}

} // namespace

/// Sets the kind and roles of a linalg op's problem (its loops, iterator
/// types and inputs already read).
Error classifyLinalgOp(Problem &problem, ArrayRef<mlir::AffineMap> maps,
                       bool yieldsAnInput, bool matchesBody,
                       const Twine &where) {
  if (std::optional<std::string> roles =
          dataMovementRoles(yieldsAnInput, maps, problem)) {
    problem.kind = OpKind::Elementwise;
    problem.dimRoles = std::move(*roles);
    return Error::success();
  }
  Expected<std::pair<OpKind, std::string>> kind =
      classify(maps, problem.iteratorTypes, problem.numInputs,
               /*attention=*/false, where);
  if (!kind) {
    std::optional<std::string> roles =
        matchesBody ? computingRoles(maps, problem) : std::nullopt;
    if (!roles)
      return kind.takeError();
    consumeError(kind.takeError());
    problem.kind = OpKind::Elementwise;
    problem.dimRoles = std::move(*roles);
    return Error::success();
  }
  problem.kind = kind->first;
  problem.dimRoles = kind->second;
  return Error::success();
}

/// Sets the kind, roles and iterator types of an attention problem.
Error classifyAttention(Problem &problem, ArrayRef<mlir::AffineMap> maps,
                        const Twine &where) {
  Expected<std::pair<OpKind, std::string>> kind =
      classify(maps, {}, problem.numInputs, /*attention=*/true, where);
  if (!kind)
    return kind.takeError();
  problem.kind = kind->first;
  problem.dimRoles = kind->second;
  for (char role : problem.dimRoles)
    problem.iteratorTypes.push_back(
        role == 'k' || role == 'l' ? "reduction" : "parallel");
  return Error::success();
}

/// The loop ranges of an op from its maps and its operands' static shapes:
/// each loop takes the size of the first operand dim it indexes alone.
SmallVector<int64_t> loopRangesFromShapes(ArrayRef<mlir::AffineMap> maps,
                                          ArrayRef<mlir::Type> operandTypes) {
  SmallVector<int64_t> ranges(maps.front().getNumDims(),
                              mlir::ShapedType::kDynamic);
  for (auto [map, type] : llvm::zip(maps, operandTypes)) {
    auto shaped = dyn_cast<mlir::ShapedType>(type);
    if (!shaped)
      continue;
    for (auto [i, expr] : llvm::enumerate(map.getResults()))
      if (auto dim = dyn_cast<mlir::AffineDimExpr>(expr))
        if (ranges[dim.getPosition()] == mlir::ShapedType::kDynamic)
          ranges[dim.getPosition()] = shaped.getDimSize(i);
  }
  return ranges;
}

/// Parses an operand's type and records its element type.
Error addOperandType(Problem &problem, SmallVectorImpl<mlir::Type> &types,
                     StringRef text, mlir::MLIRContext &context,
                     const DiagnosticCapture &diagnostics, const Twine &where) {
  mlir::Type type = mlir::parseType(text, &context);
  if (!type)
    return makeError(where + ": cannot parse operand type '" + text +
                     "': " + diagnostics.message);
  types.push_back(type);
  mlir::Type element = type;
  if (auto shaped = dyn_cast<mlir::ShapedType>(type))
    element = shaped.getElementType();
  problem.elementTypes.push_back(printType(element));
  return Error::success();
}

/// Refuses dynamic loops and records the maps as text.
Expected<Problem> sealProblem(Problem problem, ArrayRef<mlir::AffineMap> maps,
                              const Twine &where) {
  for (int64_t range : problem.loopRanges)
    if (range == mlir::ShapedType::kDynamic || range < 0)
      return makeError(where + ": dynamic loop range in '" + problem.opName +
                       "'; only static shapes are tuned");
  for (mlir::AffineMap map : maps)
    problem.indexingMaps.push_back(printMap(map));
  return problem;
}

} // namespace retune::iree
