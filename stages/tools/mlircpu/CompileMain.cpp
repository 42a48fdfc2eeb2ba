//===- CompileMain.cpp - retune-compile: spec + payload -> shared object --===//
//
// The command line of the compile stage (stages/backends/mlircpu/
// CompileStage.h does the work).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/CompileStage.h"
#include "stages/core/Records.h"
#include "stages/support/RunBudget.h"
#include "stages/core/Defaults.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-compile options");
#define RETUNE_STAGE_CATEGORY category
#include "stages/tools/StageDeclare.h"
#include "stages/tools/mlircpu/Compile.def"

static auto &cacheDir = cacheDirOption(category);
int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-compile: compile an MLIR module with a tuning spec into a "
      "shared object for this CPU.\n\nFailures of the compile itself (errors, "
      "crashes, timeouts) are written to --record with status != ok and exit "
      "code 0; only bad invocations exit non-zero.\n");
  if (std::optional<std::string> spent = budgetSpent(recordPath))
    return finishTool("retune-compile",
                      writeSkippedRecord(recordPath, *spent, /*isBench=*/false));
  retune::mlircpu::CompileOptions options;
  options.payloadPath = payloadPath;
  options.specPath = specPath;
  options.outputPath = outputPath;
  options.recordPath = recordPath;
  options.threads = threads;
  options.timeoutSeconds = timeoutSeconds;
  options.memoryMB = memoryMB;
  options.cacheDir = cacheDir;
  options.compilerFlags.assign(compilerFlags.begin(), compilerFlags.end());
  return finishTool("retune-compile",
                    mlircpu::runCompileStage(options, argv[0]));
}
