//===- ProblemBuilder.cpp - Problems from loops, roles and operands -------===//
#include "stages/core/ProblemBuilder.h"

#include "stages/core/IndexingMap.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

namespace retune {

namespace {
bool isReduction(OpKind kind, char role) {
  switch (kind) {
  case OpKind::Contraction:
    return role == 'k';
  case OpKind::Convolution:
    return role == 'r' || role == 'c';
  case OpKind::Attention:
    return role == 'k' || role == 'l';
  default:
    return false;
  }
}

/// `d0, d1, ...` for `count` loops.
std::string loopNames(size_t count) {
  std::vector<std::string> names;
  for (size_t i = 0; i < count; ++i)
    names.push_back("d" + std::to_string(i));
  return join(names, ", ");
}

std::string d(unsigned i) { return "d" + std::to_string(i); }
} // namespace

ProblemBuilder::ProblemBuilder(OpKind kind, StringRef opName) {
  problem.kind = kind;
  problem.opName = opName.str();
}

ProblemBuilder &ProblemBuilder::loops(StringRef roles,
                                      ArrayRef<int64_t> ranges) {
  if (roles.size() != ranges.size())
    report_fatal_error("ProblemBuilder: " + Twine(roles.size()) +
                       " roles for " + Twine(ranges.size()) + " loops");
  problem.dimRoles = roles.str();
  problem.loopRanges.assign(ranges.begin(), ranges.end());
  problem.iteratorTypes.clear();
  for (char role : roles)
    problem.iteratorTypes.push_back(
        isReduction(problem.kind, role) ? "reduction" : "parallel");
  return *this;
}

void ProblemBuilder::addOperand(ArrayRef<std::string> results, StringRef type,
                                bool isInit) {
  std::string map = "affine_map<(" + loopNames(problem.loopRanges.size()) +
                    ") -> (" + join(results, ", ") + ")>";
  // Every result a builder writes is a sum of its loops: any other name is
  // a mistake.
  std::optional<IndexingMap> parsed =
      parseIndexingMap(map, problem.loopRanges.size());
  if (!parsed || !parsed->allSums())
    report_fatal_error("ProblemBuilder: " + map + " is not a map over " +
                       Twine(problem.loopRanges.size()) + " loops");
  if (!isInit && inits > 0)
    report_fatal_error("ProblemBuilder: an input after an init");
  problem.indexingMaps.push_back(map);
  problem.elementTypes.push_back(type.str());
  if (isInit)
    ++inits;
  else
    ++problem.numInputs;
}

ProblemBuilder &ProblemBuilder::input(ArrayRef<std::string> results,
                                      StringRef type) {
  addOperand(results, type, /*isInit=*/false);
  return *this;
}

ProblemBuilder &ProblemBuilder::init(ArrayRef<std::string> results,
                                     StringRef type) {
  addOperand(results, type, /*isInit=*/true);
  return *this;
}

ProblemBuilder &ProblemBuilder::target(StringRef target) {
  problem.target = target.str();
  return *this;
}

Problem ProblemBuilder::build() const {
  if (inits == 0)
    report_fatal_error("ProblemBuilder: no init operand");
  return problem;
}

Problem matmulProblem(int64_t m, int64_t n, int64_t k, bool transposedB,
                      const ShapeOptions &options) {
  return ProblemBuilder(OpKind::Contraction, "linalg.matmul")
      .loops("mnk", {m, n, k})
      .input({d(0), d(2)}, options.inType)
      .input(transposedB ? std::vector<std::string>{d(1), d(2)}
                         : std::vector<std::string>{d(2), d(1)},
             options.inType)
      .init({d(0), d(1)}, options.accType)
      .target(options.target)
      .build();
}

Problem batchMatmulProblem(int64_t b, int64_t m, int64_t n, int64_t k,
                           const ShapeOptions &options) {
  return ProblemBuilder(OpKind::Contraction, "linalg.batch_matmul")
      .loops("bmnk", {b, m, n, k})
      .input({d(0), d(1), d(3)}, options.inType)
      .input({d(0), d(3), d(2)}, options.inType)
      .init({d(0), d(1), d(2)}, options.accType)
      .target(options.target)
      .build();
}

Problem convNhwcHwcfProblem(int64_t n, int64_t oh, int64_t ow, int64_t f,
                            int64_t kh, int64_t kw, int64_t c,
                            const ShapeOptions &options) {
  return ProblemBuilder(OpKind::Convolution, "linalg.conv_2d_nhwc_hwcf")
      .loops("boofrrc", {n, oh, ow, f, kh, kw, c})
      .input({d(0), "d1 + d4", "d2 + d5", d(6)}, options.inType)
      .input({d(4), d(5), d(6), d(3)}, options.inType)
      .init({d(0), d(1), d(2), d(3)}, options.accType)
      .target(options.target)
      .build();
}

Problem attentionProblem(ArrayRef<int64_t> batches, int64_t m, int64_t n,
                         int64_t k1, int64_t k2, bool transposedV,
                         const ShapeOptions &options) {
  std::vector<int64_t> ranges(batches.begin(), batches.end());
  unsigned nb = ranges.size();
  llvm::append_range(ranges, ArrayRef<int64_t>{m, n, k1, k2});
  std::vector<std::string> b;
  for (unsigned i = 0; i < nb; ++i)
    b.push_back(d(i));
  auto with = [&](std::initializer_list<unsigned> loops) {
    std::vector<std::string> results = b;
    for (unsigned l : loops)
      results.push_back(d(nb + l));
    return results;
  };
  enum { M, N, K1, K2 };
  return ProblemBuilder(OpKind::Attention, "iree_linalg_ext.attention")
      .loops(std::string(nb, 'b') + "mnkl", ranges)
      .input(with({M, K1}), options.inType)
      .input(with({K2, K1}), options.inType)
      .input(transposedV ? with({N, K2}) : with({K2, N}), options.inType)
      .input({}, options.inType)
      .init(with({M, N}), options.inType)
      .target(options.target)
      .build();
}

} // namespace retune
