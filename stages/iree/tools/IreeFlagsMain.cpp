//===- IreeFlagsMain.cpp - retune-iree-flags: the model's compile flags ---===//
//
// The model-level search (ModelFlags.h): compiles the whole model with the
// default flags and with each set of flags/sets.json added, checks each
// build's results against the default's (OutputCheck), times it interleaved
// with the default on one device, and writes flags/chosen.json and
// compile_flags.txt. A set that fails to compile or computes other results
// is a recorded outcome, never an error.
//
//===----------------------------------------------------------------------===//
#include "stages/iree/IreeRun.h"
#include "stages/iree/ModelFlags.h"
#include "stages/iree/ModelSignature.h"
#include "stages/iree/OutputCheck.h"
#include "stages/iree/tools/ToolOptions.h"
#include "stages/support/FileUtil.h"
#include "stages/support/ToolMain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;
using namespace retune::iree;

static cl::opt<std::string> modelPath("model", cl::Required,
                                      cl::desc("the model"),
                                      cl::cat(tools::category()));
static cl::opt<std::string> setsPath("sets", cl::Required,
                                     cl::desc("flags/sets.json"),
                                     cl::cat(tools::category()));
static cl::opt<std::string> outputPath("output", cl::Required,
                                       cl::desc("flags/chosen.json"),
                                       cl::cat(tools::category()));
static cl::opt<std::string> flagsFile("flags-file", cl::Required,
                                      cl::desc("compile_flags.txt to write"),
                                      cl::cat(tools::category()));
static cl::opt<std::string> workDir("work-dir", cl::Required,
                                    cl::desc("directory for the builds"),
                                    cl::cat(tools::category()));
static cl::opt<std::string> device("device", cl::init("local-sync"),
                                   cl::desc("device URI"),
                                   cl::cat(tools::category()));
static cl::opt<std::string> entry("entry", cl::desc("function to benchmark"),
                                  cl::cat(tools::category()));
static cl::opt<unsigned> repetitions("repetitions", cl::init(5),
                                     cl::cat(tools::category()));
static cl::opt<unsigned> rounds("rounds", cl::init(3),
                                cl::desc("default/flag-set alternations"),
                                cl::cat(tools::category()));
static cl::opt<double> margin("margin", cl::init(0.02),
                              cl::desc("a set must beat the default by this"),
                              cl::cat(tools::category()));
static cl::opt<unsigned> compileTimeout("compile-timeout", cl::init(600),
                                        cl::cat(tools::category()));
static cl::opt<unsigned> benchTimeout("bench-timeout", cl::init(600),
                                      cl::cat(tools::category()));

