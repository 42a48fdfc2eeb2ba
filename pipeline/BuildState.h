//===- BuildState.h - What a build directory holds, checked -----*- C++ -*-===//
//
// The records the graph hangs on (compiler.id, the dispatch index, each
// dispatch's problem and IR, the candidate indexes and their specs) and the
// files a user takes away (tuning_spec.mlir, the report, ...) are checked
// against the hashes their steps wrote. Whatever is damaged is removed, with
// a note naming it, so that the step that writes it runs again.
//
// The planner reads the build directory through these; `retune verify`, the
// first step of every `ninja tune`, runs them all before anything else runs.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_PIPELINE_BUILDSTATE_H
#define RETUNE_PIPELINE_BUILDSTATE_H

#include "pipeline/Backend.h"
#include "stages/core/Records.h"

#include <optional>
#include <string>

namespace retune::pipeline {

/// The dispatch index of `buildDir`, checked against the files the dump
/// wrote beside it; nullopt when there is none yet or it was damaged (then
/// removed, so the dump runs again). An index listing nothing is an error:
/// nothing to tune.
Expected<std::optional<DispatchIndex>> readDispatches(llvm::StringRef buildDir);

/// The candidate index of a round of `d`, checked against its hash and its
/// spec files; nullopt when absent or damaged (then removed).
std::optional<CandidateIndex> readCandidates(llvm::StringRef buildDir,
                                             const DispatchEntry &d,
                                             const DispatchRound &round);

/// What `verifyBuild` found.
struct BuildCheck {
  /// Files removed as damaged.
  unsigned removed = 0;
  /// Whether the plan must run again (compiler.id or a record the graph's
  /// shape comes from was removed).
  bool replan = false;
  /// Records of steps an earlier run's budget skipped, removed so that
  /// this run does them.
  unsigned skipped = 0;
};

/// Checks everything above in `buildDir`, and each of `takeaways` (paths
/// relative to it) that exists against its hash; removes the records the
/// skipped-step ledger names (stages/support/RunBudget.h).
BuildCheck verifyBuild(llvm::StringRef buildDir,
                       llvm::ArrayRef<std::string> takeaways);

} // namespace retune::pipeline

#endif // RETUNE_PIPELINE_BUILDSTATE_H
