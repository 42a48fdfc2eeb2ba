//===- IreeDumpMain.cpp - retune-iree-dump: a model's dispatches ---------===//
//
// The command line of the iree dump stage (stages/backends/iree/DumpStage.h
// does the work).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/DumpStage.h"
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
#include "stages/tools/iree/IreeDump.def"

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-dump: dump a model's dispatch benchmarks with iree-compile, "
      "strip their configurations with iree-opt and write "
      "<output-dir>/index.json, <id>/problem.json and <id>/dispatch.mlir "
      "(unchanged files keep their mtime).\n");
  retune::iree::DumpOptions options;
  options.iree = tools::toolOptionsFromCommandLine();
  options.modelPath = modelPath;
  options.outputDir = outputDir;
  options.workDir = workDir;
  options.profilePath = profilePath;
  options.timeoutSeconds = timeoutSeconds;
  options.timeDevice = timeDevice;
  options.entry = entry;
  options.repetitions = repetitions;
  options.flagChoicePath = flagChoicePath;
  return finishTool("retune-iree-dump", iree::runDumpStage(options));
}
