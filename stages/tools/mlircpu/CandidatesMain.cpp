//===- CandidatesMain.cpp - retune-candidates: the CPU space -> specs -----===//
//
// The command line of the candidates stage
// (stages/backends/mlircpu/CandidatesStage.h does the work).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/CandidatesStage.h"
#include "stages/core/Defaults.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-candidates options");
#define RETUNE_STAGE_CATEGORY category
#include "stages/tools/StageDeclare.h"
#include "stages/tools/mlircpu/Candidates.def"

static auto &cacheDir = cacheDirOption(category);

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-candidates: enumerate the CPU knob space of a dispatch with Z3 "
      "and write the cheapest --count configurations as tuning specs.\n");
  retune::mlircpu::CandidatesOptions options;
  options.problemPath = problemPath;
  options.outputDir = outputDir;
  options.candidateCount = candidateCount;
  options.threads = threads;
  options.skipReason = skipReason;
  options.verifiedPath = verifiedPath;
  options.cacheDir = cacheDir;
  options.rankerModelPath = rankerModelPath;
  options.explore = explore;
  return finishTool("retune-candidates",
                    mlircpu::runCandidatesStage(options, argv[0]));
}
