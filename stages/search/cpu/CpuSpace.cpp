//===- CpuSpace.cpp - Z3 enumeration of the CPU knob space ----------------===//
//
// The space (see docs/cpu-search.md for the numbers behind it):
//   register level  rows tile `mr` on the innermost 'm' loop (convolutions:
//                   the innermost output-image loop), `nr = width x nv` on the
//                   vectorized loop, every other loop 1; k-unroll; loop order.
//                   Enumerated with Z3 (blocking clauses).
//   outer level     cache tiles (scf.for) on m/n plus a reduction tile on k,
//                   or, with threads > 1, scf.forall tiles over the parallel
//                   loops. Enumerated directly from small divisor domains
//                   (CpuKnobs.h) and filtered by the rules those domains do
//                   not already meet (meetsOuterRules).
//
// The register level's constraints are a solver::Model, solved by Z3
// (stages/search/solver); the problem's facts come from CpuAnalysis.h, the
// order from CpuCostModel.h; CpuChecker.h checks a configuration against
// the same rules with code of its own.
//
//===----------------------------------------------------------------------===//
#include "stages/search/cpu/CpuSpace.h"

#include "stages/search/cpu/CpuCostModel.h"
#include "stages/search/cpu/CpuKnobs.h"
#include "stages/search/solver/Model.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <optional>
#include <set>

using namespace llvm;

