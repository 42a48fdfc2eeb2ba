//===- CompileWorkerMain.cpp - retune-compile-worker: the compile itself --===//
//
// Run by retune-compile on a cache miss, as a child under limits; not a
// tool to call by hand. Links MLIR, LLVM's code generators and lld
// (stages/backends/mlircpu/CompileWorker.h does the work).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/CompileWorker.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-compile-worker options");
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
static cl::opt<std::string> key("key", cl::desc("the record's cache key"),
                                cl::cat(category));
static cl::opt<std::string>
    injectFault("inject-fault", cl::Hidden,
                cl::desc("tests: crash, hang or wrong numbers"));
static cl::list<std::string> compilerFlags(
    "compiler-flag",
    cl::desc("an option of this compiler (see --help-hidden), repeatable"),
    cl::cat(category));

/// Applies the compiler flags as this process's own options, once they are
/// known to name registered ones.
static bool applyCompilerFlags(const char *argv0) {
  std::vector<const char *> argv = {argv0};
  for (const std::string &flag : compilerFlags)
    argv.push_back(flag.c_str());
  return cl::ParseCommandLineOptions(argv.size(), argv.data(), "", &errs());
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-compile-worker: the compile of retune-compile, run by it on a "
      "cache miss.\n");
  std::vector<std::string> flags(compilerFlags.begin(), compilerFlags.end());
  if (Error err = mlircpu::checkCompilerFlags(flags)) {
    errs() << "retune-compile-worker: " << toString(std::move(err)) << "\n";
    return mlircpu::kUnknownCompilerFlagExit;
  }
  if (!applyCompilerFlags(argv[0]))
    return mlircpu::kUnknownCompilerFlagExit;
  mlircpu::CompileWorkerOptions options;
  options.payloadPath = payloadPath;
  options.specPath = specPath;
  options.outputPath = outputPath;
  options.recordPath = recordPath;
  options.threads = threads;
  options.key = key;
  options.injectFault = injectFault;
  return finishTool("retune-compile-worker",
                    mlircpu::runCompileWorker(options));
}
