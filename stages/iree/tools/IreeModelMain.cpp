//===- IreeModelMain.cpp - retune-iree-model: does the spec help the model? ===//
//
// Compiles the whole model without and with the linked spec (the user's
// compile flags), benchmarks both alternately on one device with the user's
// benchmark flags (benchInterleaved), and writes the spec users get: the
// linked one when the tuned model is faster, else an empty spec. The
// decision and the samples go to model/result.json (retune.model/1).
//
//===----------------------------------------------------------------------===//
#include "stages/iree/IreeRun.h"
#include "stages/iree/IreeSpec.h"
#include "stages/iree/tools/ToolOptions.h"
#include "stages/support/FileUtil.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"

#include <chrono>

using namespace llvm;
using namespace retune;
using namespace retune::iree;

static cl::opt<std::string> modelPath("model", cl::Required,
                                      cl::desc("the model"),
                                      cl::cat(tools::category()));
static cl::opt<std::string> linkedPath("linked", cl::Required,
                                       cl::desc("spec/linked.mlir"),
                                       cl::cat(tools::category()));
static cl::list<std::string> selections(cl::Positional, cl::ZeroOrMore,
                                        cl::desc("<best/<id>.json>..."),
                                        cl::cat(tools::category()));
static cl::opt<std::string> workDir("work-dir", cl::Required,
                                    cl::desc("directory for model builds"),
                                    cl::cat(tools::category()));
static cl::opt<std::string> finalSpec("final-spec", cl::Required,
                                      cl::desc("tuning spec to write"),
                                      cl::cat(tools::category()));
static cl::opt<std::string> outputPath("output", cl::Required,
                                       cl::desc("model result record"),
                                       cl::cat(tools::category()));
static cl::opt<std::string> device("device", cl::init("hip://0"),
                                   cl::desc("device URI"),
                                   cl::cat(tools::category()));
static cl::opt<std::string> entry("entry",
                                  cl::desc("function to benchmark (--function)"),
                                  cl::cat(tools::category()));
static cl::opt<unsigned> repetitions("repetitions", cl::init(5),
                                     cl::cat(tools::category()));
static cl::opt<unsigned> rounds("rounds", cl::init(3),
                                cl::desc("baseline/tuned alternations"),
                                cl::cat(tools::category()));
static cl::opt<unsigned> compileTimeout("compile-timeout", cl::init(120),
                                        cl::cat(tools::category()));
static cl::opt<unsigned> benchTimeout("bench-timeout", cl::init(600),
                                      cl::cat(tools::category()));

namespace {

std::string inWork(const Twine &name) {
  return (Twine(workDir.getValue()) + "/" + name).str();
}

/// How the spec is passed depends on the target family; the model names no
/// target, its compile flags do.
std::string familyOfFlags(ArrayRef<std::string> flags) {
  for (StringRef flag : flags)
    if (flag.contains("llvm-cpu") || flag.ends_with("=local"))
      return "cpu";
  return "gpu";
}

CompileRecord compileModel(const IreeTools &ireeTools, StringRef spec,
                           StringRef tag) {
  CompileRequest request;
  request.input = modelPath;
  request.specPath = spec.str();
  request.vmfbPath = inWork(tag + ".vmfb");
  request.logPath = inWork(tag + ".compile.log");
  request.flags = tools::compileFlags();
  request.family = familyOfFlags(request.flags);
  request.fromExecutableSources = false;
  request.timeoutSeconds = compileTimeout;
  return compileCandidate(ireeTools, request);
}

BenchRequest benchRequest(StringRef tag) {
  BenchRequest request;
  request.vmfbPath = inWork(tag + ".vmfb");
  request.device = device;
  request.repetitions = repetitions;
  request.function = entry;
  request.flags = tools::benchFlags();
  request.jsonPath = inWork(tag + ".bench.json");
  request.logPath = inWork(tag + ".bench.log");
  request.timeoutSeconds = benchTimeout;
  return request;
}

json::Array toSeconds(ArrayRef<double> us) {
  json::Array seconds;
  for (double v : us)
    seconds.push_back(v * 1e-6);
  return seconds;
}

Error run() {
  double startedAt = unixSeconds();
  auto start = std::chrono::steady_clock::now();
  Expected<std::vector<std::pair<std::string, std::string>>> winners =
      tools::readWinners(selections);
  if (!winners)
    return winners.takeError();
  Expected<IreeTools> ireeTools = tools::toolsFromOptions(workDir);
  if (!ireeTools)
    return ireeTools.takeError();
  CompileRecord baseline = compileModel(*ireeTools, "", "baseline");
  if (baseline.status != Status::Ok)
    return makeError(modelPath + ": the model does not compile without a "
                                 "spec (fix [iree] compile_flags): " +
                     baseline.message);
  CompileRecord tuned = compileModel(*ireeTools, linkedPath, "tuned");
  InterleavedOutcome timed;
  std::string decision;
  if (tuned.status != Status::Ok) {
    timed.tuned.status = tuned.status;
    timed.tuned.message = "compile with the linked spec: " + tuned.message;
  } else {
    timed = benchInterleaved(*ireeTools, benchRequest("baseline"),
                             benchRequest("tuned"), rounds);
  }
  double baseMedian = median(timed.baseline.samplesUs) * 1e-6;
  double tunedMedian = median(timed.tuned.samplesUs) * 1e-6;
  bool ok = timed.baseline.status == Status::Ok &&
            timed.tuned.status == Status::Ok && tunedMedian > 0;
  bool keep = ok && tunedMedian < baseMedian && !winners->empty();
  json::Array kept, dropped;
  for (const auto &[dispatch, spec] : *winners) {
    if (keep)
      kept.push_back(dispatch);
    else
      dropped.push_back(json::Object{
          {"dispatch", dispatch},
          {"reason", ok ? formatv("the tuned model took {0:f3}x the baseline "
                                  "time",
                                  tunedMedian / baseMedian)
                              .str()
                        : timed.tuned.message + timed.baseline.message}});
  }
  if (keep)
    decision = "all winners kept";
  else if (winners->empty())
    decision = "no dispatch had a winner; the spec is empty";
  else
    decision = "the tuned model was not faster; the spec is empty";
  Expected<std::string> linked = readFile(linkedPath);
  if (!linked)
    return linked.takeError();
  if (Error err = writeTuningSpec(finalSpec,
                                  keep ? *linked : tools::emptyTuningSpec()))
    return err;
  const BenchOutcome &failed =
      timed.baseline.status != Status::Ok ? timed.baseline : timed.tuned;
  json::Object result{
      {"schema", schema::kModel},
      {"model", modelPath},
      {"device", device},
      {"status", toString(failed.status)},
      {"message", failed.message},
      {"decision", decision},
      {"baseline_median_s", baseMedian},
      {"tuned_median_s", tunedMedian},
      {"speedup", ok ? baseMedian / tunedMedian : 0.0},
      {"ratio", ok ? tunedMedian / baseMedian : 0.0},
      {"winners_kept", std::move(kept)},
      {"winners_dropped", std::move(dropped)},
      {"baseline_samples_s", toSeconds(timed.baseline.samplesUs)},
      {"tuned_samples_s", toSeconds(timed.tuned.samplesUs)},
      {"seconds", std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - start)
                      .count()},
      {"started_at", startedAt}};
  return writeJsonFile(outputPath, std::move(result));
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-model: compile the whole model with and without the "
      "linked spec, benchmark both interleaved on one device, and write the "
      "final tuning spec (empty when the tuned model is not faster).\n");
  return finishTool("retune-iree-model", run());
}
