//===- DumpMain.cpp - retune-dump: model -> dispatches --------------------===//
//
// The command line of the dump stage (stages/backends/mlircpu/DumpStage.h
// does the work).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/DumpStage.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-dump options");
#define RETUNE_STAGE_CATEGORY category
#include "stages/tools/StageDeclare.h"
#include "stages/tools/mlircpu/Dump.def"

static auto &cacheDir = cacheDirOption(category);

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-dump: split a linalg-on-tensors model into one dispatch per "
      "contraction or convolution, with its fill.\n\nWrites "
      "<output-dir>/index.json (ids, names, FLOPs, shares) and "
      "<output-dir>/<id>/dispatch.mlir; unchanged files keep their mtime.\n");
  mlircpu::DumpOptions options;
  options.modelPath = modelPath;
  options.outputDir = outputDir;
  options.cacheDir = cacheDir;
  return finishTool("retune-dump", mlircpu::runDumpStage(options, argv[0]));
}
