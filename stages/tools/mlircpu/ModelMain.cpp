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
#define RETUNE_STAGE_CATEGORY category
#include "stages/tools/StageDeclare.h"
#include "stages/tools/mlircpu/Model.def"

static auto &cacheDir = cacheDirOption(category);

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