namespace retune::cpu {
namespace {

static SmallVector<int64_t> divisors(int64_t range, int64_t limit) {
  SmallVector<int64_t> values;
  for (int64_t d = 1; d <= std::min(range, limit); ++d)
    if (range % d == 0)
      values.push_back(d);
  return values;
}

/// The register level with Z3 (the solver's blocking-clause engine).
static Expected<std::vector<RegisterChoice>>
enumerateRegisters(const Analysis &an, const CpuHost &host) {
  SmallVector<int64_t> rowsDomain = divisors(an.rows(), static_cast<int64_t>(host.vectorRegisters));
  SmallVector<int64_t> vecDomain;
  for (int64_t nv = 1; nv <= static_cast<int64_t>(host.vectorRegisters); ++nv)
    if (an.cols() % (nv * an.width) == 0)
      vecDomain.push_back(nv);
  SmallVector<int64_t> unrollDomain;
  for (unsigned u : kUnrollChoices)
    unrollDomain.push_back(u);
  solver::Model m;
  // Divisibility: domains of divisors (computed here, cheap).
  solver::Expr mr = m.addVarIn("mr", rowsDomain);
  solver::Expr nv = m.addVarIn("nv", vecDomain);
  solver::Expr unroll = m.addVarIn("unroll", unrollDomain);
  solver::Expr colsOuter = m.addVar("cols_outer", 0, 1);
  m.require(m.divides(unroll, m.c(an.ranges[an.kDim])),
            "unroll divides the innermost register loop's trip count");
  m.require(
      m.le(m.add(m.add(m.mul(mr, nv), nv), m.c(1)), m.c(static_cast<int64_t>(host.vectorRegisters))),
      "accumulators + operand vectors + one broadcast fit the registers");
  // Loop order: the second order only where it differs.
  solver::Expr rowsFirst = m.eq(colsOuter, m.c(0));
  if (an.twoOrders)
    m.require(m.lor(rowsFirst,
                    m.land(m.lt(mr, m.c(an.rows())),
                           m.lt(m.mul(nv, m.c(an.width)), m.c(an.cols())))),
              "columns-outer order only where it differs");
  else
    m.require(rowsFirst, "one loop order: both are the same");
  Expected<std::vector<SmallVector<int64_t>>> solutions =
      solver::solveAll(m, solver::Engine::Z3Blocking);
  if (!solutions)
    return makeError("cpu space: " + toString(solutions.takeError()));
  std::vector<RegisterChoice> found;
  for (const SmallVector<int64_t> &values : *solutions) {
    RegisterChoice r;
    r.mr = values[0];
    r.nv = values[1];
    r.unroll = static_cast<unsigned>(values[2]);
    r.colsOuter = values[3] == 1;
    found.push_back(r);
  }
  // Enumeration order of Z3 models is arbitrary: make it deterministic.
  llvm::sort(found, [](const RegisterChoice &a, const RegisterChoice &b) {
    return std::tie(a.mr, a.nv, a.colsOuter, a.unroll) <
           std::tie(b.mr, b.nv, b.colsOuter, b.unroll);
  });
  return found;
}

/// Calls `visit` with every combination of per-loop tiles over `dims`.
template <typename Fn>
static void forEachOuter(const Analysis &an, const RegisterChoice &r,
                         ArrayRef<unsigned> dims,
                         SmallVector<int64_t, 8> &outer, unsigned index,
                         Fn &&visit) {
  if (index == dims.size()) {
    visit();
    return;
  }
  unsigned dim = dims[index];
  outer[dim] = 0;
  forEachOuter(an, r, dims, outer, index + 1, visit);
  for (int64_t t : tileChoices(an.ranges[dim], registerTileOf(an, r, dim))) {
    outer[dim] = t;
    forEachOuter(an, r, dims, outer, index + 1, visit);
  }
  outer[dim] = 0;
}

/// The rules the generated domains do not already meet (threads are 1 or
/// the allowed count, tiles come from their domains on allowed loops): one
/// batch per packed panel, the panel in L2, thread tiles shared evenly, the
/// k-unroll inside the reduction tile, and the L1 and L2 fits.
static bool meetsOuterRules(const Analysis &an, const CpuHost &host,
                            const Knobs &k) {
  for (unsigned dim : an.packed.batch)
    if (k.outer[dim] != 1)
      return false;
  int64_t tiles = 1;
  bool anyOuter = false;
  for (auto [dim, tile] : llvm::enumerate(k.outer))
    if (tile) {
      anyOuter = true;
      tiles *= an.ranges[dim] / tile;
    }
  if (packedPanelBytes(an, k) > host.l2Bytes)
    return false;
  if (k.threads > 1 && (!anyOuter || tiles % k.threads != 0))
    return false;
  if (k.kc && (k.kc % k.reg.unroll != 0 ||
               k.kc * k.reg.nv * an.width * an.inBytes > host.l1Bytes))
    return false;
  bool cacheTiled = k.kc || (k.threads == 1 && anyOuter);
  return !cacheTiled || cacheBlockBytes(an, k) <= host.l2Bytes;
}

} // namespace

Expected<CpuSpaceResult> enumerateCpuSpace(const Problem &problem,
                                           const CpuHost &host,
                                           const CpuSpaceOptions &options) {
  Expected<Analysis> an = analyze(problem, host);
  if (!an)
    return an.takeError();
  Expected<std::vector<RegisterChoice>> registers =
      enumerateRegisters(*an, host);
  if (!registers)
    return registers.takeError();

  SmallVector<int64_t> reductionDomain = {0};
  if (an->cacheTiling)
    llvm::append_range(reductionDomain,
                       tileChoices(an->ranges[an->kDim], 1, kMinReductionTile));
  SmallVector<unsigned> threadCounts = {1};
  if (options.threads > 1)
    threadCounts.push_back(options.threads);

  std::vector<std::pair<Knobs, double>> valid;
  CpuSpaceResult result;
  for (const RegisterChoice &r : *registers) {
    for (unsigned threads : threadCounts) {
      Knobs k;
      k.reg = r;
      k.threads = threads;
      k.outer.assign(an->ranges.size(), 0);
      SmallVector<unsigned> dims = outerDims(*an, threads);
      forEachOuter(*an, r, dims, k.outer, 0, [&] {
        for (int64_t kc : reductionDomain) {
          k.kc = kc;
          if (!meetsOuterRules(*an, host, k))
            continue;
          ++result.totalSolutions;
          valid.emplace_back(k, knobsCost(*an, host, k));
        }
      });
    }
  }
  std::stable_sort(
      valid.begin(), valid.end(),
      [](const auto &a, const auto &b) { return a.second < b.second; });
  if (valid.size() > options.maxSolutions)
    valid.resize(options.maxSolutions);
  result.ranked.reserve(valid.size());
  for (const auto &[k, cost] : valid)
    result.ranked.push_back({toConfig(*an, k), cost});
  return result;
}

/// A configuration's blocking strategy: which outer dims it tiles and
/// which reduction dims it cache-tiles (not the sizes).
static std::pair<uint64_t, uint64_t> strategyOf(const CpuConfig &config) {
  uint64_t outer = 0, reduction = 0;
  for (auto [i, tile] : llvm::enumerate(config.outerTiles))
    outer |= tile ? uint64_t{1} << i : 0;
  for (auto [i, tile] : llvm::enumerate(config.reductionTiles))
    reduction |= tile ? uint64_t{1} << i : 0;
  return {outer, reduction};
}

std::vector<size_t> spreadAcrossStrategies(ArrayRef<RankedConfig> ranked,
                                           size_t count) {
  count = std::min(count, ranked.size());
  // The first of each strategy, and the first with and without a reduction
  // tile (the costliest misjudgement: a whole operand streamed from L3 per
  // tile, or not).
  std::optional<size_t> blocked, unblocked;
  std::set<std::pair<uint64_t, uint64_t>> seen;
  std::vector<size_t> strategyFirsts;
  for (auto [n, r] : llvm::enumerate(ranked)) {
    auto strategy = strategyOf(r.config);
    if (seen.insert(strategy).second)
      strategyFirsts.push_back(n);
    std::optional<size_t> &first = strategy.second ? blocked : unblocked;
    if (!first)
      first = n;
  }
  std::vector<size_t> picks;
  std::vector<bool> picked(ranked.size(), false);
  auto pick = [&](size_t n) {
    if (picks.size() < count && !picked[n]) {
      picked[n] = true;
      picks.push_back(n);
    }
  };
  // One sequence whatever the count, so that a larger count only adds
  // candidates: the pair (the heuristic's best is one of them), then the
  // heuristic's next and the next strategy's first, in turn.
  for (std::optional<size_t> first :
       {std::min(blocked, unblocked), std::max(blocked, unblocked)})
    if (first)
      pick(*first);
  size_t nextRanked = 0, nextStrategy = 0;
  while (picks.size() < count) {
    while (nextRanked < ranked.size() && picked[nextRanked])
      ++nextRanked;
    if (nextRanked < ranked.size())
      pick(nextRanked);
    while (nextStrategy < strategyFirsts.size() &&
           picked[strategyFirsts[nextStrategy]])
      ++nextStrategy;
    if (nextStrategy < strategyFirsts.size())
      pick(strategyFirsts[nextStrategy]);
  }
  return picks;
}

} // namespace retune::cpu
