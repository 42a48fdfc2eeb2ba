//===- IreeCompileMain.cpp - retune-iree-compile: spec + dispatch -> vmfb -===//
//
// `iree-compile <dispatch> --compile-from=executable-sources` with one spec,
// under a timeout, with a crash reproducer next to the vmfb. Compile errors,
// crashes, timeouts and a vmfb that was not written are the record's status
// (exit 0); the record of an Ok compile carries the vmfb's hash, by which
// retune-iree-bench recognizes identical modules.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/IreeRun.h"
#include "stages/tools/iree/ToolOptions.h"
#include "stages/support/FileUtil.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

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
static cl::opt<unsigned> timeoutSeconds("timeout", cl::init(16),
                                        cl::desc("seconds before the compile "
                                                 "is killed"),
                                        cl::cat(tools::category()));
static cl::opt<unsigned> memoryMB("memory-mb", cl::init(0),
                                  cl::desc("memory limit (MiB, 0: none)"),
                                  cl::cat(tools::category()));

static Error run() {
  Expected<std::string> input = readFile(inputPath);
  if (!input)
    return input.takeError();
  Expected<IreeTools> ireeTools =
      tools::toolsFromOptions(sys::path::parent_path(recordPath));
  if (!ireeTools)
    return ireeTools.takeError();
  CompileRequest request;
  request.input = inputPath;
  request.specPath = specPath;
  request.vmfbPath = vmfbPath;
  request.reproducerPath = vmfbPath + ".crash.mlir";
  request.logPath = recordPath + ".log";
  request.flags = tools::compileFlags();
  request.family = tools::targetFamily(*input, inputPath);
  request.timeoutSeconds = timeoutSeconds;
  request.memoryMB = memoryMB;
  // A stale reproducer must not be blamed on this compile.
  sys::fs::remove(request.reproducerPath);
  CompileRecord record = compileCandidate(*ireeTools, request);
  return writeJsonFile(recordPath, toJson(record));
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-compile: compile a dispatch benchmark with a tuning spec "
      "into a vmfb and write a compile record.\n\nFailures of the compile "
      "(errors, crashes, timeouts, no vmfb) are records with exit code 0.\n");
  return finishTool("retune-iree-compile", run());
}
