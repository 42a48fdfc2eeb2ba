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

static cl::opt<std::string> setsPath("sets", cl::Required,
                                     cl::desc("flags/sets.json"),
                                     cl::cat(tools::category()));
static cl::opt<std::string> outputPath("output", cl::Required,
                                       cl::desc("flags/chosen.json"),
                                       cl::cat(tools::category()));
static cl::opt<std::string> flagsFile("flags-file", cl::Required,
                                      cl::desc("compile_flags.txt to write"),
                                      cl::cat(tools::category()));
static cl::opt<double> margin("margin", cl::init(defaults::kMargin),
                              cl::desc("a set must beat the default by this"),
                              cl::cat(tools::category()));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-flags: compile the whole model with each flag set of "
      "--sets added to the compile flags, check its results against the "
      "default build's, time it interleaved with the default build, and "
      "write the chosen set (--output) and the full flags (--flags-file).\n");
  retune::iree::FlagsOptions options;
  options.run = tools::modelRunOptionsFromCommandLine();
  options.setsPath = setsPath;
  options.outputPath = outputPath;
  options.flagsFile = flagsFile;
  options.margin = margin;
  return finishTool("retune-iree-flags", iree::runFlagsStage(options));
}
