//===- ModelStage.cpp - The whole model with the winners --------------===//
//
// Links the winners (a retune-link child), compiles the whole model without
// and with the linked spec (retune-compile children), times both interleaved on
// the same inputs after checking that their outputs agree (retune-bench child),
// and writes the spec users get. When the tuned model is not faster, each
// winner is measured alone; the ones that do not help the model are dropped,
// the rest relinked and measured again. The decision and its reasons go to the
// result record.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/ModelStage.h"

#include "stages/core/Records.h"
#include "stages/core/Subprocess.h"
#include "stages/core/WinnerPruning.h"
#include "stages/support/FileUtil.h"
#include "stages/support/HashedFile.h"
#include "stages/support/Hash.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <map>

using namespace llvm;
using namespace retune;

namespace retune::mlircpu {

namespace {

class ModelEvaluator {
public:
  ModelEvaluator(const ModelOptions &options, const char *argv0,
                 ProcessRunner &processes)
      : options(options), processes(processes),
        compileTool(siblingTool(argv0, "retune-compile")),
        benchTool(siblingTool(argv0, "retune-bench")),
        linkTool(siblingTool(argv0, "retune-link")) {}

  /// Path of `name` inside the work directory.
  std::string inWork(const Twine &name) const {
    return (Twine(options.workDir) + "/" + name).str();
  }

  /// Links the specs of `winners` (in order) into <work dir>/<tag>.spec.mlir
  /// with retune-link, which replays a link it has done before.
  Expected<std::string> link(ArrayRef<Winner> winners, StringRef tag) {
    std::string path = inWork(tag + ".spec.mlir");
    std::string header =
        "retune tuning spec for " + options.modelPath + " (" + tag.str() + ")";
    for (const Winner &w : winners)
      header += "\n  " + w.dispatch + ": " + w.spec;
    std::vector<std::string> args = {"--output=" + path, "--header=" + header,
                                     "--cache-dir=" + options.cacheDir};
    for (const Winner &w : winners)
      args.push_back("--spec=" + w.spec);
    ChildOutcome outcome =
        processes.run(linkTool, args, 0, 0, inWork(tag + ".link.log"));
    if (outcome.status != Status::Ok)
      return makeError("retune-link failed: " + outcome.message);
    return path;
  }

