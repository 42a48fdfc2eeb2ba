//===- ReportStage.cpp - The report of a build: summary, page, table -----===//
//
// Reads the records of a build directory by following the indexes
// (dispatches -> candidates -> artifacts/results -> best -> model) into a
// RunReport, and writes report/summary.json, report/index.html, a copy of
// the summary in report/history/ and a table on stdout.
//
//===----------------------------------------------------------------------===//
#include "stages/report/ReportStage.h"

#include "stages/core/Records.h"
#include "stages/report/History.h"
#include "stages/report/HtmlReport.h"
#include "stages/report/NinjaLog.h"
#include "stages/support/FileUtil.h"
#include "stages/support/HashedFile.h"
#include "stages/support/StageClock.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <optional>

using namespace llvm;
using namespace retune;
using namespace retune::report;

namespace retune::report {
namespace {

/// The options of the report being written (one per process).
ReportOptions options;

std::string at(const Twine &relative) {
  return (Twine(options.buildDir) + "/" + relative).str();
}

/// The steps of each stage, in the order of the pipeline.
struct Stages {
  StageTiming candidates{"candidates"}, compile{"compile"}, bench{"bench"},
      model{"model"};
};

/// Adds one step to `stage`: busy/wall time (StageClock) and the timeline.
void addStep(StageTiming &stage, StageClock &clock, double startedAt,
             double seconds, bool cached, std::string label) {
  clock.add(startedAt, seconds);
  ++stage.stepCount;
  stage.cachedCount += cached;
  if (startedAt > 0)
    stage.steps.push_back(
        {startedAt, startedAt + seconds, std::move(label), cached});
}

struct Clocks {
  StageClock candidates, compile, bench, model;
};

/// The steps before the per-dispatch search, as long as Ninja timed their
/// edges' latest runs (NinjaLog.h); those the build has not run are left
/// out.
std::vector<StageTiming> ninjaTimedStages() {
  Expected<std::string> log = readFile(at(".ninja_log"));
  if (!log) {
    consumeError(log.takeError());
    return {};
  }
  StringMap<double> seconds = edgeSeconds(*log);
  std::vector<StageTiming> stages;
  for (auto [name, output] : {std::pair<StringRef, StringRef>{"import", "import/model.mlir"},
                              {"flags", "flags/chosen.json"},
                              {"dump", "dispatches/index.json"}}) {
    auto it = seconds.find(output);
    if (it == seconds.end())
      continue;
    StageTiming stage{name.str()};
    stage.wall = stage.busy = it->second;
    stage.stepCount = 1;
    stage.timedByNinja = true;
    stages.push_back(std::move(stage));
  }
  return stages;
}

/// "key=value, ..." with keys sorted (json::Object has no order).
std::string configText(const json::Object &config) {
  std::vector<std::string> keys;
  for (const auto &entry : config)
    keys.push_back(entry.first.str());
  llvm::sort(keys);
  std::string text;
  for (const std::string &key : keys) {
    const json::Value &value = *config.get(key);
    std::string shown = value.getAsString() ? value.getAsString()->str()
                                            : formatv("{0}", value).str();
    text += (text.empty() ? "" : ", ") + key + "=" + shown;
  }
  return text;
}

/// The model step's verdict per dispatch id, from model/result.json.
struct ModelVerdicts {
  std::vector<std::string> kept;
  std::map<std::string, std::string> dropped;
  /// The kept winners delivered as configured executables (iree): the
  /// executable's name by dispatch id.
  std::map<std::string, std::string> executables;
};

ModelVerdicts verdictsOf(const json::Object &model) {
  ModelVerdicts verdicts;
  if (const json::Array *kept = model.getArray("winners_kept"))
    for (const json::Value &id : *kept)
      verdicts.kept.push_back(id.getAsString().value_or("").str());
  if (const json::Array *dropped = model.getArray("winners_dropped"))
    for (const json::Value &entry : *dropped)
      if (const json::Object *d = entry.getAsObject())
        verdicts.dropped[d->getString("dispatch").value_or("").str()] =
            d->getString("reason").value_or("").str();
  if (const json::Array *executables = model.getArray("executables"))
    for (const json::Value &entry : *executables)
      if (const json::Object *e = entry.getAsObject())
        verdicts.executables[e->getString("dispatch").value_or("").str()] =
            e->getString("executable").value_or("").str();
  return verdicts;
}

/// Reads one candidate's compile and bench records into a row; a measured
/// candidate's baseline samples go to `baselines`.
Expected<CandidateRow> readCandidate(const DispatchEntry &d,
                                     const CandidateEntry &c, Stages &stages,
                                     Clocks &clocks,
                                     std::vector<double> &baselines) {
  std::string stem = d.id + "/" + std::to_string(c.index) + ".json";
  Expected<CompileRecord> compiled = readRecord<CompileRecord>(
      at("artifacts/" + stem), schema::kCompile, compileRecordFromJson);
  if (!compiled)
    return compiled.takeError();
  std::string label = d.name + " #" + std::to_string(c.index);
  addStep(stages.compile, clocks.compile, compiled->startedAt,
          compiled->seconds, compiled->cached, label);
  Expected<BenchRecord> bench = readRecord<BenchRecord>(
      at("results/" + stem), schema::kBench, benchRecordFromJson);
  if (!bench)
    return bench.takeError();
  addStep(stages.bench, clocks.bench, bench->startedAt, bench->seconds,
          bench->cached, label);
  if (bench->status == Status::Ok)
    baselines.insert(baselines.end(), bench->baselineSamples.begin(),
                     bench->baselineSamples.end());
  CandidateRow row;
  row.index = c.index;
  row.config = configText(c.config);
  row.cost = c.cost;
  row.status = bench->status;
  row.message = !bench->message.empty() ? bench->message : compiled->message;
  row.ratio = bench->ratio;
  row.noise = bench->noise;
  row.median = bench->median;
  row.baselineMedian = bench->baselineMedian;
  row.compileCached = compiled->cached;
  row.benchCached = bench->cached;
  return row;
}

/// Baseline and best time of a dispatch: the winner's own interleaved
/// measurement, or without one the median baseline over all measurements.
void setTimes(DispatchReport &r, const std::vector<double> &baselines) {
  auto winner = llvm::find_if(r.candidates, [&](const CandidateRow &c) {
    return r.winner && c.index == *r.winner;
  });
  if (winner != r.candidates.end()) {
    r.baseline = winner->baselineMedian;
    r.best = winner->median;
    r.speedup =
        winner->median > 0 ? winner->baselineMedian / winner->median : 1;
    return;
  }
  // A winner without a measured row is impossible unless records were
  // edited; it is then reported as no winner.
  r.winner.reset();
  if (baselines.empty())
    return;
  std::vector<double> sorted = baselines;
  llvm::sort(sorted);
  r.baseline = r.best = sorted[sorted.size() / 2];
}

Expected<DispatchReport> readDispatch(const DispatchEntry &d,
                                      const ModelVerdicts &verdicts,
                                      Stages &stages, Clocks &clocks) {
  DispatchReport r;
  r.id = d.id;
  r.name = d.name;
  r.share = d.share;
  r.peakFraction = d.peakFraction;
  r.peakFlopsPerSecond = d.peakFlopsPerSecond;
  r.gainShare = d.gainShare;
  r.flops = d.flops;
  r.occurrences = d.occurrences;
  Expected<CandidateIndex> candidates =
      readRecord<CandidateIndex>(at("candidates/" + d.id + "/index.json"),
                                 schema::kCandidates, candidateIndexFromJson);
  if (!candidates)
    return candidates.takeError();
  addStep(stages.candidates, clocks.candidates, candidates->startedAt,
          candidates->enumerationSeconds, false, d.name);
  r.solutions = candidates->totalSolutions;
  r.note = candidates->note;
  r.reverify = candidates->reverify;
  r.reverifyWhy = candidates->reverifyWhy;
  // The baseline's compile is part of the compile stage too.
  if (Expected<CompileRecord> baseline =
          readRecord<CompileRecord>(at("artifacts/" + d.id + "/baseline.json"),
                                    schema::kCompile, compileRecordFromJson))
    addStep(stages.compile, clocks.compile, baseline->startedAt,
            baseline->seconds, baseline->cached, d.name + " baseline");
  else
    consumeError(baseline.takeError()); // not every backend has one there
  std::vector<double> baselines;
  for (const CandidateEntry &c : candidates->candidates) {
    Expected<CandidateRow> row = readCandidate(d, c, stages, clocks, baselines);
    if (!row)
      return row.takeError();
    r.candidates.push_back(std::move(*row));
  }
  Expected<json::Value> best =
      readJsonFile(at("best/" + d.id + ".json"), schema::kSelect);
  if (!best)
    return best.takeError();
  const json::Object *selection = best->getAsObject();
  if (std::optional<int64_t> winner = selection->getInteger("winner"))
    r.winner = *winner;
  r.reason = selection->getString("reason").value_or("").str();
  r.requiredMargin = selection->getNumber("required_margin").value_or(0);
  setTimes(r, baselines);
  if (r.winner) {
    if (llvm::is_contained(verdicts.kept, d.id)) {
      r.verdict = ModelVerdict::Kept;
      auto executable = verdicts.executables.find(d.id);
      r.appliedInModel = executable == verdicts.executables.end()
                             ? "by the spec"
                             : "as configured executable " + executable->second;
    } else if (auto dropped = verdicts.dropped.find(d.id);
             dropped != verdicts.dropped.end()) {
      r.verdict = ModelVerdict::Dropped;
      r.droppedReason = dropped->second;
    }
  }
  return r;
}

/// summary.json's entry of one dispatch.
json::Object dispatchJson(const DispatchReport &r) {
  std::map<std::string, unsigned> byStatus;
  unsigned ok = 0;
  for (const CandidateRow &c : r.candidates) {
    ++byStatus[toString(c.status).str()];
    ok += c.status == Status::Ok;
  }
  json::Object counts;
  for (const auto &[status, n] : byStatus)
    counts[status] = n;
  json::Object entry{
      {"id", r.id},
      {"name", r.name},
      {"share", r.share},
      {"occurrences", r.occurrences},
      {"flops", r.flops},
      {"solutions", static_cast<int64_t>(r.solutions)},
      {"candidates", r.candidates.size()},
      {"candidates_ok", ok},
      {"candidates_failed", r.candidates.size() - ok},
      {"by_status", std::move(counts)},
      {"baseline_s", r.baseline},
      {"best_s", r.best},
      {"speedup", r.speedup},
      {"winner", r.winner ? json::Value(*r.winner) : json::Value(nullptr)},
      {"reason", r.reason},
      {"model_step", toString(r.verdict)},
      {"note", r.note}};
  if (!r.spaceWarning.empty())
    entry["space_warning"] = r.spaceWarning;
  if (r.inModel)
    entry["in_model_s"] = *r.inModel;
  if (r.peakFraction > 0)
    entry["peak_fraction"] = r.peakFraction;
  if (r.gainShare >= 0)
    entry["gain_share"] = r.gainShare;
  if (!r.appliedInModel.empty())
    entry["applied_in_model"] = r.appliedInModel;
  if (!r.reverify.empty())
    entry["after_compiler_change"] =
        json::Object{{"previous_winner", r.reverify}, {"why", r.reverifyWhy}};
  return entry;
}

ModelReport modelReportOf(const json::Object &m) {
  auto samples = [&](StringRef key) {
    std::vector<double> values;
    if (const json::Array *list = m.getArray(key))
      for (const json::Value &v : *list)
        values.push_back(v.getAsNumber().value_or(0));
    return values;
  };
  ModelReport r;
  r.status = m.getString("status").value_or("").str();
  r.message = m.getString("message").value_or("").str();
  r.decision = m.getString("decision").value_or("").str();
  r.baseline = m.getNumber("baseline_median_s").value_or(0);
  r.tuned = m.getNumber("tuned_median_s").value_or(0);
  r.speedup = m.getNumber("speedup").value_or(0);
  r.noise = m.getNumber("noise").value_or(0);
  r.baselineSamples = samples("baseline_samples_s");
  // mlir-cpu calls the tuned samples "measured", iree "tuned".
  r.tunedSamples = samples("measured_samples_s");
  if (r.tunedSamples.empty())
    r.tunedSamples = samples("tuned_samples_s");
  r.startedAt = m.getNumber("started_at").value_or(0);
  r.seconds = m.getNumber("seconds").value_or(0);
  r.profileNote = m.getString("profile_note").value_or("").str();
  if (const json::Array *profile = m.getArray("in_model_profile"))
    for (const json::Value &v : *profile) {
      const json::Object *o = v.getAsObject();
      if (!o)
        continue;
      InModelTime t;
      t.function = o->getString("function").value_or("").str();
      t.dispatch = o->getString("dispatch").value_or("").str();
      t.callsPerRun = o->getNumber("calls_per_run").value_or(0);
      t.baselineUs = o->getNumber("baseline_us").value_or(0);
      t.tunedUs = o->getNumber("tuned_us");
      r.inModel.push_back(std::move(t));
    }
  return r;
}

/// Each listed dispatch's mean time per call inside the model.
void joinInModelTimes(const ModelReport &model, DispatchReport &r) {
  for (const InModelTime &t : model.inModel)
    if (t.dispatch == r.id && t.baselineUs > 0)
      r.inModel = t.baselineUs * 1e-6;
}

/// The selection margin select used: --margin, else build.ninja's `margin`
/// variable (the planner writes it from [select] margin), else select's
/// default.
double configuredMargin() {
  if (options.margin >= 0)
    return options.margin;
  Expected<std::string> ninja = readFile(at("build.ninja"));
  if (!ninja) {
    consumeError(ninja.takeError());
    return 0.02;
  }
  SmallVector<StringRef> lines;
  StringRef(*ninja).split(lines, '\n');
  for (StringRef line : lines) {
    double margin = 0;
    if (line.consume_front("margin = ") && !line.trim().getAsDouble(margin))
      return margin;
  }
  return 0.02;
}

const StageTiming &stageNamed(const RunReport &run, StringRef name) {
  return *llvm::find_if(run.stages,
                        [&](const StageTiming &s) { return s.name == name; });
}

json::Object cacheJson(const StageTiming &stage) {
  return json::Object{{"hits", stage.cachedCount}, {"steps", stage.stepCount}};
}

json::Object summaryJson(const RunReport &run, json::Array dispatches,
                         const json::Object &model) {
  json::Array dropped;
  if (const json::Array *list = model.getArray("winners_dropped"))
    dropped = *list;
  json::Array kept;
  if (const json::Array *list = model.getArray("winners_kept"))
    kept = *list;
  const ModelReport &m = run.modelResult;
  json::Object modelSummary{{"baseline_s", m.headlineBaseline()},
                            {"tuned_s", m.tuned},
                            {"speedup", m.headlineSpeedup()},
                            {"decision", m.decision},
                            {"winners_kept", std::move(kept)},
                            {"winners_dropped", std::move(dropped)}};
  if (m.flagsSpeedup) {
    // The headline's two shares: the flags over the compiler's defaults,
    // the spec over the flags build (the model step's own baseline).
    modelSummary["flags_speedup"] = *m.flagsSpeedup;
    modelSummary["spec_speedup"] = m.speedup;
    modelSummary["spec_baseline_s"] = m.baseline;
  }
  if (!run.noWinnerWhy.empty())
    modelSummary["why_no_winner"] = run.noWinnerWhy;
  if (const json::Array *profile = model.getArray("in_model_profile"))
    modelSummary["in_model_profile"] = json::Array(*profile);
  if (!m.profileNote.empty())
    modelSummary["profile_note"] = m.profileNote;
  json::Object stageSeconds, busySeconds, cache;
  for (const StageTiming &stage : run.stages) {
    stageSeconds[stage.name] = stage.wall;
    busySeconds[stage.name] = stage.busy;
  }
  cache["compile"] = cacheJson(stageNamed(run, "compile"));
  cache["bench"] = cacheJson(stageNamed(run, "bench"));
  if (std::optional<RoomForSpec> room = roomForSpec(run.dispatches))
    modelSummary["room_for_spec"] =
        json::Object{{"gain_share", room->gainShare},
                     {"at_peak_share", room->atPeakShare},
                     {"ceiling", room->ceiling()}};
  return json::Object{{"schema", schema::kSummary},
                      {"backend", run.backend},
                      {"model_file", run.model},
                      {"started_at", m.startedAt},
                      {"margin", run.margin},
                      {"dispatches", std::move(dispatches)},
                      {"model", std::move(modelSummary)},
                      {"stage_seconds", std::move(stageSeconds)},
                      {"stage_busy_seconds", std::move(busySeconds)},
                      {"cache", std::move(cache)}};
}

/// The model's slowest dispatch functions in the model (IREE's profiler),
/// and for a tuned one how the dispatch benchmark's time compares.
void printWhereTheTimeGoes(const RunReport &run) {
  const ModelReport &m = run.modelResult;
  if (m.inModel.empty())
    return;
  double total = 0;
  for (const InModelTime &t : m.inModel)
    total += t.baselineUs * t.callsPerRun;
  if (!(total > 0))
    return;
  constexpr size_t kShown = 5;
  fmt::print("where the model's time goes (IREE's profiler, the build "
             "without the spec; {:.3f} ms of dispatches per run):\n",
             total * 1e-3);
  for (const InModelTime &t : ArrayRef(m.inModel).take_front(kShown)) {
    double perRun = t.baselineUs * t.callsPerRun;
    std::string bench;
    for (const DispatchReport &r : run.dispatches) {
      if (r.id != t.dispatch)
        continue;
      if (r.baseline > 0)
        bench = fmt::format("; alone in the dispatch benchmark {:.1f} us "
                            "({:.2f}x its time in the model)",
                            1e6 * r.baseline, 1e6 * r.baseline / t.baselineUs);
      // Why a hot matmul keeps IREE's config: nothing is left to gain.
      if (double fraction = peakFractionAt(r, t.baselineUs); fraction > 0)
        bench += fmt::format("; {:.0f}% of this CPU's peak FLOP rate",
                             100 * fraction);
    }
    std::string tuned =
        t.tunedUs ? fmt::format(", with the spec {:.1f} us", *t.tunedUs) : "";
    fmt::print("  {:>5.1f}%  {:>9.3f} ms  {} x {:g} calls of {:.1f} us{}{}\n",
               100 * perRun / total, perRun * 1e-3, t.function, t.callsPerRun,
               t.baselineUs, tuned,
               t.dispatch.empty() ? std::string(" (not tuned)") : bench);
  }
}

/// The spec's ceiling on this model, where the dump's profile gives it:
/// why a spec adds little where the time runs at the CPU's peak.
void printRoomForSpec(const RunReport &run) {
  std::optional<RoomForSpec> room = roomForSpec(run.dispatches);
  if (!room)
    return;
  fmt::print("room for a spec: {:.1f}% of the model's dispatch time is above "
             "what its FLOPs take at this CPU's peak rate, and {:.1f}% runs "
             "at 90% of that rate or more: no spec makes the model more than "
             "{:.2f}x faster\n",
             100 * room->gainShare, 100 * room->atPeakShare, room->ceiling());
}

unsigned countStatus(const DispatchReport &r, Status status) {
  return llvm::count_if(r.candidates,
                        [&](const CandidateRow &c) { return c.status == status; });
}

void printTable(const RunReport &run) {
  // A column for the steps a time budget skipped, only when there are any.
  bool anySkipped = llvm::any_of(run.dispatches, [](const DispatchReport &r) {
    return countStatus(r, Status::Skipped) > 0;
  });
  fmt::print("\nretune: tuning summary\n");
  fmt::print("{:<44} {:>6} {:>11} {:>11} {:>8} {:>6} {:>7}{}\n", "dispatch", "share",
             "baseline", "tuned", "speedup", "ok", "failed", anySkipped ? "  skipped" : "");
  for (const DispatchReport &r : run.dispatches) {
    unsigned ok = countStatus(r, Status::Ok), skipped = countStatus(r, Status::Skipped);
    fmt::print("{:<44} {:>5.1f}% {:>9.3f}ms {:>9.3f}ms {:>7.2f}x {:>6} {:>7}{}\n", r.name,
               100 * r.share, 1e3 * r.baseline, 1e3 * r.best, r.speedup, ok,
               r.candidates.size() - ok - skipped,
               anySkipped ? fmt::format(" {:>8}", skipped) : std::string());
  }
  const ModelReport &m = run.modelResult;
  // A time the model step did not measure (its last attempt's spec did not
  // apply, or failed) is "-", never 0.
  auto millis = [](double seconds) {
    return seconds > 0 ? fmt::format("{:>9.3f}ms", 1e3 * seconds)
                       : fmt::format("{:>11}", "-");
  };
  // The end-to-end row's times share one basis: the defaults' time the
  // flag search measured over the end-to-end speedup (each of its factors
  // measured interleaved). The model step's own times, taken minutes later
  // and perhaps under other load, stay on the spec's row: mixing the two
  // printed "11.065ms -> 14.677ms, 1.10x" on a busy machine.
  double shipped =
      m.flagsSpeedup && m.headlineSpeedup() > 0
          ? m.headlineBaseline() / m.headlineSpeedup()
          : m.tuned > 0 ? m.tuned
          : m.headlineSpeedup() > 0 ? m.headlineBaseline() / m.headlineSpeedup()
                                    : 0;
  // The headline row: the compiler's defaults -> what Retune ships.
  if (m.flagsSpeedup)
    fmt::print("{:<44} {:>6} {} {} {:>7.2f}x\n",
               "  the spec, over the chosen flags' build", "",
               millis(m.baseline), millis(m.tuned), m.speedup);
  fmt::print("{:<44} {:>6} {} {} {:>7.2f}x{}\n",
             "model (end to end)", "", millis(m.headlineBaseline()),
             millis(shipped), m.headlineSpeedup(),
             m.flagsSpeedup
                 ? fmt::format("   compiler defaults -> Retune: flags "
                               "{:.2f}x, spec {:.2f}x",
                               *m.flagsSpeedup, m.speedup)
                 : std::string());
  fmt::print("{}\n", m.decision);
  if (!run.noWinnerWhy.empty())
    fmt::print("why: {}\n", run.noWinnerWhy);
  for (const DispatchReport &r : run.dispatches)
    if (!r.spaceWarning.empty())
      fmt::print("warning: {}: {}\n", r.name, r.spaceWarning);
  for (const DispatchReport &r : run.dispatches)
    if (!r.reverify.empty())
      fmt::print("after the compiler change, {}: previous winner {}: {}\n",
                 r.name, r.reverify, r.reverifyWhy);
  printWhereTheTimeGoes(run);
  printRoomForSpec(run);
  const StageTiming &compile = stageNamed(run, "compile");
  const StageTiming &bench = stageNamed(run, "bench");
  std::vector<std::string> stageTimes;
  for (const StageTiming &stage : run.stages)
    stageTimes.push_back(
        stage.busy > stage.wall + 0.005
            ? fmt::format("{} {:.2f} (busy {:.2f})", stage.name, stage.wall, stage.busy)
            : fmt::format("{} {:.2f}", stage.name, stage.wall));
  fmt::print("stage wall seconds: {}\n", fmt::join(stageTimes, ", "));
  fmt::print("cache hits: compile {}/{}, bench {}/{}\n", compile.cachedCount,
             compile.stepCount, bench.cachedCount, bench.stepCount);
}

/// The iree backend's model-level flag choice (flags/chosen.json): which
/// flags every later step used and why, and how fast the model ran with the
/// compiler's default flags and with the chosen ones.
struct FlagChoiceSummary {
  json::Object summary;
  double defaultMedian = 0, speedup = 1;
};

std::optional<FlagChoiceSummary> readFlagChoice() {
  std::string path = at("flags/chosen.json");
  if (!sys::fs::exists(path))
    return std::nullopt;
  Expected<json::Value> record = readJsonFile(path, "retune.flags/1");
  if (!record) {
    errs() << "retune-report: warning: " << toString(record.takeError())
           << "\n";
    return std::nullopt;
  }
  const json::Object &choice = *record->getAsObject();
  FlagChoiceSummary result;
  json::Array chosen;
  if (const json::Array *list = choice.getArray("chosen"))
    chosen = *list;
  result.defaultMedian = choice.getNumber("default_median_s").value_or(0);
  // The model the chosen set builds from: the flag search's rewrite of it
  // (ModelRewrite.h), or "" for the model as given.
  StringRef input = choice.getString("input").value_or("");
  // The chosen set's ratio to the default flags, measured interleaved.
  if (const json::Array *sets = choice.getArray("sets"))
    for (const json::Value &set : *sets) {
      const json::Object *o = set.getAsObject();
      const json::Array *flags = o ? o->getArray("flags") : nullptr;
      double ratio = o ? o->getNumber("ratio").value_or(0) : 0;
      bool isChosen = (!chosen.empty() || !input.empty()) && flags &&
                      *flags == chosen &&
                      o->getString("input").value_or("") == input;
      if (isChosen && ratio > 0)
        result.speedup = 1 / ratio;
    }
  std::string reason = choice.getString("reason").value_or("").str();
  const json::Array *rewritten = choice.getArray("rewritten");
  if (!input.empty() && rewritten)
    reason += formatv("; the model it builds from is {0}, the model with {1} "
                      "rewrite(s) (flags/chosen.json's `rewritten`: strided "
                      "ConvTransposes as stride phases, patch convolutions "
                      "as Gemms, depthwise convolutions as shifted "
                      "multiply-adds, 3x3 convolutions' biases added after "
                      "them, Gemms sharing weights batched); compile it in "
                      "place of the model as given",
                      input, rewritten->size())
                  .str();
  result.summary =
      json::Object{{"chosen", std::move(chosen)}, {"reason", reason}};
  if (!input.empty()) {
    result.summary["model"] = input.str();
    if (rewritten)
      result.summary["rewritten"] = json::Array(*rewritten);
  }
  return result;
}

Error writeRun() {
  Expected<DispatchIndex> index = readRecord<DispatchIndex>(
      at("dispatches/index.json"), schema::kDispatches, dispatchIndexFromJson);
  if (!index)
    return index.takeError();
  Expected<json::Value> model =
      readJsonFile(at("model/result.json"), schema::kModel);
  if (!model)
    return model.takeError();
  const json::Object &modelObject = *model->getAsObject();
  ModelVerdicts verdicts = verdictsOf(modelObject);

  RunReport run;
  run.model = index->model;
  run.backend = options.backend;
  run.margin = configuredMargin();
  run.modelResult = modelReportOf(modelObject);
  Stages stages;
  Clocks clocks;
  json::Array dispatches;
  for (const DispatchEntry &d : index->dispatches) {
    Expected<DispatchReport> r = readDispatch(d, verdicts, stages, clocks);
    if (!r)
      return r.takeError();
    r->spaceWarning = wrongSpaceWarning(*r);
    joinInModelTimes(run.modelResult, *r);
    dispatches.push_back(dispatchJson(*r));
    run.dispatches.push_back(std::move(*r));
  }
  addStep(stages.model, clocks.model, run.modelResult.startedAt,
          run.modelResult.seconds, false, "model: baseline, tuned, pruning");
  run.stages = ninjaTimedStages();
  for (auto [stage, clock] : {std::pair{&stages.candidates, &clocks.candidates},
                              {&stages.compile, &clocks.compile},
                              {&stages.bench, &clocks.bench},
                              {&stages.model, &clocks.model}}) {
    stage->wall = clock->wallSeconds();
    stage->busy = clock->busySeconds();
    run.stages.push_back(std::move(*stage));
  }

  std::optional<FlagChoiceSummary> flags = readFlagChoice();
  if (flags && flags->defaultMedian > 0) {
    run.modelResult.defaultFlagsTime = flags->defaultMedian;
    run.modelResult.flagsSpeedup = flags->speedup;
  }
  run.noWinnerWhy = explainNoWinner(run);
  json::Object summary = summaryJson(run, std::move(dispatches), modelObject);
  std::string flagsLine;
  if (flags) {
    flagsLine = "compile flags: " +
                flags->summary.getString("reason").value_or("").str();
    summary["compile_flags"] = std::move(flags->summary);
  }
  std::string reportDir = sys::path::parent_path(at(options.outputPath)).str();
  std::string historyDir = reportDir + "/history";
  json::Value summaryValue(std::move(summary));
  if (options.historyKeep > 0)
    if (Error err =
            keepInHistory(historyDir, summaryValue, options.historyKeep))
      return err;
  run.history = loadHistory(historyDir);
  if (Error err = writeHashedJsonFile(at(options.outputPath), summaryValue))
    return err;
  if (Error err =
          writeHashedFile(reportDir + "/index.html", renderHtml(run)))
    return err;
  printTable(run);
  if (!flagsLine.empty())
    fmt::print("{}\n", flagsLine);
  return Error::success();
}

} // namespace

Error writeReport(const ReportOptions &reportOptions) {
  options = reportOptions;
  return writeRun();
}

/// The dispatch's measured candidate that ran fastest against the
/// default, if any was measured.
static const CandidateRow *bestMeasured(const DispatchReport &dispatch) {
  const CandidateRow *best = nullptr;
  for (const CandidateRow &c : dispatch.candidates)
    if (c.status == Status::Ok && (!best || c.ratio < best->ratio))
      best = &c;
  return best;
}

std::string wrongSpaceWarning(const DispatchReport &dispatch) {
  const CandidateRow *best = bestMeasured(dispatch);
  if (!best || best->ratio <= kWrongSpaceRatio)
    return {};
  return formatv("the search space is wrong for this dispatch: its best "
                 "candidate (#{0}) took {1:f1}x the default config's time "
                 "(over {2:f0}x: a defect of the space, not a tuning result)",
                 best->index, best->ratio, kWrongSpaceRatio)
      .str();
}

std::optional<RoomForSpec>
roomForSpec(const std::vector<DispatchReport> &dispatches) {
  constexpr double kAtPeak = 0.9;
  std::optional<RoomForSpec> room;
  for (const DispatchReport &d : dispatches) {
    if (d.gainShare < 0)
      continue;
    if (!room)
      room.emplace();
    room->gainShare += d.gainShare;
    if (d.peakFraction >= kAtPeak)
      room->atPeakShare += d.share;
  }
  return room;
}

double peakFractionAt(const DispatchReport &r, double callUs) {
  if (!(r.peakFlopsPerSecond > 0) || !(callUs > 0) || !(r.peakFraction > 0))
    return r.peakFraction;
  return std::min(1.0, r.flops / (callUs * 1e-6) / r.peakFlopsPerSecond);
}

std::string explainNoWinner(const RunReport &run) {
  if (run.dispatches.empty())
    return "the model has no dispatch to tune";
  unsigned measured = 0, failed = 0, notApplied = 0, skipped = 0;
  const DispatchReport *bestDispatch = nullptr;
  const CandidateRow *best = nullptr;
  for (const DispatchReport &d : run.dispatches) {
    if (d.winner)
      return {};
    for (const CandidateRow &c : d.candidates)
      ++(c.status == Status::Ok           ? measured
         : c.status == Status::NotApplied ? notApplied
         : c.status == Status::Skipped    ? skipped
                                          : failed);
    const CandidateRow *mine = bestMeasured(d);
    if (mine && (!best || mine->ratio < best->ratio)) {
      best = mine;
      bestDispatch = &d;
    }
  }
  SmallVector<std::string> others;
  if (notApplied)
    others.push_back(formatv("{0} did not change the code", notApplied));
  if (failed)
    others.push_back(formatv("{0} failed (see the report)", failed));
  if (skipped)
    others.push_back(formatv("{0} skipped: the run's time budget was spent (the next "
                             "`ninja tune` measures them)",
                             skipped));
  if (!best)
    return "no candidate could be measured" +
           (others.empty() ? "" : "; " + join(others, "; "));
  std::string besides = others.empty() ? "" : " (" + join(others, "; ") + ")";
  double needed = std::max(run.margin, bestDispatch->requiredMargin);
  if (best->ratio < 1 + needed)
    return formatv("the default configs already run within noise of the "
                   "best candidate: of {0} measured{1}, the best "
                   "({2} #{3}) took {4:f3}x the default's time, and a winner "
                   "needs less than {5:f3}x (margin and noise)",
                   measured, besides, bestDispatch->name, best->index,
                   best->ratio, 1 - needed)
        .str();
  return formatv("the default configs are faster than every candidate: of "
                 "{0} measured{1}, the closest ({2} #{3}) took {4:f3}x the "
                 "default's time",
                 measured, besides, bestDispatch->name, best->index,
                 best->ratio)
      .str();
}

} // namespace retune::report
