//===- IreePlan.h - The iree backend's part of build.ninja ------*- C++ -*-===//
//
// What the planner writes differently for `[backend] kind = "iree"`: the
// tool and flag variables, one depth-1 pool per device, and per dispatch the
// baseline measured on every device before and after its candidates, whose
// benches are spread over the devices round-robin (candidate n runs on
// device n mod D, so growing the candidate count moves no bench).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_PIPELINE_IREEPLAN_H
#define RETUNE_PIPELINE_IREEPLAN_H

#include "pipeline/Config.h"
#include "pipeline/NinjaWriter.h"
#include "stages/core/Records.h"

#include <optional>
#include <string>
#include <vector>

namespace retune::pipeline {

/// Files the per-candidate edges add to the graph's aggregate targets.
struct CandidateGraph {
  std::vector<std::string> compileRecords;
  std::vector<std::string> benches;
  std::vector<std::string> reportInputs;
  /// Further inputs of the model step: the iree model step ranks each
  /// dispatch's candidates in the model from its results.
  std::vector<std::string> modelInputs;
  /// Candidate spec files (inputs of the plan: a damaged one re-plans).
  std::vector<std::string> specs;
};

/// The iree stage tools (inputs of the plan edge, like the core tools).
std::vector<std::string> ireeStageTools();

/// Variables and device pools of the iree graph.
void writeIreeHeader(NinjaWriter &w, const TuneConfig &config);

/// Compile, bench, rank and select edges of one dispatch; returns its
/// best/<id>.json.
std::string writeIreeCandidateEdges(NinjaWriter &w, const TuneConfig &config,
                                    const DispatchEntry &d,
                                    const CandidateIndex &index,
                                    CandidateGraph &graph);

/// `config` with the IREE tools found (tune.toml, tools_dir, PATH, the project's .venv) and the version
/// pinned to the detected one, so that stage tools need not ask again. A
/// missing tool or an unsupported version is the error, at plan time.
Expected<TuneConfig> resolveIreeTools(const TuneConfig &config);

/// The model-level flag search's files, relative to the build directory.
inline constexpr llvm::StringLiteral kFlagSetsFile = "flags/sets.json";
inline constexpr llvm::StringLiteral kChosenFlags = "flags/chosen.json";

/// The flag sets the model-level search tries: tune.toml's `flag_sets`, or
/// by default data tiling (with and without microkernels) on llvm-cpu and
/// none elsewhere. Empty: no search.
std::vector<std::vector<std::string>> flagSetsOf(const TuneConfig &config);

/// The flags the search chose, once flags/chosen.json exists and reads.
std::optional<std::vector<std::string>> chosenFlags(llvm::StringRef buildDir);

/// Writes flags/sets.json when the search runs, and adds the chosen flags
/// (if chosen yet) to `resolved`'s compile flags; the user's flags stay in
/// baseCompileFlags.
Error writeFlagSearch(TuneConfig &resolved, llvm::StringRef buildDir);

/// Checks at plan time that the model has the entry the whole-model
/// benchmark needs (or one public function when none is named) and that its
/// inputs can be read from the signature when benchmark_flags give none.
Error checkIreeEntry(const TuneConfig &config);

/// compiler.id for IREE: iree-compile's bytes, its version and the flags.
Expected<std::string> ireeIdentity(const TuneConfig &resolved);

} // namespace retune::pipeline

#endif // RETUNE_PIPELINE_IREEPLAN_H
