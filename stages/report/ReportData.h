//===- ReportData.h - What the report shows ---------------------*- C++ -*-===//
//
// retune-report gathers the records of a build directory into these structs;
// the HTML page and summary.json are both rendered from them, so a unit test
// can build a fixture without a build directory.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_REPORT_REPORTDATA_H
#define RETUNE_REPORT_REPORTDATA_H

#include "stages/core/Records.h"

#include <optional>
#include <string>
#include <vector>

namespace retune::report {

/// One candidate of a dispatch: its configuration and what became of it.
struct CandidateRow {
  unsigned index = 0;
  /// The knob values as "key=value" pairs, in the index's order.
  std::string config;
  double cost = 0;
  Status status = Status::Ok;
  /// Why it failed (compile or bench message), empty when Ok.
  std::string message;
  /// Candidate time / baseline time (median of the paired ratios) and its
  /// noise (half IQR of the ratios), both meaningful for Ok rows only.
  double ratio = 0, noise = 0;
  double median = 0, baselineMedian = 0;
  bool compileCached = false, benchCached = false;
};

/// What the model step did with a dispatch's winner.
enum class ModelVerdict { NoWinner, Kept, Dropped };

/// "no winner", "kept", "dropped": summary.json's `model_step`.
inline llvm::StringRef toString(ModelVerdict verdict) {
  switch (verdict) {
  case ModelVerdict::Kept:
    return "kept";
  case ModelVerdict::Dropped:
    return "dropped";
  case ModelVerdict::NoWinner:
    break;
  }
  return "no winner";
}

struct DispatchReport {
  std::string id, name;
  double share = 0, flops = 0;
  unsigned occurrences = 1;
  /// Valid configurations in the whole space, and why there are none.
  uint64_t solutions = 0;
  std::string note;
  /// After a compiler change: "kept" (the previous winner still wins) or
  /// "re-searched", and why; empty when nothing was verified.
  std::string reverify, reverifyWhy;
  std::vector<CandidateRow> candidates;
  std::optional<unsigned> winner;
  /// With a winner: the winner's paired measurement; without: the median
  /// baseline over all measurements (best = baseline, speedup 1).
  double baseline = 0, best = 0, speedup = 1;
  /// The selection's explanation, and the margin the winner had to beat.
  std::string reason;
  double requiredMargin = 0;
  ModelVerdict verdict = ModelVerdict::NoWinner;
  /// Why the model step dropped the winner.
  std::string droppedReason;
  /// How a kept winner reaches the whole model (iree): "by the spec", or
  /// "as configured executable <name>" where the spec cannot.
  std::string appliedInModel;
  /// Mean time of one call inside the whole model (the build without the
  /// spec, IREE's profiler), seconds; next to `baseline`, its time alone in
  /// the dispatch benchmark.
  std::optional<double> inModel;
  /// Its FLOP rate in the whole model over the CPU's peak, from the dump's
  /// profile (0: not bound by FLOPs, or not known).
  double peakFraction = 0;
  /// The peak rate behind `peakFraction`, FLOPs a second (0: not known).
  double peakFlopsPerSecond = 0;
  /// The share of the model's time it could give back, from the dump's
  /// profile (negative: not known). DispatchEntry::gainShare.
  double gainShare = -1;
  /// Set when the best measured candidate ran more than 2x the default
  /// config's time: the space cannot hold a winner here, which is a defect
  /// of the space to fix, not a tuning result.
  std::string spaceWarning;
};

/// The best candidate's time over the default config's above which a
/// dispatch's space is reported as wrong.
inline constexpr double kWrongSpaceRatio = 2.0;

/// One dispatch function's time inside the whole model (IREE's profiler).
struct InModelTime {
  /// The executable export, and its dispatch id when the dump listed it.
  std::string function, dispatch;
  double callsPerRun = 0;
  /// Mean time of one call, microseconds, without and with the spec.
  double baselineUs = 0;
  std::optional<double> tunedUs;
};

/// The model step: the model as the compiler builds it after the flag
/// choice (baseline) against the same with the tuning spec (tuned).
struct ModelReport {
  std::string status, message, decision;
  double baseline = 0, tuned = 0, speedup = 0, noise = 0;
  std::vector<double> baselineSamples, tunedSamples;
  double startedAt = 0, seconds = 0;
  /// Where the model's time goes, slowest first (iree), or why unknown.
  std::vector<InModelTime> inModel;
  std::string profileNote;
  /// The iree backend's flag search, when it ran: the model's median with
  /// the compiler's default flags, and the chosen flags' speedup over it
  /// (1 when the defaults stayed), both measured interleaved in that step.
  std::optional<double> defaultFlagsTime, flagsSpeedup;

