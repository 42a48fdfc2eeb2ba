//===- BenchWorkerMain.cpp - retune-bench-worker: the measurement itself --===//
//
// Run by retune-bench on a cache miss, as a child under a timeout; not a
// tool to call by hand (stages/backends/mlircpu/BenchWorker.h does the
// work).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/BenchWorker.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-bench-worker options");
static cl::opt<std::string>
    baselinePath("baseline", cl::Required,
                 cl::desc("compile record of the baseline"), cl::cat(category));
static cl::opt<std::string>
    candidatePath("candidate", cl::Required,
                  cl::desc("compile record of the candidate"),
                  cl::cat(category));
static cl::opt<std::string> outputPath("output", cl::Required,
                                       cl::desc("bench record to write"),
                                       cl::cat(category));
static cl::opt<std::string>
    functionName("function",
                 cl::desc("function to time (default: the only one)"),
                 cl::cat(category));
static cl::opt<unsigned> warmup("warmup", cl::Required,
                                cl::desc("untimed calls before sampling"),
                                cl::cat(category));
static cl::opt<unsigned> repetitions("repetitions", cl::Required,
                                     cl::desc("timed samples per kernel"),
                                     cl::cat(category));
static cl::opt<double> minSample("min-sample-s", cl::Required,
                                 cl::desc("minimum duration of one sample"),
                                 cl::cat(category));
static cl::opt<unsigned> seed("seed", cl::Required,
                              cl::desc("seed of the random inputs"),
                              cl::cat(category));
static cl::opt<std::string> key("key", cl::desc("the record's cache key"),
                                cl::cat(category));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-bench-worker: the measurement of retune-bench, run by it on a "
      "cache miss.\n");
  mlircpu::BenchWorkerOptions options;
  options.baselinePath = baselinePath;
  options.candidatePath = candidatePath;
  options.outputPath = outputPath;
  options.functionName = functionName;
  options.warmup = warmup;
  options.repetitions = repetitions;
  options.minSample = minSample;
  options.seed = seed;
  options.key = key;
  return finishTool("retune-bench-worker", mlircpu::runBenchWorker(options));
}
