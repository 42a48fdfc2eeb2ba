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

static cl::opt<std::string>
    compileRecordPath("compile-record", cl::Required,
                      cl::desc("artifacts/<id>/<n>.json"),
                      cl::cat(tools::category()));
static cl::opt<std::string> outputPath("output", cl::Required,
                                       cl::desc("measurement record to write"),
                                       cl::cat(tools::category()));
static cl::opt<std::string> device("device", cl::Required,
                                   cl::desc("IREE device URI (hip://0, "
                                            "local-task, ...)"),
                                   cl::cat(tools::category()));
static cl::opt<unsigned> repetitions("repetitions", cl::init(defaults::kIreeRepetitions),
                                     cl::desc("--benchmark_repetitions"),
                                     cl::cat(tools::category()));
static cl::opt<unsigned> timeoutSeconds("timeout", cl::init(defaults::kBenchTimeoutSeconds),
                                        cl::desc("seconds before the "
                                                 "benchmark is killed"),
                                        cl::cat(tools::category()));
static cl::opt<std::string>
    baselineRecordPath("baseline-record",
                       cl::desc("the baseline's compile record: a candidate "
                                "whose module is identical is not_applied"),
                       cl::cat(tools::category()));
static cl::opt<std::string> baselineMeasurePath(
    "baseline-measure",
    cl::desc("the device's baseline measurement before the candidates: a "
             "candidate whose first repetition takes over 2x its median is "
             "stopped there"),
    cl::cat(tools::category()));
static cl::opt<std::string> reuseDir("reuse-dir",
                                     cl::desc("measurements by module hash "
                                              "and device"),
                                     cl::cat(tools::category()));


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
