//===- IreeDumpMain.cpp - retune-iree-dump: a model's dispatches ---------===//
//
// The command line of the iree dump stage (stages/backends/iree/DumpStage.h
// does the work).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/DumpStage.h"
#include "stages/core/Defaults.h"
#include "stages/support/ToolMain.h"
#include "stages/tools/iree/ToolOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;
using namespace retune::iree;

static cl::opt<std::string> modelPath("model", cl::Required,
                                      cl::desc("the model iree-compile reads"),
                                      cl::cat(tools::category()));
static cl::opt<std::string> outputDir("output-dir", cl::Required,
                                      cl::desc("dispatches directory"),
                                      cl::cat(tools::category()));
static cl::opt<std::string> workDir("work-dir", cl::Required,
                                    cl::desc("scratch directory (benchmarks, "
                                             "logs)"),
                                    cl::cat(tools::category()));
static cl::opt<std::string> profilePath("profile",
                                        cl::desc("weigh dispatches by this "
                                                 "profile's times"),
                                        cl::cat(tools::category()));
static cl::opt<unsigned> timeoutSeconds("timeout", cl::init(defaults::kIreeDumpTimeoutSeconds),
                                        cl::desc("seconds the dump may take"),
                                        cl::cat(tools::category()));
static cl::opt<std::string>
    timeDevice("device",
               cl::desc("time each dispatch with IREE's default config on "
                        "this device: shares are time x calls (empty: "
                        "FLOPs x calls)"),
               cl::cat(tools::category()));
static cl::opt<unsigned> repetitions("repetitions", cl::init(3),
                                     cl::desc("benchmark repetitions of each "
                                              "dispatch's timing"),
                                     cl::cat(tools::category()));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-dump: dump a model's dispatch benchmarks with iree-compile, "
      "strip their configurations with iree-opt and write "
      "<output-dir>/index.json, <id>/problem.json and <id>/dispatch.mlir "
      "(unchanged files keep their mtime).\n");
  retune::iree::DumpOptions options;
  options.iree = tools::toolOptionsFromCommandLine();
  options.modelPath = modelPath;
  options.outputDir = outputDir;
  options.workDir = workDir;
  options.profilePath = profilePath;
  options.timeoutSeconds = timeoutSeconds;
  options.timeDevice = timeDevice;
  options.repetitions = repetitions;
  return finishTool("retune-iree-dump", iree::runDumpStage(options));
}
