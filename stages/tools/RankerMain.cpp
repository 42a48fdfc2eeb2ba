//===- RankerMain.cpp - retune-ranker: learn a candidate order ------------===//
//
// `retune-ranker train -o model.json <build dirs>` and `retune-ranker
// evaluate <build dirs>` (stages/search/ranker/RankerTool.h does the work).
//
//===----------------------------------------------------------------------===//
#include "stages/search/ranker/RankerTool.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;

static cl::SubCommand
    trainCommand("train",
                 "learn a candidate order from the measured candidates of "
                 "finished tunes' build directories");
static cl::SubCommand
    evaluateCommand("evaluate",
                    "trials to 5% of the best candidate: random order, the "
                    "heuristic's and a model trained on the other dispatches");

static cl::list<std::string> buildDirs(cl::Positional, cl::OneOrMore,
                                       cl::desc("<tune build directories>"),
                                       cl::sub(trainCommand),
                                       cl::sub(evaluateCommand));
static cl::opt<std::string> output("o", cl::Required,
                                   cl::desc("model file to write"),
                                   cl::value_desc("ranker.json"),
                                   cl::sub(trainCommand));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-ranker: train a learned order of CPU candidates on what tunes "
      "measured, or measure how much it saves.\n");
  ranker::RankerToolOptions options;
  options.buildDirs.assign(buildDirs.begin(), buildDirs.end());
  options.output = output;
  if (trainCommand)
    return finishTool("retune-ranker train", ranker::runTrain(options, outs()));
  if (evaluateCommand)
    return finishTool("retune-ranker evaluate",
                      ranker::runEvaluate(options, outs()));
  errs() << "retune-ranker: name a subcommand: train or evaluate (--help)\n";
  return 1;
}
