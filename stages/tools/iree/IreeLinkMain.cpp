//===- IreeLinkMain.cpp - retune-iree-link: winners -> one IREE spec ------===//
//
// Links the winning spec of every dispatch with IREE's own linker
// (IreeLinker.h: iree-opt --iree-codegen-link-tuning-specs), verifies the
// result against IREE's tuning-spec rules and writes it. No winner at all
// gives a spec with an empty foreach_match.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/IreeLinker.h"
#include "stages/backends/iree/IreeIr.h"
#include "stages/backends/iree/IreeSpec.h"
#include "stages/core/WinnerPruning.h"
#include "stages/support/FileUtil.h"
#include "stages/support/ToolMain.h"
#include "stages/tools/iree/ToolOptions.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace retune;
using namespace retune::iree;

#define RETUNE_STAGE_CATEGORY tools::category()
#include "stages/tools/StageDeclare.h"
#include "stages/tools/iree/IreeLink.def"

static Error run() {
  Expected<std::vector<Winner>> winners = readWinners(selections);
  if (!winners)
    return winners.takeError();
  if (winners->empty())
    return writeTuningSpec(outputPath, emitTuningSpec({}));
  std::string workDir = sys::path::parent_path(outputPath).str();
  Expected<IreeTools> ireeTools =
      toolsFrom(tools::toolOptionsFromCommandLine(), workDir);
  if (!ireeTools)
    return ireeTools.takeError();
  Expected<std::string> linked = linkTuningSpecFiles(
      *ireeTools, specPaths(*winners), workDir, sys::path::stem(outputPath));
  if (!linked)
    return linked.takeError();
  return writeTuningSpec(outputPath, *linked,
                         IreeIrLibrary::forTool(ireeTools->compile));
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-link: link the winning spec of every dispatch into one "
      "IREE tuning spec (IREE's own linker, iree-opt; first matcher wins) "
      "and verify it.\n");
  return finishTool("retune-iree-link", run());
}
