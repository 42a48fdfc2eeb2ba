//===- CpuDefaults.h - The baseline compiler's heuristic config -*- C++ -*-===//
//
// What the mlir-cpu backend does for a root op no spec matches: a fixed,
// reasonable heuristic in the spirit of a production compiler's defaults
// (64x64 cache tiles, one vector of N by up to 8 rows of M). Tuning is
// measured against it.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CPU_CPUDEFAULTS_H
#define RETUNE_CPU_CPUDEFAULTS_H

#include "stages/search/cpu/CpuConfig.h"
#include "stages/search/cpu/CpuHost.h"
#include "stages/core/Problem.h"

#include <optional>

namespace retune::cpu {

/// The default config, or none when the op is left to plain loops.
std::optional<CpuConfig> defaultConfig(const Problem &problem,
                                       const CpuHost &host, unsigned threads);

/// Largest divisor of `n` that is at most `limit` (at least 1).
int64_t largestDivisorAtMost(int64_t n, int64_t limit);

/// Bit width of an element type name ("f32" -> 32), 0 when unknown.
unsigned elementBits(StringRef type);

} // namespace retune::cpu

#endif // RETUNE_CPU_CPUDEFAULTS_H
