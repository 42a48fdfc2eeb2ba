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

/// A step that runs before the plan (the model-level flag search): its
/// record, which the plan reads, and the files it writes for the user.
struct StepBeforePlan {
  std::string record;
  std::vector<std::string> takeaways;
};

/// Checks everything above in `buildDir`, and each of `takeaways` (paths
/// relative to it) that exists against its hash; removes the records the
/// skipped-step ledger names (stages/support/RunBudget.h). A damaged
/// take-away of `before` removes its record too and re-plans: the dump and
/// the plan read what that step writes, and the step must run again before
/// them, while Ninja loads the manifest (a take-away Ninja only sees
/// missing in the build itself would be redone after a plan made from the
/// choice it replaces).
BuildCheck verifyBuild(llvm::StringRef buildDir,
                       llvm::ArrayRef<std::string> takeaways,
                       const StepBeforePlan &before = {});

} // namespace retune::pipeline

#endif // RETUNE_PIPELINE_BUILDSTATE_H
