//===- ReportMain.cpp - retune-report: summary.json and the console table ===//
//
// Reads the records of a build directory by following the indexes
// (dispatches -> candidates -> artifacts/results -> best -> model) and writes
// report/summary.json plus a table on stdout.
//
//===----------------------------------------------------------------------===//
#include "stages/report/HtmlReport.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Records.h"
#include "stages/support/StageClock.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"

#include <fmt/format.h>
#include <map>

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-report options");
static cl::opt<std::string> buildDir("build-dir", cl::init("."),
                                     cl::desc("the tuning build directory"),
                                     cl::cat(category));
static cl::opt<std::string> outputPath("output", cl::init("report/summary.json"),
                                       cl::desc("summary to write"),
                                       cl::cat(category));
static cl::opt<std::string> backend("backend", cl::init("mlir-cpu"),
                                    cl::cat(category));

namespace {

std::string at(const Twine &relative) {
  return (Twine(buildDir.getValue()) + "/" + relative).str();
}

struct StageTimes {
  StageClock candidates, compile, bench, model;
};

struct DispatchSummary {
  json::Object object;
  std::string name;
  double share = 0, baseline = 0, best = 0, speedup = 1;
  std::string winner = "-";
  unsigned ok = 0, failed = 0;
  std::vector<report::CandidatePoint> points;
  std::string reason;
};

Expected<DispatchSummary> summarize(const DispatchEntry &d, StageTimes &times) {
  DispatchSummary s;
  s.name = d.name;
  s.share = d.share;
  Expected<CandidateIndex> candidates = readRecord<CandidateIndex>(
      at("candidates/" + d.id + "/index.json"), schema::kCandidates,
      candidateIndexFromJson);
  if (!candidates)
    return candidates.takeError();
  times.candidates.add(candidates->startedAt, candidates->enumerationSeconds);
  // The baseline's compile is part of the compile stage too.
  if (Expected<CompileRecord> baseline = readRecord<CompileRecord>(
          at("artifacts/" + d.id + "/baseline.json"), schema::kCompile,
          compileRecordFromJson))
    times.compile.add(baseline->startedAt, baseline->seconds);
  else
    consumeError(baseline.takeError()); // not every backend has one there
  std::map<std::string, unsigned> byStatus;
  std::vector<double> baselines;
  std::map<unsigned, BenchRecord> measured;
  for (const CandidateEntry &c : candidates->candidates) {
    std::string stem = d.id + "/" + std::to_string(c.index) + ".json";
    Expected<CompileRecord> compiled = readRecord<CompileRecord>(
        at("artifacts/" + stem), schema::kCompile, compileRecordFromJson);
    if (!compiled)
      return compiled.takeError();
    times.compile.add(compiled->startedAt, compiled->seconds);
    Expected<BenchRecord> bench = readRecord<BenchRecord>(
        at("results/" + stem), schema::kBench, benchRecordFromJson);
    if (!bench)
      return bench.takeError();
    times.bench.add(bench->startedAt, bench->seconds);
    ++byStatus[toString(bench->status).str()];
    if (bench->status == Status::Ok) {
      ++s.ok;
      baselines.insert(baselines.end(), bench->baselineSamples.begin(),
                       bench->baselineSamples.end());
    } else {
      ++s.failed;
    }
    s.points.push_back({c.index, bench->status, bench->ratio});
    measured[c.index] = std::move(*bench);
  }
  // Without a winner: the baseline over every measurement of the dispatch.
  if (!baselines.empty()) {
    std::sort(baselines.begin(), baselines.end());
    s.baseline = s.best = baselines[baselines.size() / 2];
  }
  Expected<json::Value> best =
      readJsonFile(at("best/" + d.id + ".json"), schema::kSelect);
  if (!best)
    return best.takeError();
  const json::Object *selection = best->getAsObject();
  std::optional<int64_t> winner = selection->getInteger("winner");
  if (winner && measured.count(*winner)) {
    // With one: the winner's own interleaved measurement, both sides.
    const BenchRecord &w = measured[*winner];
    s.winner = std::to_string(*winner);
    s.baseline = w.baselineMedian;
    s.best = w.median;
    s.speedup = w.median > 0 ? w.baselineMedian / w.median : 1;
  }
  s.reason = selection->getString("reason").value_or("").str();
  json::Object counts;
  for (const auto &[status, n] : byStatus)
    counts[status] = n;
  s.object = json::Object{
      {"id", d.id},
      {"name", d.name},
      {"share", d.share},
      {"occurrences", d.occurrences},
      {"flops", d.flops},
      {"solutions", static_cast<int64_t>(candidates->totalSolutions)},
      {"candidates", candidates->candidates.size()},
      {"candidates_ok", s.ok},
      {"candidates_failed", s.failed},
      {"by_status", std::move(counts)},
      {"baseline_s", s.baseline},
      {"best_s", s.best},
      {"speedup", s.speedup},
      {"winner", winner ? json::Value(*winner) : json::Value(nullptr)},
      {"reason", selection->getString("reason").value_or("").str()},
      {"note", candidates->note}};
  return s;
}

void printTable(const std::vector<DispatchSummary> &rows,
                const json::Object *model) {
  fmt::print("\nretune: tuning summary\n");
  fmt::print("{:<44} {:>6} {:>11} {:>11} {:>8} {:>6} {:>7}\n", "dispatch",
             "share", "baseline", "tuned", "speedup", "ok", "failed");
  for (const DispatchSummary &r : rows)
    fmt::print("{:<44} {:>5.1f}% {:>9.3f}ms {:>9.3f}ms {:>7.2f}x {:>6} {:>7}\n",
               r.name, 100 * r.share, 1e3 * r.baseline, 1e3 * r.best,
               r.speedup, r.ok, r.failed);
  if (!model)
    return;
  fmt::print("{:<44} {:>6} {:>9.3f}ms {:>9.3f}ms {:>7.2f}x\n", "model (end to end)",
             "", 1e3 * model->getNumber("baseline_median_s").value_or(0),
             1e3 * model->getNumber("tuned_median_s").value_or(0),
             model->getNumber("speedup").value_or(0));
  fmt::print("{}\n", model->getString("decision").value_or("").str());
}

Error writeHtml(const std::vector<DispatchSummary> &summaries,
                const json::Object &model, StringRef modelFile) {
  std::vector<report::DispatchRow> rows;
  for (const DispatchSummary &s : summaries) {
    report::DispatchRow row;
    row.id = s.object.getString("id").value_or("").str();
    row.name = s.name;
    row.winner = s.winner;
    row.reason = s.reason;
    row.share = s.share;
    row.baseline = s.baseline;
    row.best = s.best;
    row.speedup = s.speedup;
    row.ok = s.ok;
    row.failed = s.failed;
    row.points = s.points;
    rows.push_back(std::move(row));
  }
  report::ModelRow modelRow{model.getNumber("baseline_median_s").value_or(0),
                            model.getNumber("tuned_median_s").value_or(0),
                            model.getNumber("speedup").value_or(0),
                            model.getString("decision").value_or("").str()};
  return writeFileIfChanged(at("report/index.html"),
                            report::renderHtml(modelFile, rows, modelRow));
}

Error run() {
  Expected<DispatchIndex> index = readRecord<DispatchIndex>(
      at("dispatches/index.json"), schema::kDispatches, dispatchIndexFromJson);
  if (!index)
    return index.takeError();
  StageTimes times;
  std::vector<DispatchSummary> rows;
  json::Array dispatches;
  for (const DispatchEntry &d : index->dispatches) {
    Expected<DispatchSummary> s = summarize(d, times);
    if (!s)
      return s.takeError();
    dispatches.push_back(json::Object(s->object));
    rows.push_back(std::move(*s));
  }
  Expected<json::Value> model =
      readJsonFile(at("model/result.json"), schema::kModel);
  if (!model)
    return model.takeError();
  const json::Object *modelObject = model->getAsObject();
  times.model.add(modelObject->getNumber("started_at").value_or(0),
                 modelObject->getNumber("seconds").value_or(0));
  json::Array dropped;
  if (const json::Array *list = modelObject->getArray("winners_dropped"))
    dropped = *list;
  json::Object modelSummary;
  modelSummary["baseline_s"] =
      modelObject->getNumber("baseline_median_s").value_or(0);
  modelSummary["tuned_s"] = modelObject->getNumber("tuned_median_s").value_or(0);
  modelSummary["speedup"] = modelObject->getNumber("speedup").value_or(0);
  modelSummary["decision"] =
      modelObject->getString("decision").value_or("").str();
  modelSummary["winners_dropped"] = std::move(dropped);
  const std::pair<const char *, const StageClock *> stages[] = {
      {"candidates", &times.candidates},
      {"compile", &times.compile},
      {"bench", &times.bench},
      {"model", &times.model}};
  json::Object stageSeconds, busySeconds;
  for (auto [name, clock] : stages) {
    stageSeconds[name] = clock->wallSeconds();
    busySeconds[name] = clock->busySeconds();
  }
  json::Object summary;
  summary["schema"] = schema::kSummary;
  summary["backend"] = backend.getValue();
  summary["model_file"] = index->model;
  summary["dispatches"] = std::move(dispatches);
  summary["model"] = std::move(modelSummary);
  summary["stage_seconds"] = std::move(stageSeconds);
  summary["stage_busy_seconds"] = std::move(busySeconds);
  if (Error err = writeJsonFile(at(outputPath), std::move(summary)))
    return err;
  if (Error err = writeHtml(rows, *modelObject, index->model))
    return err;
  printTable(rows, modelObject);
  fmt::print("stage wall seconds: candidates {:.2f}, compile {:.2f} (busy {:.2f}), "
             "bench {:.2f}, model {:.2f}\n",
             times.candidates.wallSeconds(), times.compile.wallSeconds(),
             times.compile.busySeconds(), times.bench.wallSeconds(),
             times.model.wallSeconds());
  return Error::success();
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-report: write report/summary.json (schema retune.summary/1) and "
      "print the tuning summary table.\n");
  return finishTool("retune-report", run());
}