  /// Compiles the model with `spec` ("" = baseline) as `tag`.
  Expected<CompileRecord> compile(StringRef spec, StringRef tag) {
    std::string record = inWork(tag + ".json");
    std::vector<std::string> args = {
        "--payload=" + options.modelPath,
        "--output=" + inWork(tag + ".so"),
        "--record=" + record,
        "--code-threads=" + std::to_string(options.threads),
        "--timeout=" + std::to_string(options.compileTimeout),
        "--cache-dir=" + options.cacheDir};
    if (!spec.empty())
      args.push_back(("--spec=" + spec).str());
    for (const std::string &flag : options.compilerFlags)
      args.push_back("--compiler-flag=" + flag);
    ChildOutcome outcome =
        processes.run(compileTool, args, 0, 0, inWork(tag + ".compile.log"));
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
        "--candidate=" + inWork(tag + ".json"), "--output=" + result,
        "--warmup=" + std::to_string(options.warmup),
        "--repetitions=" + std::to_string(options.repetitions),
        "--min-sample-s=" + std::to_string(options.minSample),
        "--timeout=" + std::to_string(options.benchTimeout),
        "--cache-dir=" + options.cacheDir,
        // The baseline's time is reported whatever the spec changed.
        "--measure-identical"};
    if (!options.entry.empty())
      args.push_back("--function=" + options.entry);
    ChildOutcome outcome =
        processes.run(benchTool, args, 0, 0, inWork(tag + ".bench.log"));
    if (outcome.status != Status::Ok)
      return makeError("retune-bench failed: " + outcome.message);
    return readRecord<BenchRecord>(result, schema::kBench, benchRecordFromJson);
  }

private:
  const ModelOptions &options;
  ProcessRunner &processes;
  std::string compileTool, benchTool, linkTool;
};

bool helps(const BenchRecord &record) {
  return record.status == Status::Ok && record.ratio < 1.0;
}

std::string describe(const BenchRecord &record) {
  if (record.status != Status::Ok)
    return (toString(record.status) + ": " + record.message).str();
  return formatv("{0:f3}x the baseline time", record.ratio).str();
}

/// What the model step decided, and the measurement behind it.
struct Decision {
  WinnerDecision winners;
  BenchRecord measured;
};

Expected<Decision> decide(const ModelOptions &options,
                          ModelEvaluator &evaluator,
                          const std::vector<Winner> &winners) {
  std::map<std::string, BenchRecord> measured;
  std::string firstFailure;
  auto measure = [&](ArrayRef<Winner> some, StringRef tag) -> Expected<Trial> {
    Expected<std::string> spec = evaluator.link(some, tag);
    if (!spec)
      return spec.takeError();
    Expected<BenchRecord> record = evaluator.evaluate(*spec, tag);
    if (!record)
      return record.takeError();
    Trial trial{helps(*record), describe(*record),
                record->status == Status::Ok ? record->ratio : 0};
    if (record->status != Status::Ok && firstFailure.empty())
      firstFailure = tag.str() + ": " + describe(*record);
    measured[tag.str()] = std::move(*record);
    return trial;
  };
  Expected<WinnerDecision> chosen = decideWinners(winners, measure);
  if (!chosen)
    return chosen.takeError();
  // Not one measurement of the whole model worked: the model itself cannot
  // be run (a wrong options.entry, inputs it cannot take), not a bad winner.
  if (llvm::none_of(measured, [](const auto &m) {
        return m.second.status == Status::Ok;
      }))
    return makeError(options.modelPath +
                     ": the whole-model benchmark failed for "
                     "every spec tried (" +
                     firstFailure + "); check [model] entry in tune.toml");
  BenchRecord behind = measured[chosen->finalTag];
  return Decision{std::move(*chosen), std::move(behind)};
}

Error writeResult(const ModelOptions &options, const Decision &d,
                  double startedAt, double seconds) {
  const BenchRecord &m = d.measured;
  // An empty spec leaves the model as the baseline compiled it.
  bool tuned =
      !d.winners.kept.empty() && m.status == Status::Ok && m.median > 0;
  ModelRecord r;
  r.model = options.modelPath;
  r.status = m.status;
  r.message = m.message;
  r.decision = d.winners.text;
  r.baselineMedian = m.baselineMedian;
  r.tunedMedian = tuned ? m.median : m.baselineMedian;
  r.speedup = tuned ? m.baselineMedian / m.median : 1.0;
  r.ratio = m.ratio;
  r.noise = m.noise;
  r.maxError = m.maxError;
  for (const Winner &w : d.winners.kept)
    r.winnersKept.push_back(w.dispatch);
  r.winnersDropped = d.winners.dropped;
  r.resultsChecked = "against the baseline's on seeded inputs (retune-bench)";
  r.baselineSamples = m.baselineSamples;
  r.tunedSamples = m.samples;
  r.seconds = seconds;
  r.startedAt = startedAt;
  return writeJsonFile(options.outputPath, toJson(r));
}

/// --baseline-only: the model must compile without a spec before anything
/// is tuned for it.
Error checkBaseline(const ModelOptions &options, const char *argv0,
                    ProcessRunner &processes) {
  ModelEvaluator evaluator(options, argv0, processes);
  Expected<CompileRecord> baseline = evaluator.compile("", "baseline");
  if (!baseline)
    return baseline.takeError();
  if (baseline->status == Status::Ok)
    return Error::success();
  // Not an output Ninja may take as done: the next run compiles again.
  sys::fs::remove(evaluator.inWork("baseline.json"));
  return makeError(options.modelPath +
                   ": the model does not compile without a "
                   "spec, so there is nothing to tune: " +
                   baseline->message);
}

Error run(const ModelOptions &options, const char *argv0,
          ProcessRunner &processes) {
  double startedAt = unixSeconds();
  auto start = std::chrono::steady_clock::now();
  if (!sys::fs::exists(options.modelPath))
    return makeError(options.modelPath + ": no such file");
  if (options.baselineOnly)
    return checkBaseline(options, argv0, processes);
  if (options.outputPath.empty() || options.finalSpec.empty())
    return makeError("--output and --final-spec are required");
  Expected<std::vector<Winner>> winners = readWinners(options.selections);
  if (!winners)
    return winners.takeError();
  ModelEvaluator evaluator(options, argv0, processes);
  Expected<CompileRecord> baseline = evaluator.baseline();
  if (!baseline)
    return baseline.takeError();
  if (baseline->status != Status::Ok)
    return makeError(options.modelPath +
                     ": the model does not compile without a "
                     "spec: " +
                     baseline->message);
  Expected<Decision> decision = decide(options, evaluator, *winners);
  if (!decision)
    return decision.takeError();
  Expected<std::string> spec = evaluator.link(decision->winners.kept, "final");
  if (!spec)
    return spec.takeError();
  Expected<std::string> text = readFile(*spec);
  if (!text)
    return text.takeError();
  if (Error err = writeHashedFile(options.finalSpec, *text))
    return err;
  return writeResult(
      options, *decision, startedAt,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count());
}

} // namespace

Error runModelStage(const ModelOptions &options, const char *argv0,
                    ProcessRunner &processes) {
  Error err = run(options, argv0, processes);
  // A failed step leaves no result that Ninja would take as up to date.
  if (err && !options.baselineOnly && !options.outputPath.empty())
    sys::fs::remove(options.outputPath);
  return err;
}

} // namespace retune::mlircpu
