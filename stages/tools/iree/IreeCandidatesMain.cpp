//===- IreeCandidatesMain.cpp - retune-iree-candidates: space -> specs ---===//
//
// The command line of the iree candidates stage
// (stages/backends/iree/CandidatesStage.h does the work).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/CandidatesStage.h"
#include "stages/core/Defaults.h"
#include "stages/support/ToolMain.h"
#include "stages/tools/iree/ToolOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;
using namespace retune::iree;

#define RETUNE_STAGE_CATEGORY tools::category()
#include "stages/tools/StageDeclare.h"
#include "stages/tools/iree/IreeCandidates.def"

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-candidates: enumerate the search space of one dispatch "
      "(ROCm: stages/gpu; llvm-cpu: the CPU knob space) and write the first "
      "--count configurations as verified IREE tuning specs, plus "
      "baseline.spec.mlir.\n");
  retune::iree::CandidatesOptions options;
  options.iree = iree::tools::toolOptionsFromCommandLine();
  options.problemPath = problemPath;
  options.dispatchPath = dispatchPath;
  options.gpuOptionsPath = gpuOptionsPath;
  options.outputDir = outputDir;
  options.candidateCount = candidateCount;
  options.skipReason = skipReason;
  options.verifiedPath = verifiedPath;
  return finishTool("retune-iree-candidates",
                    iree::runCandidatesStage(options));
}
