//===- Checker.h - Independent check of a configuration ---------*- C++ -*-===//
//
// Restates the reference constraints directly on an emitted configuration
// (its tile arrays, workgroup size and intrinsic), with no Model and no Z3,
// so tests can catch a wrong constraint system or a wrong decoder.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_GPU_CHECKER_H
#define RETUNE_GPU_CHECKER_H

#include "stages/search/gpu/Candidates.h"

namespace retune::gpu {

/// Success, or an error naming the first violated rule.
Error checkConfig(const Problem &problem, const GpuTarget &target, const GpuConfig &config,
                  int64_t numSubgroups = -1);

} // namespace retune::gpu

#endif // RETUNE_GPU_CHECKER_H
