//===- IreeModelMain.cpp - retune-iree-model: does the spec help the model?
//===//
//
// Compiles the whole model without and with specs (the user's compile
// flags), benchmarks both alternately on one device (benchInterleaved), and
// writes the spec users get. Every tuned model must reproduce the
// baseline's results on seeded inputs (OutputCheck) and differ from the
// baseline's module. First each dispatch's fastest few candidates are tried
// alone in the model (chooseInModel: the model, not the dispatch benchmark,
// ranks them); then the chosen ones together, and when that is not faster,
// each alone, dropping those that do not help (decideWinners, shared with
// retune-model); with none left the spec is empty. The decision and the
// samples go to model/result.json (retune.model/1).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/IreeLinker.h"
#include "stages/backends/iree/IreeRun.h"
#include "stages/backends/iree/IreeSpec.h"
#include "stages/backends/iree/ModelSignature.h"
#include "stages/backends/iree/OutputCheck.h"
#include "stages/core/WinnerPruning.h"
#include "stages/support/FileUtil.h"
#include "stages/support/ToolMain.h"
#include "stages/tools/iree/ModelRun.h"
#include "stages/tools/iree/ToolOptions.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <map>
#include <optional>

using namespace llvm;
using namespace retune;
using namespace retune::iree;

static cl::opt<std::string> linkedPath("linked", cl::Required,
                                       cl::desc("spec/linked.mlir"),
                                       cl::cat(tools::category()));
static cl::list<std::string> selections(cl::Positional, cl::ZeroOrMore,
                                        cl::desc("<best/<id>.json>..."),
                                        cl::cat(tools::category()));
static cl::opt<std::string> finalSpec("final-spec", cl::Required,
                                      cl::desc("tuning spec to write"),
                                      cl::cat(tools::category()));
static cl::opt<std::string> outputPath("output", cl::Required,
                                       cl::desc("model result record"),
                                       cl::cat(tools::category()));
static cl::opt<unsigned>
    inModel("in-model", cl::init(3),
            cl::desc("per dispatch, measure this many of its fastest "
                     "candidates alone in the whole model and keep the one "
                     "the model runs fastest with (0: the dispatch's winner)"),
            cl::cat(tools::category()));

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
  InterleavedOutcome timed;

  bool ok() const {
    return timed.baseline.status == Status::Ok &&
           timed.tuned.status == Status::Ok && !timed.tuned.samplesUs.empty();
  }
  bool helps() const {
    return ok() && stats::median(timed.tuned.samplesUs) <
                       stats::median(timed.baseline.samplesUs);
  }
  /// The tuned model's time over the baseline's; 0 when it failed.
  double ratio() const {
    return ok() ? stats::median(timed.tuned.samplesUs) /
                      stats::median(timed.baseline.samplesUs)
                : 0;
  }
  std::string describe() const {
    if (!ok())
      return timed.tuned.message + timed.baseline.message;
    return formatv("{0:f3}x the baseline time", ratio()).str();
  }
};

/// Per dispatch with a selection record, its `inModel` fastest candidates
/// on the dispatch that beat the baseline there (ratio < 1), read from
/// results/<id>/ and candidates/<id>/index.json beside best/.
Expected<std::vector<DispatchOptions>> readOptions() {
  std::vector<DispatchOptions> all;
  for (StringRef selection : selections) {
    SmallString<256> buildDir =
        sys::path::parent_path(sys::path::parent_path(selection));
    if (buildDir.empty())
      buildDir = ".";
    std::string id = sys::path::stem(selection).str();
    Expected<CandidateIndex> index = readRecord<CandidateIndex>(
        (buildDir + "/candidates/" + id + "/index.json").str(),
        schema::kCandidates, candidateIndexFromJson);
    if (!index)
      return index.takeError();
    std::vector<std::pair<double, Winner>> ranked;
    for (const CandidateEntry &c : index->candidates) {
      Expected<BenchRecord> result = tools::readBenchRecord(
          formatv("{0}/results/{1}/{2}.json", buildDir, id, c.index).str());
      if (!result)
        return result.takeError();
      if (result->status == Status::Ok && result->ratio > 0 &&
          result->ratio < 1)
        ranked.push_back(
            {result->ratio, Winner{id, ("candidates/" + id + "/" + c.file)}});
    }
    llvm::stable_sort(
        ranked, [](const auto &a, const auto &b) { return a.first < b.first; });
    DispatchOptions options{id, {}};
    for (auto &[ratio, winner] : ranked)
      if (options.options.size() < inModel)
        options.options.push_back(std::move(winner));
    if (!options.options.empty())
      all.push_back(std::move(options));
  }
  return all;
}

/// The spec of `some` winners: spec/linked.mlir for all of them (the link
/// step made it), else linked here with the same linker.
Expected<std::string> specFor(ArrayRef<Winner> some, bool isAll) {
  if (isAll)
    return readFile(linkedPath);
  if (some.empty())
    return tools::emptyTuningSpec();
  Expected<LinkResult> linked = linkTuningSpecFiles(specPaths(some));
  if (!linked)
    return linked.takeError();
  return linked->text;
}

