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
#include "stages/backends/iree/ModelFlags.h"
#include "stages/support/FileUtil.h"
#include "stages/support/ToolMain.h"
#include "stages/tools/iree/ModelRun.h"
#include "stages/tools/iree/ToolOptions.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;
using namespace retune::iree;

static cl::opt<std::string> setsPath("sets", cl::Required,
                                     cl::desc("flags/sets.json"),
                                     cl::cat(tools::category()));
static cl::opt<std::string> outputPath("output", cl::Required,
                                       cl::desc("flags/chosen.json"),
                                       cl::cat(tools::category()));
static cl::opt<std::string> flagsFile("flags-file", cl::Required,
                                      cl::desc("compile_flags.txt to write"),
                                      cl::cat(tools::category()));
static cl::opt<double> margin("margin", cl::init(0.02),
                              cl::desc("a set must beat the default by this"),
                              cl::cat(tools::category()));

namespace {

/// Measures one flag set against the default build (tag "default").
FlagSetOutcome measureSet(const tools::ModelRunner &runner,
                          const FlagSet &flags, StringRef tag) {
  FlagSetOutcome outcome;
  outcome.flags = flags;
  CompileRecord compiled = runner.compile(tag, "", flags);
  if (compiled.status != Status::Ok) {
    outcome.status = compiled.status;
    outcome.message = compiled.message;
    return outcome;
  }
  OutputCheck check = runner.check(tag);
  if (check.status != Status::Ok) {
    outcome.status = check.status;
    outcome.message = check.message;
    return outcome;
  }
  InterleavedOutcome timed = runner.timeAgainst("default", tag);
  for (const BenchOutcome *side : {&timed.baseline, &timed.tuned})
    if (side->status != Status::Ok || side->samplesUs.empty()) {
      outcome.status =
          side->status == Status::Ok ? Status::BenchError : side->status;
      outcome.message = side->message;
      return outcome;
    }
  outcome.medianSeconds = stats::median(timed.tuned.samplesUs) * 1e-6;
  outcome.ratio = stats::median(timed.tuned.samplesUs) /
                  stats::median(timed.baseline.samplesUs);
  return outcome;
}

Error run() {
  Expected<json::Value> setsJson =
      readJsonFile(setsPath, iree::schema::kFlagSets);
  if (!setsJson)
    return setsJson.takeError();
  Expected<std::vector<FlagSet>> sets = flagSetsFromJson(*setsJson);
  if (!sets)
    return makeError(setsPath + ": " + toString(sets.takeError()));
  Expected<IreeTools> ireeTools =
      tools::toolsFromOptions(tools::workDirectory());
  if (!ireeTools)
    return ireeTools.takeError();
  Expected<tools::ModelRunner> runner = tools::ModelRunner::create(*ireeTools);
  if (!runner)
    return runner.takeError();
  CompileRecord base = runner->compile("default", "");
  if (base.status != Status::Ok)
    return makeError(tools::modelFile() +
                     ": the model does not compile with the default flags "
                     "(fix [iree] compile_flags): " +
                     base.message);
  // The default build's results on seeded inputs: every set must match.
  if (Error err = runner->makeReference("default"))
    return err;
  FlagChoice choice;
  for (auto [k, set] : enumerate(*sets))
    choice.sets.push_back(measureSet(*runner, set, formatv("set{0}", k).str()));
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
