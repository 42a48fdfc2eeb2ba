//===- CpuCostModel.h - Estimated time of a CPU configuration ----*- C++ -*-===//
//
// A roofline-style estimate of one run of a configuration (the numbers
// behind it: docs/cpu-search.md, "Cost model"): per register-tile step the
// slowest of FMAs, FMA latency and operand loads, plus the cache lines each
// operand brings from where its block lives, loop and pass overheads, and
// the penalties measured for unrolling, cache blocks and threads. What a
// core offers (clock, FMA pipes and latency, load ports, line costs, L1 set
// period) comes from the CpuHost; the calibration constants live here. Used
// to order the space, never to decide a winner.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CPU_CPUCOSTMODEL_H
#define RETUNE_CPU_CPUCOSTMODEL_H

#include "stages/search/cpu/CpuKnobs.h"

namespace retune::cpu {

/// Estimated seconds of one run of `k`.
double knobsCost(const Analysis &an, const CpuHost &host, const Knobs &k);

/// Estimated seconds of one run of `config` (infinity when the CPU space
/// does not cover the problem or the config is not one of its points).
double estimateCost(const Problem &problem, const CpuHost &host,
                    const CpuConfig &config);

} // namespace retune::cpu

#endif // RETUNE_CPU_CPUCOSTMODEL_H
