//===- Ordering.h - Which candidates to try first ---------------*- C++ -*-===//
#ifndef RETUNE_GPU_ORDERING_H
#define RETUNE_GPU_ORDERING_H

#include "stages/search/gpu/Candidates.h"

namespace retune::gpu {

/// The reference's last-wave tail: with `wg = (M/tileM)(N/tileN)` workgroups
/// on `units` WGPs, `(ceil(wg/units) - wg/units) / ceil(wg/units)`.
double quantizationInefficiency(int64_t sizeM, int64_t tileM, int64_t sizeN, int64_t tileN,
                                int64_t units);

/// Our own estimate of a configuration's relative run time (lower is
/// better): memory traffic per flop of the workgroup tile, scaled by the
/// occupancy that registers and shared memory allow and by the last-wave
/// tail.
double estimateCost(const GpuConfig &config, const GpuTarget &target);

/// Estimated VGPRs per thread (accumulators plus operand fragments).
int64_t estimateVgprs(const GpuConfig &config);

/// How far a candidate is from the compiler's own config: the sum over the
/// workgroup, reduction and subgroup tiles of |log2| of their ratios, plus
/// one for another intrinsic and one half for other prefetch stages. 0 is
/// the compiler's config itself.
double distanceFrom(const Candidate &candidate, const CompilerChoice &compiler);

/// `ordering` with Auto resolved for this target.
Ordering resolveOrdering(Ordering ordering, const GpuTarget &target,
                         const CompilerChoice *compiler);

/// Orders candidates in place (stable). NearCompiler needs `compiler` (it
/// falls back to Heuristic without one) and drops the compiler's own
/// config, which would only rebuild the baseline.
void orderCandidates(std::vector<Candidate> &candidates, const GpuTarget &target,
                     Ordering ordering, uint64_t seed,
                     const CompilerChoice *compiler = nullptr);

} // namespace retune::gpu

#endif // RETUNE_GPU_ORDERING_H
