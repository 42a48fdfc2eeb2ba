//===- ModelMain.cpp - retune-model: the whole model with the winners -----===//
//
// The command line of the model stage (stages/backends/mlircpu/ModelStage.h
// does the work).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/ModelStage.h"
#include "stages/core/Defaults.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-model options");
static cl::opt<std::string> modelPath("model", cl::Required,
                                      cl::desc("the model (.mlir)"),
                                      cl::cat(category));
static cl::list<std::string> selections(cl::Positional, cl::ZeroOrMore,
                                        cl::desc("<best/<id>.json>..."),
                                        cl::cat(category));
static cl::opt<std::string> workDir("work-dir", cl::Required,
                                    cl::desc("directory for model builds"),
                                    cl::cat(category));
static cl::opt<std::string> finalSpec("final-spec",
                                      cl::desc("tuning spec to write"),
                                      cl::cat(category));
static cl::opt<std::string>
    outputPath("output", cl::desc("model result record"), cl::cat(category));
static cl::opt<bool> baselineOnly(
    "baseline-only",
    cl::desc("only compile the model without a spec (<work-dir>/baseline."
             "json) and fail if it does not compile; a later run reuses it"),
    cl::cat(category));
static cl::opt<std::string> entry("entry", cl::desc("function to time"),
                                  cl::cat(category));
static cl::opt<unsigned> threads("code-threads", cl::init(1),
                                 cl::desc("threads of the generated code"),
                                 cl::cat(category));
static cl::opt<unsigned> warmup("warmup", cl::init(defaults::kWarmup), cl::cat(category));
static cl::opt<unsigned> repetitions("repetitions", cl::init(defaults::kRepetitions),
                                     cl::cat(category));
static cl::opt<double> minSample("min-sample-s", cl::init(defaults::kMinSampleSeconds),
                                 cl::cat(category));
static cl::opt<unsigned> compileTimeout("compile-timeout", cl::init(defaults::kCompileTimeoutSeconds),
                                        cl::cat(category));
static cl::opt<unsigned> benchTimeout("bench-timeout", cl::init(defaults::kBenchTimeoutSeconds),
                                      cl::cat(category));
static auto &cacheDir = cacheDirOption(category);

static cl::list<std::string>
    compilerFlags("compiler-flag",
                  cl::desc("passed to every compile (retune-compile "
                           "--compiler-flag), repeatable"),
                  cl::cat(category));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-model: compile the whole model with and without the linked "
      "winners, check the outputs agree, time both interleaved, drop "
      "winners that hurt, and write the final tuning spec.\n");
  retune::mlircpu::ModelOptions options;
  options.modelPath = modelPath;
  options.compilerFlags.assign(compilerFlags.begin(), compilerFlags.end());
  options.workDir = workDir;
  options.finalSpec = finalSpec;
  options.outputPath = outputPath;
  options.baselineOnly = baselineOnly;
  options.entry = entry;
  options.threads = threads;
  options.warmup = warmup;
  options.repetitions = repetitions;
  options.minSample = minSample;
  options.compileTimeout = compileTimeout;
  options.benchTimeout = benchTimeout;
  options.cacheDir = cacheDir;
  options.selections.assign(selections.begin(), selections.end());
  return finishTool("retune-model", mlircpu::runModelStage(options, argv[0]));
}
