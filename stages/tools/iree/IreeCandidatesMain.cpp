//===- IreeCandidatesMain.cpp - retune-iree-candidates: space -> specs ---===//
//
// The command line of the iree candidates stage
// (stages/backends/iree/CandidatesStage.h does the work).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/CandidatesStage.h"
#include "stages/core/Defaults.h"
#include "stages/support/ToolMain.h"
#include "stages/tools/iree/ToolOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;
using namespace retune::iree;

static cl::opt<std::string>
    problemPath("problem", cl::Required,
                cl::desc("dispatches/<id>/problem.json"),
                cl::cat(tools::category()));
static cl::opt<std::string>
    dispatchPath("dispatch", cl::Required,
                 cl::desc("dispatches/<id>/dispatch.mlir"),
                 cl::cat(tools::category()));
static cl::opt<std::string> gpuOptionsPath("gpu-options",
                                           cl::desc("TOML with a [gpu] table"),
                                           cl::cat(tools::category()));
static cl::opt<std::string> outputDir("output-dir", cl::Required,
                                      cl::desc("candidates/<id> directory"),
                                      cl::cat(tools::category()));
static cl::opt<unsigned>
    candidateCount("count", cl::init(defaults::kCandidates),
                   cl::desc("candidates to emit, best ordered first"),
                   cl::cat(tools::category()));
static cl::opt<std::string> skipReason("skip-reason",
                                       cl::desc("emit no candidates and record "
                                                "this reason"),
                                       cl::cat(tools::category()));

static cl::opt<std::string> verifiedPath(
    "verified",
    cl::desc("after a compiler change: verify/<id>/best.json; a previous "
             "winner that still wins is the only candidate"),
    cl::cat(tools::category()));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-candidates: enumerate the search space of one dispatch "
      "(ROCm: stages/gpu; llvm-cpu: the CPU knob space) and write the first "
      "--count configurations as verified IREE tuning specs, plus "
      "baseline.spec.mlir.\n");
  retune::iree::CandidatesOptions options;
  options.iree = iree::tools::toolOptionsFromCommandLine();
  options.problemPath = problemPath;
  options.dispatchPath = dispatchPath;
  options.gpuOptionsPath = gpuOptionsPath;
  options.outputDir = outputDir;
  options.candidateCount = candidateCount;
  options.skipReason = skipReason;
  options.verifiedPath = verifiedPath;
  return finishTool("retune-iree-candidates",
                    iree::runCandidatesStage(options));
}
