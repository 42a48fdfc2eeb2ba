//===- ToolOptions.cpp - Options every retune-iree-* tool shares ----------===//
#include "stages/tools/iree/ToolOptions.h"

using namespace llvm;

namespace retune::iree::tools {

cl::OptionCategory &category() {
  static cl::OptionCategory options("retune-iree options");
  return options;
}

namespace {
cl::opt<std::string> compilePath("iree-compile",
                                 cl::desc("iree-compile (default: PATH)"),
                                 cl::cat(category()));
cl::opt<std::string> optPath("iree-opt", cl::desc("iree-opt (default: PATH)"),
                             cl::cat(category()));
cl::opt<std::string>
    benchmarkPath("iree-benchmark-module",
                  cl::desc("iree-benchmark-module (default: PATH)"),
                  cl::cat(category()));
cl::opt<std::string> version("iree-version",
                             cl::desc("IREE release, e.g. 3.11.0 (default: "
                                      "ask iree-compile --version)"),
                             cl::cat(category()));
cl::list<std::string> compileFlagList("compile-flag",
                                      cl::desc("a flag for iree-compile "
                                               "(repeat; the model's target)"),
                                      cl::cat(category()));
cl::list<std::string> benchFlagList("bench-flag",
                                    cl::desc("a flag for iree-benchmark-module "
                                             "(repeat; the model's inputs)"),
                                    cl::cat(category()));
cl::list<std::string> deviceFlagList(
    "device-flag",
    cl::desc("a flag of the device for every run of a module (repeat; "
             "--task_topology_group_count=N for [tune] threads)"),
    cl::cat(category()));
} // namespace

void parseOptions(int argc, char **argv, StringRef overview) {
  cl::HideUnrelatedOptions(category());
  cl::ParseCommandLineOptions(argc, argv, overview);
}

IreeToolOptions toolOptionsFromCommandLine() {
  IreeToolOptions options;
  options.compile = compilePath;
  options.opt = optPath;
  options.benchmark = benchmarkPath;
  options.version = version;
  options.compileFlags.assign(compileFlagList.begin(), compileFlagList.end());
  options.benchFlags.assign(benchFlagList.begin(), benchFlagList.end());
  options.deviceFlags.assign(deviceFlagList.begin(), deviceFlagList.end());
  return options;
}

} // namespace retune::iree::tools
