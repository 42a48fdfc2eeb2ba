//===- IreeFlagsMain.cpp - retune-iree-flags: the model's compile flags ---===//
//
// The command line of the iree flags stage
// (stages/backends/iree/FlagsStage.h does the work); the whole-model flags
// are shared with retune-iree-model (ModelRunCommandLine.h).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/FlagsStage.h"
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
#include "stages/tools/iree/IreeFlags.def"

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-flags: compile the whole model with each flag set of "
      "--sets added to the compile flags, check its results against the "
      "default build's, time it interleaved with the default build, and "
      "write the chosen set (--output) and the full flags (--flags-file). A "
      "model with strided ConvTransposes, convolutions whose windows tile "
      "their input or Gemms that share their weights is rewritten first "
      "(<work dir>/rewritten.mlir: stride phases, a Gemm of the patches, "
      "one batched Gemm), and every set builds from that.\n");
  retune::iree::FlagsOptions options;
  options.run = tools::modelRunOptionsFromCommandLine();
  options.setsPath = setsPath;
  options.outputPath = outputPath;
  options.flagsFile = flagsFile;
  options.margin = margin;
  options.rewriteModel = !noModelRewrite;
  return finishTool("retune-iree-flags", iree::runFlagsStage(options));
}
