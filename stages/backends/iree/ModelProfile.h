//===- ModelProfile.h - Where a whole model's time goes, per dispatch -*- C++ -*-===//
//
// IREE 3.13's runtime profiles a module run (`--device_profiling_mode`, a
// `.ireeprof` bundle) and `iree-profile dispatch --format=jsonl` reduces it
// to one group per dispatch function: how often it ran and how long, or
// (`--dispatch_events`) to every call, which gives the median too. This is
// each dispatch's time inside the model, next to its time alone in the
// dispatch benchmark.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_IREE_MODELPROFILE_H
#define RETUNE_STAGES_BACKENDS_IREE_MODELPROFILE_H

#include "stages/support/LLVM.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace retune::iree {

/// One dispatch function's time in the profiled runs.
struct DispatchTime {
  /// The executable export, e.g. `main_graph$async_dispatch_29_...`: the
  /// name the dump gives the dispatch.
  std::string function;
  /// Calls over all profiled runs.
  uint64_t calls = 0;
  /// Mean time of one call, microseconds.
  double averageUs = 0;
  /// The fastest call, microseconds (the mean where the profile has no
  /// minimum): steadier than the mean from one profile to the next.
  double minUs = 0;
  /// The median call, microseconds, where the profile lists single calls
  /// (`--dispatch_events`); else the mean (0: not known, the mean's).
  double medianUs = 0;
};

/// Runs of a build under the profiler: enough calls to average, few
/// enough to stay a small part of the step that profiles.
constexpr unsigned kProfiledRuns = 10;

/// The profiling data family that times dispatches on `device`: the
/// host's execution of each dispatch on `local-*` devices, device
/// timestamps elsewhere.
llvm::StringRef profilingModeFor(llvm::StringRef device);

/// The dispatch functions of `iree-profile dispatch --format=jsonl` output
/// (host or device timed), slowest total first: its groups, or with
/// `--dispatch_events` its calls gathered per function. Errors name
/// `where` and the line.
Expected<std::vector<DispatchTime>> parseDispatchProfile(llvm::StringRef jsonl,
                                                         llvm::StringRef where);

} // namespace retune::iree

#endif // RETUNE_STAGES_BACKENDS_IREE_MODELPROFILE_H
