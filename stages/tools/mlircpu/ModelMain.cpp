//===- ModelMain.cpp - retune-model: does the linked spec speed the model up? ===//
//
// Compiles the whole model without and with the linked spec (retune-compile
// children), times both interleaved on the same inputs after checking that
// their outputs agree (retune-bench child), and writes the spec users get.
// When the tuned model is not faster, each winner is measured alone; the
// ones that do not help the model are dropped, the rest relinked and
// measured again. The decision and its reasons go to the result record.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/SpecLinker.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"
#include "stages/core/Records.h"
#include "stages/core/Subprocess.h"
#include "stages/support/ToolMain.h"
#include "stages/core/WinnerPruning.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <map>

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-model options");
static cl::opt<std::string> modelPath("model", cl::Required,
                                      cl::desc("the model (.mlir)"),
                                      cl::cat(category));
static cl::list<std::string> selections(cl::Positional, cl::ZeroOrMore,
                                        cl::desc("<best/<id>.json>..."),
                                        cl::cat(category));
static cl::opt<std::string> workDir("work-dir", cl::Required,
                                    cl::desc("directory for model builds"),
                                    cl::cat(category));
static cl::opt<std::string> finalSpec("final-spec",
                                      cl::desc("tuning spec to write"),
                                      cl::cat(category));
static cl::opt<std::string> outputPath("output",
                                       cl::desc("model result record"),
                                       cl::cat(category));
static cl::opt<bool> baselineOnly(
    "baseline-only",
    cl::desc("only compile the model without a spec (<work-dir>/baseline."
             "json) and fail if it does not compile; a later run reuses it"),
    cl::cat(category));
static cl::opt<std::string> entry("entry", cl::desc("function to time"),
                                  cl::cat(category));
static cl::opt<unsigned> threads("code-threads", cl::init(1),
                                 cl::desc("threads of the generated code"),
                                 cl::cat(category));
static cl::opt<unsigned> warmup("warmup", cl::init(2), cl::cat(category));
static cl::opt<unsigned> repetitions("repetitions", cl::init(10),
                                     cl::cat(category));
static cl::opt<double> minSample("min-sample-s", cl::init(0.002),
                                 cl::cat(category));
static cl::opt<unsigned> compileTimeout("compile-timeout", cl::init(300),
                                        cl::cat(category));
static cl::opt<unsigned> benchTimeout("bench-timeout", cl::init(600),
                                      cl::cat(category));
static cl::opt<std::string>
    cacheDir("cache-dir",
             cl::desc("passed on to retune-compile and retune-bench"),
             cl::cat(category));

namespace {

/// Path of `name` inside the work directory.
std::string inWork(const Twine &name) {
  return (Twine(workDir.getValue()) + "/" + name).str();
}

std::string sibling(const char *argv0, StringRef tool) {
  SmallString<256> path(sys::path::parent_path(currentExecutable(argv0)));
  sys::path::append(path, tool);
  return path.str().str();
}

class ModelEvaluator {
public:
  explicit ModelEvaluator(const char *argv0)
      : compileTool(sibling(argv0, "retune-compile")),
        benchTool(sibling(argv0, "retune-bench")) {}

  /// Compiles the model with `spec` ("" = baseline) as `tag`.
  Expected<CompileRecord> compile(StringRef spec, StringRef tag) {
    std::string record = inWork(tag + ".json");
    std::vector<std::string> args = {
        "--payload=" + modelPath.getValue(), "--output=" + inWork(tag + ".so"),
        "--record=" + record, "--code-threads=" + std::to_string(threads),
        "--timeout=" + std::to_string(compileTimeout),
        "--cache-dir=" + cacheDir.getValue()};
    if (!spec.empty())
      args.push_back(("--spec=" + spec).str());
    ChildOutcome outcome = runLimited(compileTool, args, 0, 0,
                                      inWork(tag + ".compile.log"));
    if (outcome.status != Status::Ok)
      return makeError("retune-compile failed: " + outcome.message);
    return readRecord<CompileRecord>(record, schema::kCompile,
                                     compileRecordFromJson);
  }

