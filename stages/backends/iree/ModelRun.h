//===- ModelRun.h - Building and timing the whole model ---------*- C++ -*-===//
//
// What the flags and model stages (FlagsStage.h, ModelStage.h) share: the
// whole model compiled into a work directory under a tag, timed interleaved
// against a reference build with the model's entry and inputs, and checked
// against the reference build's results on seeded inputs. Their mains fill
// ModelRunOptions from one command-line helper
// (stages/tools/iree/ModelRunCommandLine.h), so both take the same flags.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_IREE_MODELRUN_H
#define RETUNE_STAGES_BACKENDS_IREE_MODELRUN_H

#include "stages/backends/iree/CompileTiming.h"
#include "stages/backends/iree/IreeRun.h"
#include "stages/backends/iree/ModelProfile.h"
#include "stages/backends/iree/IreeTools.h"
#include "stages/backends/iree/ModelSignature.h"
#include "stages/backends/iree/OutputCheck.h"
#include "stages/core/Statistics.h"

#include <optional>
#include <string>
#include <vector>

namespace retune::iree {

/// How the whole model is built and timed.
struct ModelRunOptions {
  /// IREE's tools, release and flags: the model's compile flags and the
  /// user's benchmark flags (its inputs).
  IreeToolOptions iree;
  /// The model file the tools compile.
  std::string modelPath{};
  /// Directory for the model's builds and the tools' logs.
  std::string workDir{};
  /// The device URI the model is timed on.
  std::string device = "hip://0";
  /// Function to benchmark (empty: the model's only public one).
  std::string entry{};
  /// `--benchmark_repetitions` per run.
  unsigned repetitions = 5;
  /// Reference/other alternations.
  unsigned rounds = 3;
  /// Seconds before a compile of the model is killed.
  unsigned compileTimeout = 120;
  /// Seconds before a benchmark or run of the model is killed.
  unsigned benchTimeout = 600;
  /// Root of the content-addressed cache of whole-model builds (empty: no
  /// cache; ContentCache::rootFor).
  std::string cacheRoot{};

  /// `<workDir>/<name>`.
  std::string inWork(const llvm::Twine &name) const;
};

/// The family of the target `flags` compile for ("cpu", "cuda", "gpu"):
/// how a spec is passed depends on it (IreeSyntax::specFlags), and the
/// model names no target, its compile flags do.
std::string familyOfFlags(llvm::ArrayRef<std::string> flags);

/// Whether both sides of `timed` ran and the tuned side has samples: a
/// timing there is a ratio of.
bool bothSidesTimed(const InterleavedOutcome &timed);

/// A run more than this much slower than its side's fastest run was slowed
/// by the machine, not by its build (stats::slowedRuns). The runs of one
/// build spread 4-6% on this project's 2-core VM (the ViT at 2 threads:
/// 98.9-105.1 ms; MiniLM's flag search 10.0-10.5 ms), a scatter of +-10%
/// at most 1.22x; its slow phases made whole runs 1.3x (the ViT's tuned
/// build: 114 ms against 88), 1.37x (MiniLM) and 1.7x (the ViT's baseline:
/// 172-177 ms against 99) slower.
constexpr double kSlowedRunFactor = 1.25;

/// How many runs of `timed` (both sides) its estimate leaves out as slowed
/// by the machine: with paired rounds, every round with a slowed run on
/// either side.
unsigned runsSetAside(const InterleavedOutcome &timed);

/// Whether runs were set aside (runsSetAside) and fewer than three a side
/// are left: `timed` cannot be judged, whichever way it points, until more
/// rounds are timed (needsMoreSamples).
bool tooFewSteadyRuns(const InterleavedOutcome &timed);

/// The ratio of `timed`'s tuned samples to its baseline's over every pair
/// (stats::estimateRatio), with the confidence bound taken over the runs'
/// medians: one process's samples share where its module and buffers
/// landed, so they are not independent of each other
/// (docs/file-formats.md, "Ratio and noise"). The runs of one round are
/// paired (stats::estimatePairedRatio) when both sides have every round's
/// and there are six rounds or more. When runs are set aside
/// (runsSetAside), the estimate is over the other runs' medians: paired
/// with six rounds or more left, else every cross ratio (the bound over
/// all runs while under three a side are left).
stats::RatioEstimate estimateInterleaved(const InterleavedOutcome &timed);

/// Whether `timed` (both sides timed) is faster than `1 - margin` but not
/// established (its confidence bound is not below 1), or has too few
/// steady runs to judge (tooFewSteadyRuns): more runs would decide it.
bool needsMoreSamples(const InterleavedOutcome &timed, double margin);

/// Pools `more`'s samples and runs into `runs`, as one longer timing.
void appendRuns(BenchOutcome &runs, const BenchOutcome &more);

/// Pools `again`'s runs into `timed` (both sides), as one longer timing.
void appendTiming(InterleavedOutcome &timed, const InterleavedOutcome &again);

/// How many times an undecided timing is repeated (timeDecisively), each
/// `rounds` more runs a side: with three a side a gain is established only
/// when every tuned run beats every baseline run.
constexpr unsigned kMoreTimings = 2;

/// kMoreTimings for a trial the model's profile predicts a gain beyond the
/// margin for (moreTimingsFor): up to 18 runs a side with three rounds.
constexpr unsigned kMoreTimingsWhenPredicted = 5;

/// One run of the whole model: its tools, entry and inputs, and the
/// reference build's results that every other build must reproduce.
class ModelRunner {
public:
  /// Finds IREE's tools (logs in `options.workDir`; started by `processes`)
  /// and reads the entry and inputs (the options', else the model's
  /// signature).
  static Expected<ModelRunner>
  create(const ModelRunOptions &options,
         ProcessRunner &processes = systemProcessRunner());

