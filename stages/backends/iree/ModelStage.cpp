//===- ModelStage.cpp - Does the spec help the whole model? ---------------===//
//
// Compiles the whole model without and with specs (the user's compile
// flags), benchmarks both alternately on one device (benchInterleaved), and
// writes the spec users get. Every tuned model must reproduce the
// baseline's results on seeded inputs (OutputCheck) and differ from the
// baseline's module. First each dispatch's fastest few candidates are tried
// in the model (the model, not the dispatch benchmark, decides): with IREE's
// profiler, in rounds that build every dispatch's next option together and
// judge each by its time in the model (chooseInModelByProfile); without
// it, those that can save enough of the model's time (keepPromisingOptions)
// alone, each timed on the whole model, until one helps (chooseInModel).
// Then the chosen ones together, and when that is not faster, each alone
// but those too small to show alone (tooSmallAlone, smallWinnersTogether)
// and those the profile judged beside the others, dropping those that do
// not help (decideWinners, shared with
// retune-model); with none left the spec is empty. The decision and the
// samples go to model/result.json (retune.model/2).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/ModelStage.h"

#include "stages/backends/iree/ConfiguredExecutables.h"
#include "stages/backends/iree/IreeLinker.h"
#include "stages/backends/iree/IreeIr.h"
#include "stages/backends/iree/IreeSpec.h"
#include "stages/core/Statistics.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"
#include "stages/support/RunBudget.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <limits>
#include <map>

using namespace llvm;

