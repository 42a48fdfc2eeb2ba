//===- CpuSpace.h - Z3 enumeration of the CPU knob space --------*- C++ -*-===//
//
// The valid CPU configurations of a contraction or convolution Problem on a
// host, enumerated with Z3 and ordered by a cost heuristic. The pieces:
// CpuAnalysis.h (what the space knows of a problem), CpuKnobs.h (a point
// and its domains), CpuCostModel.h (the order), CpuChecker.h (the rules,
// checked apart from the enumeration).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CPU_CPUSPACE_H
#define RETUNE_CPU_CPUSPACE_H

#include "stages/core/Problem.h"
#include "stages/search/cpu/CpuAnalysis.h"
#include "stages/search/cpu/CpuConfig.h"
#include "stages/search/cpu/CpuHost.h"

#include <optional>
#include <vector>

namespace retune::cpu {

struct CpuSpaceOptions {
  /// Threads the generated code may use; 1 = single-threaded code only.
  unsigned threads = 1;
  /// Safety cap on the number of enumerated solutions.
  unsigned maxSolutions = 200000;
};

struct RankedConfig {
  CpuConfig config;
  /// Estimated seconds for one run; lower is better.
  double cost = 0;
};

struct CpuSpaceResult {
  /// Number of valid configurations found.
  uint64_t totalSolutions = 0;
  /// Every valid configuration, cheapest first (ties: enumeration order).
  std::vector<RankedConfig> ranked;
};

/// Enumerates every valid configuration of `problem` on `host`. Errors for
/// problems the CPU space does not cover (the message says which and why).
Expected<CpuSpaceResult> enumerateCpuSpace(const Problem &problem,
                                           const CpuHost &host,
                                           const CpuSpaceOptions &options);

/// Indices into `ranked` (cheapest first) of the `count` configurations to
/// measure, in the order to emit them. The cost model's cache terms are its
/// least certain part across hosts, so the set spreads over blocking
/// strategies (which dims the outer tiles split, which reduction dims are
/// cache-tiled): the best configuration with a reduction tile and the best
/// without come first (the heuristic's best is one of them), then the
/// heuristic's next and the best of the next strategy, in turn. A larger
/// count only adds candidates.
std::vector<size_t> spreadAcrossStrategies(ArrayRef<RankedConfig> ranked,
                                           size_t count);

} // namespace retune::cpu

#endif // RETUNE_CPU_CPUSPACE_H
