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

void orderCandidates(std::vector<Candidate> &candidates, const GpuTarget &target,
                     Ordering ordering, uint64_t seed) {
  switch (ordering) {
  case Ordering::Enumeration:
    return;
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
