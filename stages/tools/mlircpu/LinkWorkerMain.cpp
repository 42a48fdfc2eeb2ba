//===- LinkWorkerMain.cpp - retune-link-worker: the MLIR linking ----------===//
//
// Run by retune-link on a cache miss; not a tool to call by hand.
// stages/backends/mlircpu/SpecLinker.h does the work.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/SpecLinker.h"
#include "stages/support/FileUtil.h"
#include "stages/support/HashedFile.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;

static cl::list<std::string> specPaths("spec",
                                       cl::desc("a spec to link (in order)"));
static cl::opt<std::string> header("header",
                                   cl::desc("comment of the linked spec"));
static cl::opt<std::string> outputPath("output", cl::Required,
                                       cl::desc("linked spec to write"));

static Error run() {
  std::vector<std::string> specs(specPaths.begin(), specPaths.end());
  Expected<std::string> linked = link::linkSpecs(specs, header);
  if (!linked)
    return linked.takeError();
  return writeHashedFile(outputPath, *linked);
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-link-worker: the linking of retune-link, run by it on a cache "
      "miss.\n");
  return finishTool("retune-link-worker", run());
}