namespace retune::iree {
namespace {

std::vector<double> toSeconds(ArrayRef<double> us) {
  std::vector<double> seconds;
  for (double v : us)
    seconds.push_back(v * 1e-6);
  return seconds;
}

/// The model compiled and timed with one set of winners.
struct Attempt {
  std::string specText;
  /// The winners the spec does not reach in the model, as configured
  /// executables (SpecReach).
  std::vector<DeliveredExecutable> executables;
  InterleavedOutcome timed;
};

/// What a trial's record says of the winners carried by executables.
std::string describeDelivery(const Attempt &attempt) {
  if (attempt.executables.empty())
    return {};
  std::vector<std::string> names;
  for (const DeliveredExecutable &e : attempt.executables)
    names.push_back(e.executable + " (" + e.dispatch + ")");
  return "; the spec does not reach " + join(names, ", ") +
         " in the model: delivered as configured executable(s)";
}

/// The spec of `some` winners (tried as `tag`): spec/linked.mlir for all
/// of them (the link step made it), else linked here with the same linker.
Expected<std::string> specFor(const ModelOptions &options,
                              const ModelRunner &runner, ArrayRef<Winner> some,
                              StringRef tag, bool isAll) {
  if (isAll)
    return readFile(options.linkedPath);
  if (some.empty())
    return emitTuningSpec({});
  return linkTuningSpecFiles(runner.ireeTools(), specPaths(some),
                             options.run.workDir, tag);
}

/// The model built with `some` winners and checked, not timed: a failure
/// (compile, a spec that changes nothing, wrong results) is the attempt's
/// tuned status.
Expected<Attempt> buildWinners(const ModelOptions &options,
                               const ModelRunner &runner, ArrayRef<Winner> some,
                               StringRef tag, bool isAll,
                               const CompileRecord &baseline,
                               const SpecReach *reach) {
  Attempt attempt;
  Expected<std::string> text = specFor(options, runner, some, tag, isAll);
  if (!text)
    return text.takeError();
  attempt.specText = std::move(*text);
  std::string specPath = options.run.inWork(tag + ".spec.mlir");
  if (Error err = writeTuningSpec(
          specPath, attempt.specText,
          IreeIrLibrary::forTool(options.run.iree.compile)))
    return std::move(err);
  std::vector<std::string> extraFlags;
  // Winners the spec misses whose executable IREE configures with their
  // spec as without it: nothing of them can reach the model.
  std::vector<std::string> unchanged;
  if (reach) {
    std::string dir = options.run.inWork(tag + ".executables");
    Expected<std::vector<DeliveredExecutable>> delivered =
        reach->substitute(some, dir, unchanged);
    if (!delivered)
      return delivered.takeError();
    attempt.executables = std::move(*delivered);
    if (!attempt.executables.empty())
      extraFlags.push_back(substituteExecutablesFlag(dir));
  }
  CompileRecord compiled = runner.compile(tag, specPath, extraFlags);
  if (compiled.status != Status::Ok) {
    attempt.timed.tuned.status = compiled.status;
    attempt.timed.tuned.message = "compile with the spec: " + compiled.message;
    return attempt;
  }
  // A spec whose matchers hit nothing in the model leaves the module
  // byte-identical: it cannot help, and shipping it would hide that.
  if (!some.empty() && compiled.artifactHash == baseline.artifactHash) {
    attempt.timed.tuned.status = Status::NotApplied;
    attempt.timed.tuned.message =
        !unchanged.empty()
            ? "the spec did not apply to the model: its module is "
              "byte-identical to the baseline's (the spec does not reach the "
              "dispatch in the model, and IREE configures its executable "
              "with the spec as without)"
            : "the spec did not apply to the model: its module is "
              "byte-identical to the baseline's";
    return attempt;
  }
  OutputCheck check = runner.check(tag);
  attempt.timed.tuned.status = check.status;
  attempt.timed.tuned.message = check.message;
  return attempt;
}

/// buildWinners, then timed against the baseline until decided, at most
/// `moreTimings` more times (moreTimingsFor).
Expected<Attempt> tryWinners(const ModelOptions &options,
                             const ModelRunner &runner, ArrayRef<Winner> some,
                             StringRef tag, bool isAll,
                             const CompileRecord &baseline,
                             const SpecReach *reach, unsigned moreTimings) {
  Expected<Attempt> attempt =
      buildWinners(options, runner, some, tag, isAll, baseline, reach);
  if (!attempt || attempt->timed.tuned.status != Status::Ok)
    return attempt;
  attempt->timed =
      runner.timeDecisively("baseline", tag, options.margin, moreTimings);
  return attempt;
}

/// The model built with `some` winners (buildWinners) and profiled: each
/// dump dispatch's time in it.
Expected<ProfiledBuild> profileWinners(const ModelOptions &options,
                                       const ModelRunner &runner,
                                       ArrayRef<Winner> some, StringRef tag,
                                       bool isAll,
                                       const CompileRecord &baseline,
                                       const SpecReach *reach,
                                       ArrayRef<DispatchEntry> dispatches) {
  Expected<Attempt> built =
      buildWinners(options, runner, some, tag, isAll, baseline, reach);
  if (!built)
    return built.takeError();
  const BenchOutcome &failed = built->timed.tuned;
  if (failed.status != Status::Ok)
    return ProfiledBuild{
        formatv("{0}: {1}", toString(failed.status), failed.message).str(), {}};
  Expected<std::vector<DispatchTime>> times =
      runner.profile(tag, kProfiledRuns);
  if (!times)
    return ProfiledBuild{"not profiled: " + toString(times.takeError()), {}};
  return ProfiledBuild{"", inModelTimes(dispatches, *times, kProfiledRuns)};
}

/// The empty spec's attempt after `trials`: the baseline's runs timed
/// beside each of them, on both sides (the build shipped is the baseline);
/// none when no trial timed the baseline.
std::optional<Attempt>
modelAsCompiled(const std::map<std::string, Attempt> &trials) {
  Attempt none;
  none.specText = emitTuningSpec({});
  BenchOutcome &runs = none.timed.baseline;
  for (const auto &[tag, attempt] : trials) {
    const BenchOutcome &baseline = attempt.timed.baseline;
    if (baseline.status != Status::Ok)
      continue;
    appendRuns(runs, baseline);
  }
  if (runs.samplesUs.empty())
    return std::nullopt;
  none.timed.tuned = runs;
  return none;
}

/// Copies the build `tag` to `model/shipped.vmfb`: what Retune says to ship,
/// for whoever times it after the tune (scripts/quickstart_table.py).
Error copyShippedModule(const ModelRunOptions &run, StringRef tag) {
  std::string shipped = run.inWork("shipped.vmfb");
  std::string partial = shipped + ".tmp";
  if (std::error_code ec =
          sys::fs::copy_file(run.inWork(tag + ".vmfb"), partial))
    return makeError(run.inWork(tag + ".vmfb") + ": " + ec.message());
  if (std::error_code ec = sys::fs::rename(partial, shipped))
    return makeError(shipped + ": " + ec.message());
  return Error::success();
}

/// The result record of the decision and the attempt behind it.
ModelRecord modelRecord(const ModelOptions &options, const ModelRunner &runner,
                        WinnerDecision &decision, const Attempt &behind) {
  bool tuned = !decision.kept.empty();
  const InterleavedOutcome &timed = behind.timed;
  double baseMedian = stats::median(timed.baseline.samplesUs) * 1e-6;
  double tunedMedian =
      tuned ? stats::median(timed.tuned.samplesUs) * 1e-6 : baseMedian;
  const BenchOutcome &failed =
      timed.baseline.status != Status::Ok ? timed.baseline : timed.tuned;
  ModelRecord r;
  r.model = options.run.modelPath;
  r.device = options.run.device;
  r.status = failed.status;
  r.message = failed.message;
  r.decision = decision.text;
  r.baselineMedian = baseMedian;
  r.tunedMedian = tunedMedian;
  // Nothing kept ships the baseline itself: 1, also when the last attempt
  // was never timed (its spec did not apply, or it failed).
  r.speedup = !tuned ? 1.0 : tunedMedian > 0 ? baseMedian / tunedMedian : 0.0;
  if (tuned) {
    stats::RatioEstimate estimate =
        stats::estimateRatio(timed.tuned.samplesUs, timed.baseline.samplesUs);
    r.ratio = estimate.ratio;
    r.noise = estimate.noise;
  }
  for (const Winner &w : decision.kept)
    r.winnersKept.push_back(w.dispatch);
  r.winnersDropped = std::move(decision.dropped);
  r.resultsChecked =
      runner.checksResults()
          ? "against the baseline's on seeded inputs (iree-run-module)"
          : "no (iree-run-module not found)";
  r.baselineSamples = toSeconds(timed.baseline.samplesUs);
  r.tunedSamples = toSeconds(timed.tuned.samplesUs);
  return r;
}

/// The dump's dispatches (dispatches/index.json in the build directory);
/// none when there is no readable index.
std::vector<DispatchEntry> dumpedDispatches() {
  Expected<DispatchIndex> index = readRecord<DispatchIndex>(
      "dispatches/index.json", schema::kDispatches, dispatchIndexFromJson);
  if (!index) {
    consumeError(index.takeError());
    return {};
  }
  return std::move(index->dispatches);
}

/// The dump's dispatch ids by function name (the profiler's name for them):
/// every executable the dump merged into a dispatch names it.
StringMap<std::string> idsByName(ArrayRef<DispatchEntry> dispatches) {
  StringMap<std::string> ids;
  for (const DispatchEntry &d : dispatches)
    for (const std::string &name : d.allExports())
      ids[name] = d.id;
  return ids;
}

/// The baseline's profile, or why there is none.
struct BaselineProfile {
  std::vector<DispatchTime> times;
  std::string note;
};

BaselineProfile profileBaseline(const ModelRunner &runner) {
  Expected<std::vector<DispatchTime>> times =
      runner.profile("baseline", kProfiledRuns);
  if (!times)
    return {{}, toString(times.takeError())};
  return {std::move(*times), ""};
}

/// The files of the baseline's profile taken beside the tuned build's at
/// the end of the step (recordProfiles); the first one keeps "baseline".
constexpr StringLiteral kLastBaselineProfile = "baseline-last";

/// Where the model's time goes, under IREE's profiler: the baseline
/// profiled again at the end of the step, and right after it `tunedTag`'s
/// build (empty: nothing kept), so the two columns a person compares ran
/// side by side. The step's first profile of the baseline (`first`) chose
/// the options, its drift corrected by the dispatches a round left alone
/// (profileDrift); it runs right after the step's first compile and, on
/// the ViT at 2 threads, read up to 1.34x the model's timed runs (123.6
/// against 92.5 ms a run), every dispatch alike (docs/iree-backend.md). It
/// stands in when the second fails. No profile is a note, never a failed
/// step.
void recordProfiles(const ModelRunner &runner, const BaselineProfile &first,
                    ArrayRef<DispatchEntry> dispatches, StringRef tunedTag,
                    ModelRecord &r) {
  if (!first.note.empty()) {
    r.profileNote = first.note;
    return;
  }
  Expected<std::vector<DispatchTime>> last =
      runner.profile("baseline", kProfiledRuns, kLastBaselineProfile);
  std::vector<DispatchTime> baseline = first.times;
  if (last)
    baseline = std::move(*last);
  else
    r.profileNote = "the baseline profiled again: " + toString(last.takeError()) +
                    " (the step's first profile of it stands in)";
  StringMap<double> tunedUs;
  if (!tunedTag.empty()) {
    Expected<std::vector<DispatchTime>> tuned =
        runner.profile(tunedTag, kProfiledRuns);
    if (!tuned)
      r.profileNote = "the tuned build: " + toString(tuned.takeError());
    else
      for (const DispatchTime &d : *tuned)
        tunedUs[d.function] = d.averageUs;
  }
  StringMap<std::string> ids = idsByName(dispatches);
  for (const DispatchTime &d : baseline) {
    json::Object entry{{"function", d.function},
                       {"calls_per_run",
                        static_cast<double>(d.calls) / kProfiledRuns},
                       {"baseline_us", d.averageUs}};
    if (auto id = ids.find(d.function); id != ids.end())
      entry["dispatch"] = id->second;
    if (auto tuned = tunedUs.find(d.function); tuned != tunedUs.end())
      entry["tuned_us"] = tuned->second;
    r.inModelProfile.push_back(std::move(entry));
  }
}

} // namespace

Trial modelTrial(const InterleavedOutcome &timed, double margin) {
  if (!bothSidesTimed(timed))
    return {false, timed.tuned.message + timed.baseline.message, 0};
  stats::RatioEstimate estimate = estimateInterleaved(timed);
  bool beyondMargin = estimate.ratio < 1 - margin;
  bool established = estimate.upper < 1;
  std::string description =
      formatv("{0:f3}x the baseline time", estimate.ratio).str();
  std::string evidence =
      formatv("below {0:f3}x with 97.5% confidence over {1} runs a side",
              estimate.upper,
              std::min(timed.tuned.runMediansUs.size(),
                       timed.baseline.runMediansUs.size()))
          .str();
  if (unsigned aside = runsSetAside(timed))
    evidence += formatv(", {0} run(s) set aside that the machine ran more "
                        "than {1:f2}x slower than their side's fastest run",
                        aside, kSlowedRunFactor)
                    .str();
  if (beyondMargin && established)
    description += " (" + evidence + ")";
  else if (estimate.ratio < 1 && !beyondMargin)
    description += formatv(" (within the margin: a spec must run the model in "
                           "less than {0:f3}x)",
                           1 - margin)
                       .str();
  else if (beyondMargin)
    description += formatv(" (not established beyond noise: the ratio is "
                           "only {0})",
                           evidence)
                       .str();
  return {beyondMargin && established, description, estimate.ratio};
}

namespace {
/// Whether a candidate's config is a data-tiled matmul grid that brings at
/// most half the bytes of IREE's own into the L2 (CandidatesStage's
/// bytesIntoL2). The MLP at 2 threads: IREE's [1, 1] streams its 4 MB of
/// weights once per row of M1 tiles; [16, 2] once. Alone, where the weights
/// stay in the two cores' L2s from one call to the next, [16, 2] ran 1.08x
/// IREE's time; in the model, where a pack writes them just before, both
/// matmuls so ran the model in 0.77x (five interleaved rounds).
bool streamsHalfAsMuch(const json::Object &config) {
  std::optional<int64_t> bytes = config.getInteger("bytes_into_l2");
  std::optional<int64_t> iree = config.getInteger("iree_bytes_into_l2");
  return bytes && iree && *bytes > 0 && 2 * *bytes <= *iree;
}

/// The bytes of an option never judged by its bytes into the L2.
constexpr int64_t kNotJudgedByBytes = std::numeric_limits<int64_t>::max();

/// A candidate that ran alone, with its ratio there and, where it brings
/// at most half IREE's bytes into the L2 (streamsHalfAsMuch), its bytes
/// into the L2; kNotJudgedByBytes elsewhere.
struct MeasuredOption {
  double ratio;
  int64_t bytes;
  Winner winner;
};

/// The candidates of dispatch `id` that ran alone (status ok).
Expected<std::vector<MeasuredOption>> readMeasuredOptions(StringRef buildDir,
                                                          StringRef id) {
  Expected<CandidateIndex> index = readRecord<CandidateIndex>(
      (buildDir + "/candidates/" + id + "/index.json").str(),
      retune::schema::kCandidates, candidateIndexFromJson);
  if (!index)
    return index.takeError();
  std::vector<MeasuredOption> measured;
  for (const CandidateEntry &c : index->candidates) {
    Expected<BenchRecord> result = readBenchRecord(
        formatv("{0}/results/{1}/{2}.json", buildDir, id, c.index).str());
    if (!result)
      return result.takeError();
    if (result->status != Status::Ok || result->ratio <= 0)
      continue;
    int64_t bytes = streamsHalfAsMuch(c.config)
                        ? *c.config.getInteger("bytes_into_l2")
                        : kNotJudgedByBytes;
    measured.push_back(
        {result->ratio, bytes,
         Winner{id.str(), ("candidates/" + id + "/" + c.file).str(),
                result->ratio}});
  }
  return measured;
}

/// The grid that streams least of those that bring at most half IREE's
/// bytes into the L2 and ran within kColdGridSlowestAlone alone, a winner
/// or not.
std::optional<MeasuredOption>
coldGrid(ArrayRef<MeasuredOption> measured) {
  std::optional<MeasuredOption> cold;
  for (const MeasuredOption &option : measured)
    if (option.bytes != kNotJudgedByBytes &&
        option.ratio <= kColdGridSlowestAlone &&
        (!cold || std::make_pair(option.bytes, option.ratio) <
                      std::make_pair(cold->bytes, cold->ratio)))
      cold = option;
  return cold;
}

/// The `inModel` fastest winners alone (ratio < 1), fastest first.
std::vector<MeasuredOption> fastestWinners(ArrayRef<MeasuredOption> measured,
                                           unsigned inModel) {
  std::vector<MeasuredOption> winners;
  for (const MeasuredOption &option : measured)
    if (option.ratio < 1)
      winners.push_back(option);
  llvm::stable_sort(winners, [](const auto &a, const auto &b) {
    return a.ratio < b.ratio;
  });
  if (winners.size() > inModel)
    winners.resize(inModel);
  return winners;
}

/// One dispatch's options for the model: its fastest winners alone and the
/// cold grid where none of the others brings as few bytes into the L2, in
/// its place among them if it won, else in the last. Its ratio alone does
/// not predict it, even where it won: left unread (0), so that no bound
/// from the dispatch benchmark keeps it out of the model
/// (keepPromisingOptions); a winner by a hair (the MLP's [16, 2] at 0.992x
/// IREE's time, 2 threads) was so kept out.
DispatchOptions inModelOptionsOf(StringRef id,
                                 ArrayRef<MeasuredOption> measured,
                                 unsigned inModel) {
  std::vector<MeasuredOption> chosen = fastestWinners(measured, inModel);
  std::optional<MeasuredOption> cold = coldGrid(measured);
  auto isCold = [&](const MeasuredOption &o) {
    return cold && o.winner.spec == cold->winner.spec;
  };
  int64_t fewestBytes = kNotJudgedByBytes;
  for (const MeasuredOption &option : chosen)
    if (!isCold(option))
      fewestBytes = std::min(fewestBytes, option.bytes);
  if (cold && inModel > 0 && cold->bytes < fewestBytes) {
    auto at = llvm::find_if(chosen, isCold);
    if (at == chosen.end()) {
      if (chosen.size() == inModel)
        chosen.pop_back();
      at = chosen.insert(chosen.end(), *cold);
    }
    at->winner.dispatchRatio = 0;
  }
  DispatchOptions options{id.str(), {}};
  for (MeasuredOption &option : chosen)
    options.options.push_back(std::move(option.winner));
  return options;
}
} // namespace

Expected<std::vector<DispatchOptions>>
readInModelOptions(ArrayRef<std::string> selections, unsigned inModel) {
  std::vector<DispatchOptions> all;
  for (StringRef selection : selections) {
    SmallString<256> buildDir =
        sys::path::parent_path(sys::path::parent_path(selection));
    if (buildDir.empty())
      buildDir = ".";
    std::string id = sys::path::stem(selection).str();
    Expected<std::vector<MeasuredOption>> measured =
        readMeasuredOptions(buildDir, id);
    if (!measured)
      return measured.takeError();
    DispatchOptions options = inModelOptionsOf(id, *measured, inModel);
    if (!options.options.empty())
      all.push_back(std::move(options));
  }
  return all;
}

StringMap<double> modelTimeShares(ArrayRef<DispatchEntry> dispatches,
                                  ArrayRef<DispatchTime> profile) {
  StringMap<double> shares;
  for (const DispatchEntry &d : dispatches)
    shares[d.id] = d.share;
  double totalUs = 0;
  for (const DispatchTime &t : profile)
    totalUs += t.calls * t.averageUs;
  if (totalUs <= 0)
    return shares;
  StringMap<std::string> ids = idsByName(dispatches);
  StringMap<double> measured;
  for (const DispatchTime &t : profile)
    if (auto id = ids.find(t.function); id != ids.end())
      measured[id->second] += t.calls * t.averageUs / totalUs;
  for (const auto &[id, share] : measured)
    shares[id] = share;
  return shares;
}

StringMap<InModelTime> inModelTimes(ArrayRef<DispatchEntry> dispatches,
                                    ArrayRef<DispatchTime> profile,
                                    unsigned runs) {
  StringMap<std::string> ids = idsByName(dispatches);
  StringMap<InModelTime> us;
  double perRun = 1.0 / std::max(runs, 1u);
  for (const DispatchTime &t : profile)
    if (auto id = ids.find(t.function); id != ids.end()) {
      InModelTime &sum = us[id->second];
      double typicalUs = t.medianUs > 0 ? t.medianUs : t.averageUs;
      sum.medianUs += t.calls * typicalUs * perRun;
      sum.fastestUs += t.calls * t.minUs * perRun;
    }
  return us;
}

/// The model's dispatch time a run in `profile` (over `runs` runs).
static double modelUsPerRun(ArrayRef<DispatchTime> profile, unsigned runs) {
  double modelUs = 0;
  for (const DispatchTime &t : profile)
    modelUs += t.calls * t.averageUs / std::max(runs, 1u);
  return modelUs;
}

std::vector<std::string> tooSmallAlone(const StringMap<double> &savedUs,
                                       ArrayRef<DispatchTime> baseline,
                                       unsigned runs, double margin) {
  double modelUs = modelUsPerRun(baseline, runs);
  std::vector<std::string> small;
  for (const auto &[id, saved] : savedUs)
    if (modelUs <= 0 || saved / modelUs < margin / kInModelSlack)
      small.push_back(id.str());
  llvm::sort(small);
  return small;
}

unsigned moreTimingsFor(ArrayRef<Winner> some, const StringMap<double> &savedUs,
                        ArrayRef<DispatchTime> baseline, unsigned runs,
                        double margin) {
  double modelUs = modelUsPerRun(baseline, runs);
  double saved = 0;
  for (const Winner &w : some)
    if (auto s = savedUs.find(w.dispatch); s != savedUs.end())
      saved += s->second;
  return modelUs > 0 && saved >= margin * modelUs ? kMoreTimingsWhenPredicted
                                                  : kMoreTimings;
}

json::Array keepPromisingOptions(std::vector<DispatchOptions> &dispatches,
                                 const StringMap<double> &shares,
                                 double margin) {
  double enough = margin / kInModelSlack;
  json::Array dropped;
  std::vector<DispatchOptions> promising;
  for (DispatchOptions &d : dispatches) {
    auto share = shares.find(d.dispatch);
    if (share == shares.end()) {
      promising.push_back(std::move(d));
      continue;
    }
    auto bound = [&](const Winner &w) {
      return share->second * (1 - w.dispatchRatio);
    };
    double best = 0, bestRatio = 1;
    std::vector<Winner> kept;
    for (Winner &w : d.options) {
      if (w.dispatchRatio > 0 && bound(w) > best) {
        best = bound(w);
        bestRatio = w.dispatchRatio;
      }
      if (w.dispatchRatio <= 0 || bound(w) >= enough)
        kept.push_back(std::move(w));
    }
    if (kept.empty()) {
      dropped.push_back(json::Object{
          {"dispatch", d.dispatch},
          {"bound", best},
          {"reason",
           formatv("not tried in the model: it takes {0:f1}% of the model's "
                   "time and its best candidate {1:f3}x of its time on the "
                   "dispatch, so alone it can save at most {2:f2}% of the "
                   "model's time; a spec must save {3:f1}%",
                   share->second * 100, bestRatio, best * 100, margin * 100)
               .str()}});
      continue;
    }
    d.options = std::move(kept);
    promising.push_back(std::move(d));
  }
  dispatches = std::move(promising);
  return dropped;
}

std::vector<Winner> smallWinnersTogether(json::Array &unpromising,
                                         ArrayRef<Winner> winners,
                                         double margin) {
  std::vector<Winner> joined;
  json::Array rest;
  double bound = 0;
  for (const json::Value &entry : unpromising) {
    const json::Object *o = entry.getAsObject();
    std::optional<StringRef> id = o->getString("dispatch");
    auto winner = llvm::find_if(
        winners, [&](const Winner &w) { return id && w.dispatch == *id; });
    if (winner == winners.end()) {
      rest.push_back(entry);
      continue;
    }
    joined.push_back(*winner);
    bound += o->getNumber("bound").value_or(0);
  }
  if (bound < margin / kInModelSlack)
    return {};
  // They go on as the others do: out of the dropped.
  unpromising = std::move(rest);
  return joined;
}

/// Where the linked spec reaches the model's dispatches (SpecReach), on
/// llvm-cpu with IREE's library at hand; else none, and why in `note`.
std::optional<SpecReach> findSpecReach(const ModelOptions &options,
                                       const ModelRunner &runner,
                                       ArrayRef<DispatchEntry> dispatches,
                                       ArrayRef<Winner> winners,
                                       std::string &note) {
  if (winners.empty())
    return std::nullopt;
  if (familyOfFlags(options.run.iree.compileFlags) != "cpu") {
    note = "not checked: configured executables are delivered on llvm-cpu "
           "only";
    return std::nullopt;
  }
  const IreeIrLibrary *library =
      IreeIrLibrary::forTool(options.run.iree.compile);
  if (!library) {
    note = "not checked: IREE's compiler library is not beside iree-compile";
    return std::nullopt;
  }
  std::vector<SpecReach::Dispatch> exports;
  for (const DispatchEntry &d : dispatches)
    if (llvm::any_of(winners,
                     [&](const Winner &w) { return w.dispatch == d.id; }))
      exports.push_back({d.id, d.allExports()});
  Expected<SpecReach> reach = SpecReach::find(
      runner.ireeTools(), *library, options.run.modelPath,
      options.run.iree.compileFlags, options.linkedPath, exports,
      options.run.workDir, options.run.compileTimeout);
  if (!reach) {
    note = "not checked: " + toString(reach.takeError());
    return std::nullopt;
  }
  note = reach->numMissed() == 0
             ? "the spec reaches every winner's dispatch in the model"
             : formatv("the spec does not reach {0} of the {1} winners' "
                       "dispatches in the model; their candidates are "
                       "delivered as configured executables",
                       reach->numMissed(), exports.size())
                   .str();
  return std::move(*reach);
}

/// The executables folder users pass to iree-compile beside the spec:
/// `executables/` next to it, holding the kept winners' configured
/// executables (none: empty, which IREE takes as no substitution).
std::string executablesDirFor(StringRef finalSpec) {
  SmallString<256> dir = sys::path::parent_path(finalSpec);
  sys::path::append(dir, "executables");
  return dir.str().str();
}

Expected<json::Array>
writeFinalExecutables(StringRef dir,
                      ArrayRef<DeliveredExecutable> executables) {
  if (std::error_code ec = sys::fs::remove_directories(dir))
    return makeError("cannot clear " + dir + ": " + ec.message());
  if (std::error_code ec = sys::fs::create_directories(dir))
    return makeError("cannot create " + dir + ": " + ec.message());
  json::Array records;
  for (const DeliveredExecutable &e : executables) {
    Expected<std::string> text = readFile(e.file);
    if (!text)
      return text.takeError();
    std::string file = (dir + "/" + e.executable + ".mlir").str();
    if (Error err = writeFileAtomic(file, *text))
      return std::move(err);
    records.push_back(json::Object{{"dispatch", e.dispatch},
                                   {"executable", e.executable},
                                   {"file", file},
                                   {"blake3", blake3Hex(*text)}});
  }
  return records;
}

Error runModelStage(const ModelOptions &options, ProcessRunner &processes) {
  double startedAt = unixSeconds();
  auto start = std::chrono::steady_clock::now();
  Expected<std::vector<Winner>> linked = readWinners(options.selections);
  if (!linked)
    return linked.takeError();
  Expected<ModelRunner> runner = ModelRunner::create(options.run, processes);
  if (!runner)
    return runner.takeError();
  Expected<CompileRecord> baseline =
      runner->buildReference("baseline", "without a spec");
  if (!baseline)
    return baseline.takeError();
  // A run whose time budget (RunBudget.h) is spent when this step starts
  // still ships a verified spec, doing the least that can: all winners
  // together in the model, kept only if the model gets faster. The
  // candidates' trials in the model, the pruning and the profile are left
  // to the next run: the ledger has its VERIFY remove this record, and
  // Ninja redoes the step.
  std::optional<std::string> spent = budgetSpent(options.outputPath);
  std::vector<DispatchEntry> dispatches = dumpedDispatches();
  // Where the model's time goes without a spec: it bounds what each
  // candidate can save there, and the record shows it.
  BaselineProfile baselineProfile =
      spent ? BaselineProfile{{}, "not profiled: " + *spent}
            : profileBaseline(*runner);
  std::string specReachNote;
  std::optional<SpecReach> reach =
      spent ? std::nullopt
            : findSpecReach(options, *runner, dispatches, *linked,
                            specReachNote);
  std::map<std::string, Attempt> attempts;
  auto isLinked = [&](ArrayRef<Winner> some) {
    return specPaths(some) == specPaths(*linked);
  };
  // The winners none of which can save alone what a spec must: chosen by
  // the model's profile with a small saving (tooSmallAlone), or, without a
  // profile, the small dispatches' winners that joined the others untried
  // (smallWinnersTogether). They are never timed alone.
  std::vector<std::string> riders;
  // The options the model's profile chose (chooseInModelByProfile) and what
  // each saved a run there: a trial they predict a gain for is timed longer
  // (moreTimingsFor), and they are not timed alone (decideWinners).
  StringMap<double> savedInModel;
  auto measure = [&](ArrayRef<Winner> some, StringRef tag) -> Expected<Trial> {
    if (spent && !attempts.empty())
      return Trial{false, "not measured (" + *spent + ")", 0};
    // The empty spec leaves the model as compiled: after trials, the
    // baseline's own runs beside them are its runs, with no compile.
    if (some.empty())
      if (std::optional<Attempt> none = modelAsCompiled(attempts)) {
        attempts[tag.str()] = std::move(*none);
        return Trial{false, "the model as compiled (nothing to link)", 1};
      }
    unsigned moreTimings =
        moreTimingsFor(some, savedInModel, baselineProfile.times,
                       kProfiledRuns, options.margin);
    Expected<Attempt> attempt =
        tryWinners(options, *runner, some, tag, isLinked(some), *baseline,
                   reach ? &*reach : nullptr, moreTimings);
    if (!attempt)
      return attempt.takeError();
    Trial trial = modelTrial(attempt->timed, options.margin);
    trial.description += describeDelivery(*attempt);
    if (moreTimings > kMoreTimings)
      trial.description += "; the model's profile predicted a gain beyond "
                           "the margin, so it was timed until decided or " +
                           std::to_string((moreTimings + 1) *
                                          options.run.rounds) +
                           " runs a side";
    attempts[tag.str()] = std::move(*attempt);
    return trial;
  };
  // Only options that can save enough of the model's time are tried in it
  // (keepPromisingOptions), and the small dispatches' winners when together
  // they can save enough (smallWinnersTogether). With a profile of the
  // model, in rounds, every dispatch's next option in one build, by their
  // time in the model; without one, each alone, timed on the whole model,
  // until one helps (the small ones' winners then ride along untried).
  // Chosen ones whose saving is too small to show in the model's time ride
  // along, never tried alone (decideWinners).
  auto choose = [&](std::vector<DispatchOptions> &all,
                    const BaselineProfile &profiled,
                    std::vector<std::string> &small)
      -> Expected<InModelChoice> {
    json::Array unpromising = keepPromisingOptions(
        all, modelTimeShares(dispatches, profiled.times), options.margin);
    std::vector<Winner> joined =
        smallWinnersTogether(unpromising, *linked, options.margin);
    // With a profile of the model they are profiled in it beside the
    // others and judged by their own time there: untried, one that runs
    // slower in the model than alone cancels the others' gain unseen.
    bool byProfile = profiled.note.empty();
    if (byProfile) {
      for (const Winner &w : joined)
        all.push_back(DispatchOptions{w.dispatch, {w}});
      joined.clear();
    }
    auto profileRound = [&](ArrayRef<Winner> some,
                            StringRef tag) -> Expected<ProfiledBuild> {
      return profileWinners(options, *runner, some, tag, isLinked(some),
                            *baseline, reach ? &*reach : nullptr, dispatches);
    };
    Expected<InModelChoice> choice =
        byProfile
            ? chooseInModelByProfile(
                  all, inModelTimes(dispatches, profiled.times, kProfiledRuns),
                  profileRound, measure)
            : chooseInModel(all, measure);
    if (!choice)
      return choice.takeError();
    if (byProfile) {
      small = tooSmallAlone(choice->savedUs, profiled.times, kProfiledRuns,
                            options.margin);
      savedInModel = choice->savedUs;
    }
    for (const Winner &w : joined)
      small.push_back(w.dispatch);
    choice->chosen.insert(choice->chosen.end(), joined.begin(), joined.end());
    for (json::Value &entry : unpromising)
      choice->dropped.push_back(std::move(entry));
    return choice;
  };
  // What the model sees decides: each dispatch's best few candidates in
  // the model, then the pruning rule on the ones chosen.
  std::vector<Winner> all = *linked;
  json::Array inModelTrials, inModelDropped;
  if (options.inModel > 0 && !spent) {
    Expected<std::vector<DispatchOptions>> dispatchOptions =
        readInModelOptions(options.selections, options.inModel);
    if (!dispatchOptions)
      return dispatchOptions.takeError();
    Expected<InModelChoice> choice =
        choose(*dispatchOptions, baselineProfile, riders);
    if (!choice)
      return choice.takeError();
    all = std::move(choice->chosen);
    inModelTrials = std::move(choice->trials);
    inModelDropped = std::move(choice->dropped);
  }
  std::vector<std::string> judgedInModel;
  for (const auto &saved : savedInModel)
    judgedInModel.push_back(saved.getKey().str());
  Expected<WinnerDecision> decision =
      decideWinners(all, measure, riders, judgedInModel);
  if (!decision)
    return decision.takeError();
  // Candidates the model dropped one by one are not "no winner".
  if (all.empty() && !inModelDropped.empty())
    decision->text =
        formatv("the candidates of {0} dispatch(es) did not help in the "
                "model, or could not (winners_dropped says why); the spec is "
                "empty",
                inModelDropped.size())
            .str();
  for (json::Value &entry : inModelDropped)
    decision->dropped.push_back(std::move(entry));
  const Attempt &behind = attempts[decision->finalTag];
  bool tuned = !decision->kept.empty();
  // Nothing kept: the empty spec, which leaves the model as compiled.
  if (Error err = writeTuningSpec(
          options.finalSpec, tuned ? behind.specText : emitTuningSpec({}),
          IreeIrLibrary::forTool(options.run.iree.compile)))
    return err;
  // The module users get (flags and spec), under one name whatever the
  // decision: the baseline's when nothing is kept.
  if (Error err = copyShippedModule(options.run,
                                    tuned ? decision->finalTag : "baseline"))
    return err;
  Expected<json::Array> executables = writeFinalExecutables(
      executablesDirFor(options.finalSpec),
      tuned ? ArrayRef<DeliveredExecutable>(behind.executables)
            : ArrayRef<DeliveredExecutable>());
  if (!executables)
    return executables.takeError();
  // Nothing kept ships the baseline: the record times it by the baseline's
  // runs beside every trial, even when the last trial failed (a spec that
  // did not compile in the model); that failure stays in its message.
  std::optional<Attempt> shipped =
      tuned ? std::nullopt : modelAsCompiled(attempts);
  ModelRecord r =
      modelRecord(options, *runner, *decision, shipped ? *shipped : behind);
  const BenchOutcome &lastFailed = behind.timed.baseline.status != Status::Ok
                                       ? behind.timed.baseline
                                       : behind.timed.tuned;
  if (shipped && lastFailed.status != Status::Ok)
    r.message = formatv("the last trial ({0}) failed: {1}: {2}",
                        decision->finalTag, toString(lastFailed.status),
                        lastFailed.message)
                    .str();
  r.inModelTrials = std::move(inModelTrials);
  r.executables = std::move(*executables);
  r.specReach = std::move(specReachNote);
  if (!riders.empty())
    r.decision +=
        formatv(baselineProfile.note.empty()
                    ? "; {0} winner(s) whose saving in the model's profile is "
                      "too small to show alone went with the others, never "
                      "timed alone"
                    : "; {0} winner(s) on dispatches too small to show alone "
                      "in the model joined the others untried",
                riders.size())
            .str();
  if (spent) {
    r.decision += "; the run's time budget was spent before this step, so "
                  "only all winners together were tried (the next ninja tune "
                  "tries each candidate in the model)";
    r.budgetLimited = true;
    if (Error err = noteSkipped(options.outputPath))
      return err;
  }
  recordProfiles(*runner, baselineProfile, dispatches,
                 tuned && !spent ? StringRef(decision->finalTag) : StringRef(),
                 r);
  r.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  r.startedAt = startedAt;
  return writeJsonFile(options.outputPath, toJson(r));
}

} // namespace retune::iree
