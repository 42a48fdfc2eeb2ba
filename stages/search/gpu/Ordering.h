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

/// Orders candidates in place (stable).
void orderCandidates(std::vector<Candidate> &candidates, const GpuTarget &target,
                     Ordering ordering, uint64_t seed);

} // namespace retune::gpu

#endif // RETUNE_GPU_ORDERING_H
