//===- IreeCompileMain.cpp - retune-iree-compile: spec + dispatch -> vmfb -===//
//
// The command line of the iree compile stage
// (stages/backends/iree/CompileStage.h does the work).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/CompileStage.h"
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
#include "stages/tools/iree/IreeCompile.def"

static auto &cacheDir = cacheDirOption(tools::category());

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-compile: compile a dispatch benchmark with a tuning spec "
      "into a vmfb and write a compile record.\n\nFailures of the compile "
      "(errors, crashes, timeouts, no vmfb) are records with exit code 0.\n");
  if (std::optional<std::string> spent = budgetSpent(recordPath))
    return finishTool("retune-iree-compile",
                      writeSkippedRecord(recordPath, *spent, /*isBench=*/false));
  retune::iree::CompileOptions options;
  options.iree = tools::toolOptionsFromCommandLine();
  options.inputPath = inputPath;
  options.specPath = specPath;
  options.vmfbPath = vmfbPath;
  options.recordPath = recordPath;
  options.timeoutSeconds = timeoutSeconds;
  options.memoryMB = memoryMB;
  options.cacheDir = cacheDir;
  return finishTool("retune-iree-compile",
                    iree::runCompileStage(options, argv[0]));
}
