//===- Ordering.cpp - Reference heuristic, our estimate, shuffle ----------===//
#include "stages/search/gpu/Ordering.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <random>
#include <tuple>

namespace retune::gpu {

double quantizationInefficiency(int64_t sizeM, int64_t tileM, int64_t sizeN, int64_t tileN,
                                int64_t units) {
  if (units <= 0 || tileM <= 0 || tileN <= 0)
    return 0;
  double workgroups = (static_cast<double>(sizeM) / tileM) * (static_cast<double>(sizeN) / tileN);
  double waves = workgroups / units;
  double full = std::ceil(waves);
  return full == 0 ? 0 : (full - waves) / full;
}

int64_t estimateVgprs(const GpuConfig &config) {
  int64_t threads = std::max<int64_t>(1, config.workgroupSize[0] * config.workgroupSize[1] *
                                             config.workgroupSize[2]);
  // Accumulators: the workgroup's output tile spread over its threads, one
  // 32-bit register per f32 element.
  int64_t acc = config.tileM * config.tileN / threads;
  // Operand fragments for one intrinsic step per subgroup tile row/column.
  int64_t kStep = config.mma ? config.mma->k : 16;
  int64_t mPerThread = config.tileM / std::max<int64_t>(1, config.sgMCount);
  int64_t nPerThread = config.tileN / std::max<int64_t>(1, config.sgNCount);
  int64_t operands = (mPerThread + nPerThread) * kStep / std::max<int64_t>(1, config.subgroupSize) / 2;
  // Addresses, loop counters and the like.
  constexpr int64_t kOverhead = 24;
  return acc + operands + kOverhead;
}

/// Shared memory of one workgroup, as the constraint systems bound it.
static int64_t sharedBytes(const GpuConfig &config) {
  int64_t k = config.tileK * (config.pipeline == Pipeline::TileAndFuse && config.mma ? config.mma->k : 1);
  return 2 * (config.tileM + config.tileN) * k;
}

double estimateCost(const GpuConfig &config, const GpuTarget &target) {
  // Global traffic per flop of one workgroup tile: (tm + tn) / (tm * tn).
  double tm = config.tileM, tn = config.tileN;
  double traffic = (tm + tn) / (tm * tn);
  // Occupancy: waves per SIMD allowed by registers (512 per lane on CDNA,
  // vgpr_space_bits / 32) and by shared memory.
  int64_t regsPerLane = target.vgprSpaceBits > 0 ? target.vgprSpaceBits / 32 : 512;
  int64_t vgprs = estimateVgprs(config);
  double spill = vgprs > regsPerLane ? 4.0 : 1.0;
  int64_t wavesByRegs = std::max<int64_t>(1, std::min<int64_t>(8, regsPerLane / std::max<int64_t>(1, vgprs)));
  int64_t subgroups = std::max<int64_t>(1, config.sgMCount * config.sgNCount);
  int64_t simds = std::max<int64_t>(1, target.simdsPerWgp);
  int64_t lds = std::max<int64_t>(1, sharedBytes(config));
  int64_t groupsByLds = std::max<int64_t>(1, target.maxWorkgroupMemoryBytes / lds);
  double wavesByLds = static_cast<double>(groupsByLds * subgroups) / simds;
  double occupancy = std::min<double>(wavesByRegs, wavesByLds);
  // Two waves per SIMD hide most latency; more helps little.
  double latency = 1.0 / std::min(1.0, occupancy / 2.0);
  // Subgroups that do not fill every SIMD leave compute idle.
  double simdUse = subgroups % simds == 0 ? 1.0 : 1.0 + 0.5 / subgroups;
  double tail = 1.0 + quantizationInefficiency(config.sizeM, config.tileM, config.sizeN,
                                               config.tileN, target.wgpCount);
  return traffic * latency * simdUse * tail * spill;
}

/// Sum of |log2(a/b)| over the entries both lists tile (0 means untiled).
static double logDistance(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  double sum = 0;
  for (auto [x, y] : llvm::zip(a, b))
    if (x > 0 && y > 0)
      sum += std::fabs(std::log2(static_cast<double>(x) / static_cast<double>(y)));
    else if ((x > 0) != (y > 0))
      sum += 1;
  return sum;
}

double distanceFrom(const Candidate &candidate, const CompilerChoice &compiler) {
  const GpuConfig &g = candidate.config;
  // Another loop structure (IREE's direct convolution against our IGEMM,
  // say) cannot be compared tile by tile: far, but still ordered.
  if (g.workgroup.size() != compiler.workgroup.size())
    return 64;
  // IREE prints a subgroup tile of 0 where the workgroup tile is 1 (a batch
  // loop); we print 1. Both mean one per subgroup.
  auto perSubgroup = [](ArrayRef<int64_t> tiles) {
    return llvm::to_vector(llvm::map_range(tiles, [](int64_t t) { return t == 0 ? int64_t(1) : t; }));
  };
  double d = logDistance(g.workgroup, compiler.workgroup) +
             logDistance(g.reduction, compiler.reduction) +
             logDistance(perSubgroup(g.subgroup), perSubgroup(compiler.subgroup));
  if (!g.mma || g.mma->name != compiler.mma)
    d += 1;
  if (candidate.prefetchStages != compiler.prefetchStages)
    d += 0.5;
  return d;
}

Ordering resolveOrdering(Ordering ordering, const GpuTarget &target,
                         const CompilerChoice *compiler) {
  if (ordering == Ordering::NearCompiler && !compiler)
    return Ordering::Heuristic;
  if (ordering != Ordering::Auto)
    return ordering;
  return target.isNvidia() && compiler ? Ordering::NearCompiler : Ordering::Heuristic;
}

/// Heuristic order first, so ties in distance keep the reference's order.
static void orderNearCompiler(std::vector<Candidate> &candidates, const GpuTarget &target,
                              const CompilerChoice &compiler) {
  orderCandidates(candidates, target, Ordering::Heuristic, 0);
  std::vector<std::pair<double, size_t>> keyed;
  for (size_t i = 0; i < candidates.size(); ++i) {
    double d = distanceFrom(candidates[i], compiler);
    if (d > 0)
      keyed.push_back({d, i});
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<Candidate> sorted;
  sorted.reserve(keyed.size());
  for (auto [d, i] : keyed)
    sorted.push_back(std::move(candidates[i]));
  candidates = std::move(sorted);
}

void orderCandidates(std::vector<Candidate> &candidates, const GpuTarget &target,
                     Ordering ordering, uint64_t seed, const CompilerChoice *compiler) {
  switch (resolveOrdering(ordering, target, compiler)) {
  case Ordering::Auto: // resolved above
  case Ordering::Enumeration:
    return;
  case Ordering::NearCompiler:
    return orderNearCompiler(candidates, target, *compiler);
  case Ordering::Shuffle: {
    // std::shuffle's result depends on the library; a seeded Fisher-Yates
    // with mt19937_64 is the same everywhere.
    std::mt19937_64 rng(seed);
    for (size_t i = candidates.size(); i > 1; --i) {
      size_t j = rng() % i;
      std::swap(candidates[i - 1], candidates[j]);
    }
    return;
  }
  case Ordering::Heuristic: {
    // Reference key, ascending: non-power-of-two K tile, subgroup count not
    // a multiple of the SIMDs, quantization inefficiency (the two dead terms
    // of the reference are left out; they never change the order).
    auto key = [&](const Candidate &c) {
      const GpuConfig &g = c.config;
      int64_t simds = std::max<int64_t>(1, target.simdsPerWgp);
      return std::make_tuple(!llvm::isPowerOf2_64(g.tileK), (g.sgMCount * g.sgNCount) % simds != 0,
                             quantizationInefficiency(g.sizeM, g.tileM, g.sizeN, g.tileN,
                                                      target.wgpCount));
    };
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](const Candidate &a, const Candidate &b) { return key(a) < key(b); });
    return;
  }
  case Ordering::Estimate: {
    std::vector<double> cost;
    for (const Candidate &c : candidates)
      cost.push_back(estimateCost(c.config, target));
    std::vector<size_t> order(candidates.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cost[a] < cost[b]; });
    std::vector<Candidate> sorted;
    sorted.reserve(candidates.size());
    for (size_t i : order)
      sorted.push_back(std::move(candidates[i]));
    candidates = std::move(sorted);
    return;
  }
  }
}

} // namespace retune::gpu
