//===- IreeModelMain.cpp - retune-iree-model: does the spec help? ---------===//
//
// The command line of the iree model stage
// (stages/backends/iree/ModelStage.h does the work); the whole-model flags
// are shared with retune-iree-flags (ModelRunCommandLine.h).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/ModelStage.h"
#include "stages/core/Defaults.h"
#include "stages/support/ToolMain.h"
#include "stages/tools/iree/ModelRunCommandLine.h"
#include "stages/tools/iree/ToolOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;
using namespace retune::iree;

#define RETUNE_STAGE_CATEGORY tools::category()
#include "stages/tools/StageDeclare.h"
#include "stages/tools/iree/IreeModel.def"

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-model: compile the whole model with and without the "
      "linked spec, benchmark both interleaved on one device, and write the "
      "final tuning spec (without the winners that do not help the model).\n");
  retune::iree::ModelOptions options;
  options.run = tools::modelRunOptionsFromCommandLine();
  options.linkedPath = linkedPath;
  options.selections.assign(selections.begin(), selections.end());
  options.finalSpec = finalSpec;
  options.outputPath = outputPath;
  options.inModel = inModel;
  options.margin = margin;
  return finishTool("retune-iree-model", iree::runModelStage(options));
}