  /// What the user gets, the headline: the compiler's defaults -> Retune
  /// (flags and spec). Without a flag search, the model step alone.
  double headlineBaseline() const {
    return flagsSpeedup ? *defaultFlagsTime : baseline;
  }
  double headlineSpeedup() const {
    return flagsSpeedup ? *flagsSpeedup * speedup : speedup;
  }
};

/// One step of a stage that recorded when it started.
struct StepTime {
  /// Unix seconds; end == start for a replay from the cache.
  double start = 0, end = 0;
  /// What the step worked on ("<dispatch name> #3", "baseline", ...).
  std::string label;
  bool cached = false;
};

/// One kind of step (candidates, compile, bench, model) of the run.
struct StageTiming {
  std::string name;
  /// The union of the steps' intervals, and the sum of their lengths.
  double wall = 0, busy = 0;
  std::vector<StepTime> steps;
  unsigned stepCount = 0, cachedCount = 0;
  /// A step that writes no timed record (import, flags, dump): Ninja's log
  /// gives its length, not when it ran, so the timeline leaves it out.
  bool timedByNinja = false;
};

/// One earlier (or the current) run, as its summary.json recorded it.
struct HistoryRun {
  double startedAt = 0;
  double baseline = 0, tuned = 0, speedup = 0;
  unsigned winnersKept = 0;
  /// (dispatch id, name, speedup) per dispatch.
  struct Dispatch {
    std::string id, name;
    double speedup = 1;
  };
  std::vector<Dispatch> dispatches;
};

/// What a spec could give back at most, from the dump's profile: the
/// dispatches' time above what their FLOPs take at the CPU's peak rate.
struct RoomForSpec {
  /// Shares of the model's time: to gain, and run at 90% of the peak or more.
  double gainShare = 0, atPeakShare = 0;
  /// The spec's ceiling, 1 / (1 - gainShare).
  double ceiling() const { return gainShare < 1 ? 1 / (1 - gainShare) : 0; }
};

/// None when no dispatch has a time to gain (no profile, a GPU target).
std::optional<RoomForSpec> roomForSpec(const std::vector<DispatchReport> &dispatches);

/// A dispatch's FLOP rate over the CPU's peak at `callUs` microseconds a
/// call, for a line that prints that time: the dump's `peakFraction` came
/// from another profile, which a busy machine slows (the MLP's matmul read
/// 28% of the peak beside a time in the model step's profile that made it
/// 46%). The dump's own fraction where its record has no peak rate.
double peakFractionAt(const DispatchReport &r, double callUs);

struct RunReport {
  /// The model file the run tuned.
  std::string model;
  std::string backend;
  /// The configured selection margin ([select] margin).
  double margin = 0.02;
  std::vector<DispatchReport> dispatches;
  ModelReport modelResult;
  std::vector<StageTiming> stages;
  /// Why the spec is empty when no dispatch had a winner (one line a person
  /// reads: what was measured and how close it came); empty otherwise.
  std::string noWinnerWhy;
  /// Oldest first; the current run is the last entry when history is kept.
  std::vector<HistoryRun> history;
};

} // namespace retune::report

#endif // RETUNE_REPORT_REPORTDATA_H
