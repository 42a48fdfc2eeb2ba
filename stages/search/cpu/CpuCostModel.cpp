//===- CpuCostModel.cpp - Estimated time of a CPU configuration -----------===//
#include "stages/search/cpu/CpuCostModel.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace llvm;

namespace retune::cpu {
namespace {

// Calibration (docs/cpu-search.md, "Cost model"; the core's own numbers are
// CpuHost's).
/// Loop overhead per innermost iteration (divided by the unroll factor) and
/// per register-tile pass (accumulator set-up).
constexpr double kStepOverhead = 0.5;
constexpr double kPassOverhead = 20;
/// Rows of A (each its own stream) that L1 ways and prefetchers keep up with.
constexpr double kMaxRowStreams = 8;
constexpr double kRowStreamExponent = 0.6;
/// Registers left for addresses, broadcast temporaries: closer than this to
/// the register file's size risks spills.
constexpr int64_t kRegisterSlack = 4;
constexpr double kNearSpillFactor = 1.1;
/// Per doubling of the k-unroll: code size and scheduling (measured 8x32x4).
constexpr double kUnrollPenalty = 0.03;
/// Per doubling of the number of cache blocks (measured c1, c2, c3).
constexpr double kBlockPenalty = 0.03;
/// Thread speed-up efficiency (measured 2 threads: 192.6 vs 2 x 100).
constexpr double kThreadEfficiency = 0.965;
constexpr double kPerForallTile = 0.001;
/// Vector-operand rows sharing L1 sets beyond which they leave L1.
constexpr int64_t kConflictRows = 8;

double lineCycles(const CpuHost &host, int64_t bytes) {
  if (bytes <= host.l1Bytes)
    return host.lineCycles[0];
  if (bytes <= host.l2Bytes / 2)
    return host.lineCycles[1];
  if (bytes <= host.l3Bytes / 2)
    return host.lineCycles[2];
  return host.lineCycles[3];
}

} // namespace

double knobsCost(const Analysis &an, const CpuHost &host, const Knobs &k) {
  const RegisterChoice &r = k.reg;
  int64_t nr = r.nv * an.width;
  double acc = static_cast<double>(r.mr * r.nv);
  double pump = host.doublePumpsWideVectors() ? 2.0 : 1.0;
  double fmaCycles = acc * pump / host.fmaPipes;
  // Enough independent accumulators (pipes x latency) hide the latency.
  double latencyCycles = host.fmaLatencyCycles * pump;
  double loadCycles = (r.mr + r.nv * pump) / host.loadPorts;
  double step = std::max({fmaCycles, latencyCycles, loadCycles});

  // Block extents seen by the register loops (per thread / per cache tile).
  int64_t mE = blockExtent(an, k, an.mDim);
  int64_t nE = blockExtent(an, k, an.nDim);
  int64_t kE = k.kc ? k.kc : an.ranges[an.kDim];
  int64_t pass = kE * an.otherReduction;
  double in = an.inBytes;
  // Lines per innermost step: rows operand (broadcasts) and vector operand.
  double rowLines = r.mr * in / 64, vecLines = nr * in / 64;
  int64_t rowStrip = r.mr * pass * an.inBytes;
  int64_t rowBlock = mE * pass * an.inBytes;
  int64_t vecPanel = pass * nr * an.inBytes;
  int64_t vecBlock = pass * nE * an.inBytes;
  // Vector-operand rows whose stride is a multiple of the L1 set period share
  // L1 sets: more than a few of them cannot stay in L1.
  auto vecCycles = [&](int64_t bytes) {
    if (an.vectorOperandConflicts && pass > kConflictRows &&
        bytes <= host.l1Bytes)
      return host.lineCycles[1];
    return lineCycles(host, bytes);
  };
  bool rowsReused = nE / nr > 1, colsReused = mE / r.mr > 1;
  double rowCost, vecCost;
  if (r.colsOuter) {
    vecCost = colsReused ? vecCycles(vecPanel) : vecCycles(vecBlock);
    rowCost = lineCycles(host, rowsReused ? rowBlock : rowStrip);
  } else {
    rowCost = lineCycles(host, rowsReused ? rowStrip : rowBlock);
    vecCost = colsReused ? vecCycles(vecBlock) : vecCycles(vecPanel);
  }
  step += rowLines * rowCost + vecLines * vecCost;
  // Transposed vector operand: vectors assembled element by element.
  if (an.transposedVectorOperand)
    step += r.nv * an.width;
  step += kStepOverhead / r.unroll;
  // Accumulators loaded and stored once per pass, plus pass set-up.
  double cLines = 2.0 * r.mr * nr * an.outBytes / 64;
  step += (kPassOverhead +
           cLines * std::max(host.lineCycles[1],
                             lineCycles(host, mE * nE * an.outBytes))) /
          static_cast<double>(pass);

  if (an.rowStreams && r.mr > kMaxRowStreams)
    step *= std::pow(r.mr / kMaxRowStreams, kRowStreamExponent);
  if (r.mr * r.nv + r.nv + 1 >
      static_cast<int64_t>(host.vectorRegisters) - kRegisterSlack)
    step *= kNearSpillFactor;
  step *= 1 + kUnrollPenalty * std::log2(static_cast<double>(r.unroll));

  // Cache blocking overhead and threading.
  double blocks = 1;
  if (k.kc)
    blocks *= static_cast<double>(an.ranges[an.kDim]) / k.kc;
  int64_t outerTiles = 1;
  for (auto [dim, tile] : llvm::enumerate(k.outer))
    if (tile)
      outerTiles *= an.ranges[dim] / tile;
  double speedup = 1;
  if (k.threads > 1) {
    speedup = std::min<double>(k.threads, host.cores) * kThreadEfficiency;
    step *= 1 + kPerForallTile * outerTiles / k.threads;
  } else {
    blocks *= outerTiles;
  }
  if (blocks > 1)
    step *= 1 + kBlockPenalty * std::log2(blocks);

  double iterations = 1;
  for (int64_t range : an.ranges)
    iterations *= static_cast<double>(range);
  double steps = iterations / (static_cast<double>(r.mr) * nr);
  return steps * step / host.clockHz / speedup;
}

double estimateCost(const Problem &problem, const CpuHost &host,
                    const CpuConfig &config) {
  Expected<Analysis> an = analyze(problem, host);
  if (!an) {
    consumeError(an.takeError());
    return std::numeric_limits<double>::infinity();
  }
  Expected<Knobs> k = fromConfig(*an, config);
  if (!k) {
    consumeError(k.takeError());
    return std::numeric_limits<double>::infinity();
  }
  return knobsCost(*an, host, *k);
}

} // namespace retune::cpu