  const ModelRunOptions &options() const { return runOptions; }
  /// IREE's tools this run starts.
  const IreeTools &ireeTools() const { return tools; }

  /// Compiles the model with the user's compile flags plus `extraFlags` and
  /// `spec` (empty: none) into `<tag>.vmfb`, with its record in
  /// `<tag>.compile.json` and MLIR's pass timing in `<tag>.compile.log`.
  /// Each distinct build (IREE, arguments, model and spec content, host) is
  /// compiled once: a build this work directory or the content cache
  /// already holds is reused (`cached`), keeping the seconds its compile
  /// took. Failures are the record's status. `input`, when given, is
  /// compiled instead of the model (a rewrite of it, ModelRewrite.h).
  CompileRecord compile(llvm::StringRef tag, llvm::StringRef spec,
                        llvm::ArrayRef<std::string> extraFlags = {},
                        llvm::StringRef input = "") const;
  /// The passes `<tag>`'s compile spent the most wall time in (empty
  /// without a timing report).
  std::vector<PassTime> slowestPasses(llvm::StringRef tag) const;

  /// Runs `<referenceTag>.vmfb` on seeded inputs and keeps its results; a
  /// no-op (and later checks pass) without iree-run-module.
  Error makeReference(llvm::StringRef referenceTag);
  /// Compiles the model with the user's compile flags alone into
  /// `<referenceTag>.vmfb` and makes it the reference (makeReference). A
  /// model that does not compile is an error: "<model>: the model does not
  /// compile <how> (fix [iree] compile_flags): <why>".
  Expected<CompileRecord> buildReference(llvm::StringRef referenceTag,
                                         llvm::StringRef how);
  bool checksResults() const { return reference.has_value(); }
  /// `<tag>.vmfb` against the reference's results.
  OutputCheck check(llvm::StringRef tag) const;

  /// `<referenceTag>.vmfb` and `<tag>.vmfb` timed alternately, holding the
  /// device's measurement lock (timeAllAgainst of the one tag).
  InterleavedOutcome timeAgainst(llvm::StringRef referenceTag,
                                 llvm::StringRef tag) const;

  /// `<referenceTag>.vmfb` and every `<tag>.vmfb` of `tags` timed in turn
  /// (benchRoundRobin), holding the device's measurement lock: per tag, its
  /// runs against the reference's runs of the same rounds. One reference
  /// run a round serves every tag (the flag search: five builds a round for
  /// four sets, not eight), and every build is timed in the same rounds, so
  /// drift between timings does not favour one over another.
  std::vector<InterleavedOutcome>
  timeAllAgainst(llvm::StringRef referenceTag,
                 llvm::ArrayRef<std::string> tags) const;

  /// timeAgainst, and while its gain is beyond `margin` but not
  /// established (needsMoreSamples), again, at most `maxMore` times, the
  /// runs pooled: what the flag search and the model step decide by.
  InterleavedOutcome timeDecisively(llvm::StringRef referenceTag,
                                    llvm::StringRef tag, double margin,
                                    unsigned maxMore = kMoreTimings) const;

  /// `<tag>.vmfb` run `runs` times under IREE's profiler, holding the
  /// device's measurement lock: each dispatch function's calls (over all
  /// runs) and mean time. An error says why there is no profile (no
  /// iree-profile beside iree-benchmark-module, a device that cannot
  /// profile); callers note it and go on. The profile's files are named
  /// by `filesTag` when given (a build profiled twice keeps both).
  Expected<std::vector<DispatchTime>>
  profile(llvm::StringRef tag, unsigned runs,
          llvm::StringRef filesTag = "") const;

private:
  ModelRunner(ModelRunOptions options, IreeTools tools,
              ModelInvocation invocation)
      : runOptions(std::move(options)), tools(std::move(tools)),
        invocation(std::move(invocation)) {}
  BenchRequest benchRequest(llvm::StringRef tag) const;
  RunRequest runRequest(llvm::StringRef tag) const;

  ModelRunOptions runOptions;
  IreeTools tools;
  ModelInvocation invocation;
  std::vector<std::string> seededInputs;
  std::optional<Reference> reference;
};

} // namespace retune::iree

#endif // RETUNE_STAGES_BACKENDS_IREE_MODELRUN_H
