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
#define RETUNE_STAGE_CATEGORY category
#include "stages/tools/StageDeclare.h"
#include "stages/tools/mlircpu/Bench.def"

static auto &cacheDir = cacheDirOption(category);

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
