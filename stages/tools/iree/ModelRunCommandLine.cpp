//===- ModelRunCommandLine.cpp - The flags of whole-model runs ------------===//
#include "stages/tools/iree/ModelRunCommandLine.h"

#include "cache/ContentCache.h"
#include "stages/core/Defaults.h"
#include "stages/support/ToolMain.h"
#include "stages/tools/iree/ToolOptions.h"

#include "llvm/Support/CommandLine.h"

using namespace llvm;

namespace retune::iree::tools {
namespace {
cl::opt<std::string> modelPath("model", cl::Required, cl::desc("the model"),
                               cl::cat(category()));
cl::opt<std::string> workDir("work-dir", cl::Required,
                             cl::desc("directory for the model's builds"),
                             cl::cat(category()));
cl::opt<std::string> device("device", cl::init("hip://0"),
                            cl::desc("device URI"), cl::cat(category()));
cl::opt<std::string> entry("entry",
                           cl::desc("function to benchmark (default: the "
                                    "only public one)"),
                           cl::cat(category()));
cl::opt<unsigned> repetitions("repetitions", cl::init(defaults::kIreeRepetitions),
                              cl::desc("--benchmark_repetitions per run"),
                              cl::cat(category()));
cl::opt<unsigned> rounds("rounds", cl::init(defaults::kModelRounds),
                         cl::desc("reference/other alternations"),
                         cl::cat(category()));
cl::opt<unsigned> compileTimeout("compile-timeout", cl::init(defaults::kCompileTimeoutSeconds),
                                 cl::cat(category()));
cl::opt<unsigned> benchTimeout("bench-timeout", cl::init(defaults::kBenchTimeoutSeconds),
                               cl::cat(category()));
auto &cacheDir = cacheDirOption(category());
} // namespace

ModelRunOptions modelRunOptionsFromCommandLine() {
  ModelRunOptions options;
  options.iree = toolOptionsFromCommandLine();
  options.modelPath = modelPath;
  options.workDir = workDir;
  options.device = device;
  options.entry = entry;
  options.repetitions = repetitions;
  options.rounds = rounds;
  options.compileTimeout = compileTimeout;
  options.benchTimeout = benchTimeout;
  options.cacheRoot = ContentCache::rootFor(cacheDir);
  return options;
}

} // namespace retune::iree::tools
