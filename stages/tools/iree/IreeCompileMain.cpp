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

static cl::opt<std::string> inputPath("input", cl::Required,
                                      cl::desc("dispatches/<id>/dispatch.mlir"),
                                      cl::cat(tools::category()));
static cl::opt<std::string> specPath("spec", cl::desc("tuning spec"),
                                     cl::cat(tools::category()));
static cl::opt<std::string> vmfbPath("vmfb", cl::Required,
                                     cl::desc("module to write"),
                                     cl::cat(tools::category()));
static cl::opt<std::string> recordPath("record", cl::Required,
                                       cl::desc("compile record to write"),
                                       cl::cat(tools::category()));
static cl::opt<unsigned> timeoutSeconds("timeout", cl::init(defaults::kCompileTimeoutSeconds),
                                        cl::desc("seconds before the compile "
                                                 "is killed"),
                                        cl::cat(tools::category()));
static cl::opt<unsigned> memoryMB("memory-mb", cl::init(0),
                                  cl::desc("memory limit (MiB, 0: none)"),
                                  cl::cat(tools::category()));

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