  /// The baseline compiled by an earlier --baseline-only run, if it is
  /// intact; else compiled now.
  Expected<CompileRecord> baseline() {
    Expected<CompileRecord> earlier = readRecord<CompileRecord>(
        inWork("baseline.json"), schema::kCompile, compileRecordFromJson);
    if (earlier && earlier->status == Status::Ok) {
      Expected<std::string> artifact = readFile(earlier->artifact);
      if (artifact && blake3Hex(*artifact) == earlier->artifactHash)
        return earlier;
      if (!artifact)
        consumeError(artifact.takeError());
    } else if (!earlier) {
      consumeError(earlier.takeError());
    }
    return compile("", "baseline");
  }

  /// Compiles with `spec` and times it against the baseline.
  Expected<BenchRecord> evaluate(StringRef spec, StringRef tag) {
    Expected<CompileRecord> compiled = compile(spec, tag);
    if (!compiled)
      return compiled.takeError();
    std::string result = inWork(tag + ".bench.json");
    std::vector<std::string> args = {
        "--baseline=" + inWork("baseline.json"),
        "--candidate=" + inWork(tag + ".json"),
        "--output=" + result, "--warmup=" + std::to_string(warmup),
        "--repetitions=" + std::to_string(repetitions),
        "--min-sample-s=" + std::to_string(minSample),
        "--timeout=" + std::to_string(benchTimeout),
        "--cache-dir=" + cacheDir.getValue()};
    if (!entry.empty())
      args.push_back("--function=" + entry.getValue());
    ChildOutcome outcome = runLimited(benchTool, args, 0, 0,
                                      inWork(tag + ".bench.log"));
    if (outcome.status != Status::Ok)
      return makeError("retune-bench failed: " + outcome.message);
    return readRecord<BenchRecord>(result, schema::kBench, benchRecordFromJson);
  }

private:
  std::string compileTool, benchTool;
};

bool helps(const BenchRecord &record) {
  return record.status == Status::Ok && record.ratio < 1.0;
}

std::string describe(const BenchRecord &record) {
  if (record.status != Status::Ok)
    return (toString(record.status) + ": " + record.message).str();
  return formatv("{0:f3}x the baseline time", record.ratio).str();
}

Expected<std::string> linkWinners(ArrayRef<Winner> winners, StringRef tag) {
  std::vector<std::string> specs;
  std::string header =
      "retune tuning spec for " + modelPath.getValue() + " (" + tag.str() + ")";
  for (const Winner &w : winners) {
    specs.push_back(w.spec);
    header += "\n  " + w.dispatch + ": " + w.spec;
  }
  Expected<std::string> text = link::linkSpecs(specs, header);
  if (!text)
    return text.takeError();
  std::string path = inWork(tag + ".spec.mlir");
  if (Error err = writeFileIfChanged(path, *text))
    return std::move(err);
  return path;
}

/// What the model step decided, and the measurement behind it.
struct Decision {
  WinnerDecision winners;
  BenchRecord measured;
};

json::Array toArray(const std::vector<double> &values) {
  json::Array array;
  for (double v : values)
    array.push_back(v);
  return array;
}

Expected<Decision> decide(ModelEvaluator &evaluator,
                          const std::vector<Winner> &winners) {
  std::map<std::string, BenchRecord> measured;
  std::string firstFailure;
  auto measure = [&](ArrayRef<Winner> some, StringRef tag) -> Expected<Trial> {
    Expected<std::string> spec = linkWinners(some, tag);
    if (!spec)
      return spec.takeError();
    Expected<BenchRecord> record = evaluator.evaluate(*spec, tag);
    if (!record)
      return record.takeError();
    Trial trial{helps(*record), describe(*record)};
    if (record->status != Status::Ok && firstFailure.empty())
      firstFailure = tag.str() + ": " + describe(*record);
    measured[tag.str()] = std::move(*record);
    return trial;
  };
  Expected<WinnerDecision> chosen = decideWinners(winners, measure);
  if (!chosen)
    return chosen.takeError();
  // Not one measurement of the whole model worked: the model itself cannot
  // be run (a wrong entry, inputs it cannot take), not a bad winner.
  if (llvm::none_of(measured, [](const auto &m) {
        return m.second.status == Status::Ok;
      }))
    return makeError(modelPath + ": the whole-model benchmark failed for "
                                 "every spec tried (" + firstFailure +
                     "); check [model] entry in tune.toml");
  BenchRecord behind = measured[chosen->finalTag];
  return Decision{std::move(*chosen), std::move(behind)};
}

Error writeResult(const Decision &d, double startedAt, double seconds) {
  const BenchRecord &m = d.measured;
  // An empty spec leaves the model as the baseline compiled it.
  bool tuned = !d.winners.kept.empty() && m.status == Status::Ok && m.median > 0;
  json::Array keptIds;
  for (const Winner &w : d.winners.kept)
    keptIds.push_back(w.dispatch);
  json::Object result{
      {"schema", schema::kModel},
      {"model", modelPath.getValue()},
      {"status", toString(m.status)},
      {"message", m.message},
      {"decision", d.winners.text},
      {"baseline_median_s", m.baselineMedian},
      {"tuned_median_s", tuned ? m.median : m.baselineMedian},
      {"speedup", tuned ? m.baselineMedian / m.median : 1.0},
      {"ratio", m.ratio},
      {"noise", m.noise},
      {"max_error", m.maxError},
      {"winners_kept", std::move(keptIds)},
      {"winners_dropped", json::Array(d.winners.dropped)},
      {"baseline_samples_s", toArray(m.baselineSamples)},
      {"measured_samples_s", toArray(m.samples)},
      {"seconds", seconds},
      {"started_at", startedAt}};
  return writeJsonFile(outputPath, std::move(result));
}

/// --baseline-only: the model must compile without a spec before anything
/// is tuned for it.
Error checkBaseline(const char *argv0) {
  ModelEvaluator evaluator(argv0);
  Expected<CompileRecord> baseline = evaluator.compile("", "baseline");
  if (!baseline)
    return baseline.takeError();
  if (baseline->status == Status::Ok)
    return Error::success();
  // Not an output Ninja may take as done: the next run compiles again.
  sys::fs::remove(inWork("baseline.json"));
  return makeError(modelPath + ": the model does not compile without a "
                               "spec, so there is nothing to tune: " +
                   baseline->message);
}

Error run(const char *argv0) {
  double startedAt = unixSeconds();
  auto start = std::chrono::steady_clock::now();
  if (!sys::fs::exists(modelPath))
    return makeError(modelPath + ": no such file");
  if (baselineOnly)
    return checkBaseline(argv0);
  if (outputPath.empty() || finalSpec.empty())
    return makeError("--output and --final-spec are required");
  Expected<std::vector<Winner>> winners = readWinners(selections);
  if (!winners)
    return winners.takeError();
  ModelEvaluator evaluator(argv0);
  Expected<CompileRecord> baseline = evaluator.baseline();
  if (!baseline)
    return baseline.takeError();
  if (baseline->status != Status::Ok)
    return makeError(modelPath + ": the model does not compile without a "
                                 "spec: " + baseline->message);
  Expected<Decision> decision = decide(evaluator, *winners);
  if (!decision)
    return decision.takeError();
  Expected<std::string> spec = linkWinners(decision->winners.kept, "final");
  if (!spec)
    return spec.takeError();
  Expected<std::string> text = readFile(*spec);
  if (!text)
    return text.takeError();
  if (Error err = writeFileIfChanged(finalSpec, *text))
    return err;
  return writeResult(*decision, startedAt, std::chrono::duration<double>(
                                    std::chrono::steady_clock::now() - start)
                                    .count());
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-model: compile the whole model with and without the linked "
      "winners, check the outputs agree, time both interleaved, drop "
      "winners that hurt, and write the final tuning spec.\n");
  Error err = run(argv[0]);
  // A failed step leaves no result that Ninja would take as up to date.
  if (err && !baselineOnly && !outputPath.empty())
    sys::fs::remove(outputPath);
  return finishTool("retune-model", std::move(err));
}
