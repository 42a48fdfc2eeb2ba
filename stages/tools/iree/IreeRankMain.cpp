//===- IreeRankMain.cpp - retune-iree-rank: measurements -> results -------===//
//
// The command line of the iree rank stage
// (stages/backends/iree/RankStage.h does the work).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/RankStage.h"
#include "stages/support/ToolMain.h"
#include "stages/tools/iree/ToolOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;
using namespace retune::iree;

#define RETUNE_STAGE_CATEGORY tools::category()
#include "stages/tools/StageDeclare.h"
#include "stages/tools/iree/IreeRank.def"

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-rank: rank each candidate's measurement by its ratio to "
      "the same device's baseline (before and after the candidates) and "
      "write results/<id>/<n>.json.\n");
  retune::iree::RankOptions options;
  options.candidatesPath = candidatesPath;
  options.measureDir = measureDir;
  options.outputDir = outputDir;
  options.devices.assign(devices.begin(), devices.end());
  return finishTool("retune-iree-rank", iree::runRankStage(options));
}
