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
static cl::opt<std::string> payloadPath("payload", cl::Required,
                                        cl::desc("MLIR module to compile"),
                                        cl::cat(category));
static cl::opt<std::string>
    specPath("spec", cl::desc("tuning spec (omit for the baseline)"),
             cl::cat(category));
static cl::opt<std::string> outputPath("output", cl::Required,
                                       cl::desc("shared object to write"),
                                       cl::cat(category));
static cl::opt<std::string> recordPath("record", cl::Required,
                                       cl::desc("compile record to write"),
                                       cl::cat(category));
static cl::opt<unsigned> threads("code-threads", cl::init(1),
                                 cl::desc("threads of the generated code"),
                                 cl::cat(category));
static cl::opt<unsigned>
    timeoutSeconds("timeout", cl::init(defaults::kCompileTimeoutSeconds),
                   cl::desc("seconds before the compile is killed"),
                   cl::cat(category));
static cl::opt<unsigned> memoryMB("memory-mb", cl::init(defaults::kCompileMemoryMB),
                                  cl::desc("memory limit of the compile (MiB)"),
                                  cl::cat(category));
static auto &cacheDir = cacheDirOption(category);
static cl::list<std::string> compilerFlags(
    "compiler-flag",
    cl::desc("an option of the compiler itself (a --retune-* codegen option "
             "or LLVM's; see retune-compile-worker --help-hidden), "
             "repeatable"),
    cl::cat(category));

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