Expected<Attempt> tryWinners(const tools::ModelRunner &runner,
                             ArrayRef<Winner> some, StringRef tag, bool isAll,
                             const CompileRecord &baseline) {
  Attempt attempt;
  Expected<std::string> text = specFor(some, isAll);
  if (!text)
    return text.takeError();
  attempt.specText = std::move(*text);
  std::string specPath = tools::inWork(tag + ".spec.mlir");
  if (Error err = writeTuningSpec(specPath, attempt.specText))
    return std::move(err);
  CompileRecord compiled = runner.compile(tag, specPath);
  if (compiled.status != Status::Ok) {
    attempt.timed.tuned.status = compiled.status;
    attempt.timed.tuned.message = "compile with the spec: " + compiled.message;
    return attempt;
  }
  // A spec whose matchers hit nothing in the model leaves the module
  // byte-identical: it cannot help, and shipping it would hide that.
  if (!some.empty() && compiled.artifactHash == baseline.artifactHash) {
    attempt.timed.tuned.status = Status::NotApplied;
    attempt.timed.tuned.message = "the spec did not apply to the model: its "
                                  "module is byte-identical to the baseline's";
    return attempt;
  }
  {
    OutputCheck check = runner.check(tag);
    if (check.status != Status::Ok) {
      attempt.timed.tuned.status = check.status;
      attempt.timed.tuned.message = check.message;
      return attempt;
    }
  }
  attempt.timed = runner.timeAgainst("baseline", tag);
  return attempt;
}

Error run() {
  double startedAt = unixSeconds();
  auto start = std::chrono::steady_clock::now();
  Expected<std::vector<Winner>> linked = readWinners(selections);
  if (!linked)
    return linked.takeError();
  Expected<IreeTools> ireeTools =
      tools::toolsFromOptions(tools::workDirectory());
  if (!ireeTools)
    return ireeTools.takeError();
  Expected<tools::ModelRunner> runner = tools::ModelRunner::create(*ireeTools);
  if (!runner)
    return runner.takeError();
  CompileRecord baseline = runner->compile("baseline", "");
  if (baseline.status != Status::Ok)
    return makeError(tools::modelFile() +
                     ": the model does not compile without a spec (fix "
                     "[iree] compile_flags): " +
                     baseline.message);
  if (Error err = runner->makeReference("baseline"))
    return err;
  std::map<std::string, Attempt> attempts;
  auto isLinked = [&](ArrayRef<Winner> some) {
    return specPaths(some) == specPaths(*linked);
  };
  auto measure = [&](ArrayRef<Winner> some, StringRef tag) -> Expected<Trial> {
    Expected<Attempt> attempt =
        tryWinners(*runner, some, tag, isLinked(some), baseline);
    if (!attempt)
      return attempt.takeError();
    Trial trial{attempt->helps(), attempt->describe(), attempt->ratio()};
    attempts[tag.str()] = std::move(*attempt);
    return trial;
  };
  // What the model sees decides: each dispatch's best few candidates alone
  // in the model, then the pruning rule on the ones chosen.
  std::vector<Winner> all = *linked;
  json::Array inModelTrials, inModelDropped;
  if (inModel > 0) {
    Expected<std::vector<DispatchOptions>> options = readOptions();
    if (!options)
      return options.takeError();
    Expected<InModelChoice> choice = chooseInModel(*options, measure);
    if (!choice)
      return choice.takeError();
    all = std::move(choice->chosen);
    inModelTrials = std::move(choice->trials);
    inModelDropped = std::move(choice->dropped);
  }
  Expected<WinnerDecision> decision = decideWinners(all, measure);
  if (!decision)
    return decision.takeError();
  for (json::Value &entry : inModelDropped)
    decision->dropped.push_back(std::move(entry));
  const Attempt &behind = attempts[decision->finalTag];
  bool tuned = !decision->kept.empty();
  if (Error err = writeTuningSpec(finalSpec, tuned ? behind.specText
                                                   : tools::emptyTuningSpec()))
    return err;
  const InterleavedOutcome &timed = behind.timed;
  double baseMedian = stats::median(timed.baseline.samplesUs) * 1e-6;
  double tunedMedian =
      tuned ? stats::median(timed.tuned.samplesUs) * 1e-6 : baseMedian;
  const BenchOutcome &failed =
      timed.baseline.status != Status::Ok ? timed.baseline : timed.tuned;
  ModelRecord r;
  r.model = tools::modelFile();
  r.device = tools::modelDevice();
  r.status = failed.status;
  r.message = failed.message;
  r.decision = decision->text;
  r.baselineMedian = baseMedian;
  r.tunedMedian = tunedMedian;
  r.speedup = tunedMedian > 0 ? baseMedian / tunedMedian : 0.0;
  if (tuned) {
    stats::RatioEstimate estimate =
        stats::estimateRatio(timed.tuned.samplesUs, timed.baseline.samplesUs);
    r.ratio = estimate.ratio;
    r.noise = estimate.noise;
  }
  for (const Winner &w : decision->kept)
    r.winnersKept.push_back(w.dispatch);
  r.winnersDropped = decision->dropped;
  r.inModelTrials = std::move(inModelTrials);
  r.resultsChecked =
      runner->checksResults()
          ? "against the baseline's on seeded inputs (iree-run-module)"
          : "no (iree-run-module not found)";
  r.baselineSamples = toSeconds(timed.baseline.samplesUs);
  r.tunedSamples = toSeconds(timed.tuned.samplesUs);
  r.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  r.startedAt = startedAt;
  return writeJsonFile(outputPath, toJson(r));
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-model: compile the whole model with and without the "
      "linked spec, benchmark both interleaved on one device, and write the "
      "final tuning spec (without the winners that do not help the model).\n");
  return finishTool("retune-iree-model", run());
}
