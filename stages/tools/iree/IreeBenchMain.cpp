//===- IreeBenchMain.cpp - retune-iree-bench: vmfb -> measurement ---------===//
//
// The command line of the iree bench stage
// (stages/backends/iree/BenchStage.h does the work).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/BenchStage.h"
#include "stages/core/Records.h"
#include "stages/support/RunBudget.h"
#include "stages/core/Defaults.h"
#include "stages/support/ToolMain.h"
#include "stages/tools/iree/ToolOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;
using namespace retune::iree;

#define RETUNE_STAGE_CATEGORY tools::category()
#include "stages/tools/StageDeclare.h"
#include "stages/tools/iree/IreeBench.def"

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-bench: benchmark a compiled module with "
      "iree-benchmark-module on one device and write its samples.\n\nA "
      "module that did not compile, crashes, hangs or reports an error gets "
      "a record with that status and exit code 0.\n");
  if (std::optional<std::string> spent = budgetSpent(outputPath))
    return finishTool("retune-iree-bench",
                      writeSkippedRecord(outputPath, *spent, /*isBench=*/true));
  retune::iree::BenchOptions options;
  options.iree = tools::toolOptionsFromCommandLine();
  options.compileRecordPath = compileRecordPath;
  options.outputPath = outputPath;
  options.device = device;
  options.repetitions = repetitions;
  options.timeoutSeconds = timeoutSeconds;
  options.baselineRecordPath = baselineRecordPath;
  options.reuseDir = reuseDir;
  options.baselineMeasurePath = baselineMeasurePath;
  return finishTool("retune-iree-bench", iree::runBenchStage(options));
}
