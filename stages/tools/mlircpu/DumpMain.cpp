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
static cl::opt<std::string>
    modelPath("model", cl::Required,
              cl::desc("linalg-on-tensors model (.mlir)"), cl::cat(category));
static cl::opt<std::string>
    outputDir("output-dir", cl::Required,
              cl::desc("directory for index.json and <id>/dispatch.mlir"),
              cl::cat(category));
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