namespace {

std::string inWork(const Twine &name) {
  return (Twine(workDir.getValue()) + "/" + name).str();
}

CompileRecord compileWith(const IreeTools &ireeTools, ArrayRef<std::string> extra,
                          StringRef tag) {
  CompileRequest request;
  request.input = modelPath;
  request.vmfbPath = inWork(tag + ".vmfb");
  request.logPath = inWork(tag + ".compile.log");
  request.flags = tools::compileFlags();
  request.flags.insert(request.flags.end(), extra.begin(), extra.end());
  request.fromExecutableSources = false;
  request.timeoutSeconds = compileTimeout;
  return compileCandidate(ireeTools, request);
}

/// Measures one flag set against the default build (tag "default").
FlagSetOutcome measureSet(const IreeTools &ireeTools, const FlagSet &flags,
                          StringRef tag, const ModelInvocation &invocation,
                          const std::optional<RunRequest> &reference) {
  FlagSetOutcome outcome;
  outcome.flags = flags;
  CompileRecord compiled = compileWith(ireeTools, flags, tag);
  if (compiled.status != Status::Ok) {
    outcome.status = compiled.status;
    outcome.message = compiled.message;
    return outcome;
  }
  if (reference) {
    RunRequest run = *reference;
    run.vmfbPath = inWork(tag + ".vmfb");
    run.logPath = inWork(tag + ".run.log");
    OutputCheck check = checkOutputs(ireeTools, run, inWork("reference.npy"));
    if (check.status != Status::Ok) {
      outcome.status = check.status;
      outcome.message = check.message;
      return outcome;
    }
  }
  auto request = [&](StringRef name) {
    BenchRequest r;
    r.vmfbPath = inWork(name + ".vmfb");
    r.device = device;
    r.repetitions = repetitions;
    r.function = invocation.function;
    r.flags = invocation.flags;
    r.jsonPath = inWork(name + ".bench.json");
    r.logPath = inWork(name + ".bench.log");
    r.timeoutSeconds = benchTimeout;
    return r;
  };
  InterleavedOutcome timed = benchInterleaved(
      ireeTools, request("default"), request(tag), rounds);
  for (const BenchOutcome *side : {&timed.baseline, &timed.tuned})
    if (side->status != Status::Ok || side->samplesUs.empty()) {
      outcome.status = side->status == Status::Ok ? Status::BenchError
                                                  : side->status;
      outcome.message = side->message;
      return outcome;
    }
  outcome.medianSeconds = median(timed.tuned.samplesUs) * 1e-6;
  outcome.ratio = median(timed.tuned.samplesUs) / median(timed.baseline.samplesUs);
  return outcome;
}

Error run() {
  Expected<json::Value> setsJson = readJsonFile(setsPath, iree::schema::kFlagSets);
  if (!setsJson)
    return setsJson.takeError();
  Expected<std::vector<FlagSet>> sets = flagSetsFromJson(*setsJson);
  if (!sets)
    return makeError(setsPath + ": " + toString(sets.takeError()));
  Expected<IreeTools> ireeTools = tools::toolsFromOptions(workDir);
  if (!ireeTools)
    return ireeTools.takeError();
  Expected<ModelInvocation> invocation =
      resolveModelInvocation(modelPath, entry, tools::benchFlags());
  if (!invocation)
    return invocation.takeError();
  CompileRecord base = compileWith(*ireeTools, {}, "default");
  if (base.status != Status::Ok)
    return makeError(modelPath + ": the model does not compile with the "
                                 "default flags (fix [iree] compile_flags): " +
                     base.message);
  // The default build's results on seeded inputs: every set must match.
  std::optional<RunRequest> reference;
  if (!ireeTools->run.empty()) {
    Expected<std::vector<std::string>> seeded =
        seedInputs(invocation->flags, workDir, /*seed=*/1);
    if (!seeded)
      return seeded.takeError();
    std::vector<std::string> inputs;
    for (const std::string &flag : *seeded)
      if (StringRef(flag).starts_with("--input"))
        inputs.push_back(flag);
    reference = RunRequest{inWork("default.vmfb"), device, invocation->function,
                           inputs, inWork("default.run.log"), benchTimeout};
    if (Error err = writeReference(*ireeTools, *reference, inWork("reference.npy")))
      return err;
  }
  FlagChoice choice;
  for (auto [k, set] : enumerate(*sets))
    choice.sets.push_back(measureSet(*ireeTools, set, formatv("set{0}", k).str(),
                                     *invocation, reference));
  for (const FlagSetOutcome &o : choice.sets)
    if (o.status == Status::Ok && o.ratio > 0) {
      choice.defaultMedianSeconds = o.medianSeconds / o.ratio;
      break;
    }
  chooseFlagSet(choice, margin);
  std::vector<std::string> all = tools::compileFlags();
  all.insert(all.end(), choice.chosen.begin(), choice.chosen.end());
  if (Error err = writeFileIfChanged(flagsFile, join(all, "\n") + "\n"))
    return err;
  return writeJsonFile(outputPath, toJson(choice));
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-flags: compile the whole model with each flag set of "
      "--sets added to the compile flags, check its results against the "
      "default build's, time it interleaved with the default build, and "
      "write the chosen set (--output) and the full flags (--flags-file).\n");
  return finishTool("retune-iree-flags", run());
}
