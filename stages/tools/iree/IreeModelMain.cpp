//===- IreeModelMain.cpp - retune-iree-model: does the spec help? ---------===//
//
// The command line of the iree model stage
// (stages/backends/iree/ModelStage.h does the work); the whole-model flags
// are shared with retune-iree-flags (ModelRunCommandLine.h).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/ModelStage.h"
#include "stages/core/Defaults.h"
#include "stages/support/ToolMain.h"
#include "stages/tools/iree/ModelRunCommandLine.h"
#include "stages/tools/iree/ToolOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;
using namespace retune::iree;

static cl::opt<std::string> linkedPath("linked", cl::Required,
                                       cl::desc("spec/linked.mlir"),
                                       cl::cat(tools::category()));
static cl::list<std::string> selections(cl::Positional, cl::ZeroOrMore,
                                        cl::desc("<best/<id>.json>..."),
                                        cl::cat(tools::category()));
static cl::opt<std::string> finalSpec("final-spec", cl::Required,
                                      cl::desc("tuning spec to write"),
                                      cl::cat(tools::category()));
static cl::opt<std::string> outputPath("output", cl::Required,
                                       cl::desc("model result record"),
                                       cl::cat(tools::category()));
static cl::opt<unsigned>
    inModel("in-model", cl::init(defaults::kModelCandidates),
            cl::desc("per dispatch, measure this many of its fastest "
                     "candidates alone in the whole model and keep the one "
                     "the model runs fastest with (0: the dispatch's winner)"),
            cl::cat(tools::category()));

static cl::opt<double>
    margin("margin", cl::init(defaults::kMargin),
           cl::desc("a spec is kept only when the model runs in less than "
                    "1 - max(margin, noise) of the baseline's time"),
           cl::cat(tools::category()));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-model: compile the whole model with and without the "
      "linked spec, benchmark both interleaved on one device, and write the "
      "final tuning spec (without the winners that do not help the model).\n");
  retune::iree::ModelOptions options;
  options.run = tools::modelRunOptionsFromCommandLine();
  options.linkedPath = linkedPath;
  options.selections.assign(selections.begin(), selections.end());
  options.finalSpec = finalSpec;
  options.outputPath = outputPath;
  options.inModel = inModel;
  options.margin = margin;
  return finishTool("retune-iree-model", iree::runModelStage(options));
}
