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
static cl::opt<std::string>
    problemPath("problem", cl::Required,
                cl::desc("dispatches/<id>/problem.json"), cl::cat(category));
static cl::opt<std::string> outputDir("output-dir", cl::Required,
                                      cl::desc("candidates/<id> directory"),
                                      cl::cat(category));
static cl::opt<unsigned>
    candidateCount("count", cl::init(defaults::kCandidates),
                   cl::desc("candidates to emit (the cheapest first)"),
                   cl::cat(category));
static cl::opt<unsigned> threads("code-threads", cl::init(1),
                                 cl::desc("threads the generated code may use"),
                                 cl::cat(category));

static cl::opt<std::string>
    skipReason("skip-reason",
               cl::desc("emit no candidates and record this reason"),
               cl::cat(category));

static cl::opt<std::string> verifiedPath(
    "verified",
    cl::desc("after a compiler change: verify/<id>/best.json; a previous "
             "winner that still wins is the only candidate"),
    cl::cat(category));

static auto &cacheDir = cacheDirOption(category);

static cl::opt<std::string> rankerModelPath(
    "ranker-model",
    cl::desc("order candidates by this retune-ranker model (the heuristic's "
             "order where it saw too few dispatches like this one)"),
    cl::cat(category));

static cl::opt<unsigned>
    explore("explore", cl::init(0),
            cl::desc("with --ranker-model: keep the heuristic's best N too"),
            cl::cat(category));

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
