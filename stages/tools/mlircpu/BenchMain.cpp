//===- BenchMain.cpp - retune-bench: time a candidate against the baseline ===//
//
// The command line of the bench stage (stages/backends/mlircpu/BenchStage.h
// does the work).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/BenchStage.h"
#include "stages/core/Records.h"
#include "stages/support/RunBudget.h"
#include "stages/core/Defaults.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-bench options");
static cl::opt<std::string>
    baselinePath("baseline", cl::Required,
                 cl::desc("compile record of the baseline"), cl::cat(category));
static cl::opt<std::string>
    candidatePath("candidate", cl::Required,
                  cl::desc("compile record of the candidate"),
                  cl::cat(category));
static cl::opt<std::string> outputPath("output", cl::Required,
                                       cl::desc("bench record to write"),
                                       cl::cat(category));
static cl::opt<std::string>
    functionName("function",
                 cl::desc("function to time (default: the only one)"),
                 cl::cat(category));
static cl::opt<unsigned> warmup("warmup", cl::init(defaults::kWarmup),
                                cl::desc("untimed calls before sampling"),
                                cl::cat(category));
static cl::opt<unsigned> repetitions("repetitions", cl::init(defaults::kRepetitions),
                                     cl::desc("timed samples per kernel"),
                                     cl::cat(category));
static cl::opt<double> minSample("min-sample-s", cl::init(defaults::kMinSampleSeconds),
                                 cl::desc("minimum duration of one sample"),
                                 cl::cat(category));
static cl::opt<unsigned> seed("seed", cl::init(defaults::kSeed),
                              cl::desc("seed of the random inputs"),
                              cl::cat(category));
static cl::opt<unsigned>
    timeoutSeconds("timeout", cl::init(defaults::kBenchTimeoutSeconds),
                   cl::desc("seconds before the bench is killed"),
                   cl::cat(category));
static auto &cacheDir = cacheDirOption(category);

static cl::opt<bool> measureIdentical(
    "measure-identical",
    cl::desc("measure a candidate whose code is the baseline's (else it is "
             "not_applied)"),
    cl::cat(category));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-bench: check a compiled candidate against the baseline and "
      "time both, interleaved.\n\nA candidate that failed to compile, "
      "crashes, hangs or computes wrong numbers gets a record with that "
      "status and exit code 0.\n");
  if (std::optional<std::string> spent = budgetSpent(outputPath))
    return finishTool("retune-bench", writeSkippedRecord(outputPath, *spent, /*isBench=*/true));
  retune::mlircpu::BenchOptions options;
  options.baselinePath = baselinePath;
  options.candidatePath = candidatePath;
  options.outputPath = outputPath;
  options.functionName = functionName;
  options.warmup = warmup;
  options.repetitions = repetitions;
  options.minSample = minSample;
  options.seed = seed;
  options.timeoutSeconds = timeoutSeconds;
  options.cacheDir = cacheDir;
  options.measureIdentical = measureIdentical;
  return finishTool("retune-bench", mlircpu::runBenchStage(options, argv[0]));
}
