//===- RetuneMain.cpp - the retune command --------------------------------===//
//
//   retune plan <tune.toml> -B <build dir>   validate the config, write build.ninja
//   retune status -B <build dir>             what is tuned, running, failed
//
//===----------------------------------------------------------------------===//
#include "pipeline/Planner.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Records.h"
#include "stages/support/Subprocess.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

#ifndef RETUNE_RULES_DIR
#define RETUNE_RULES_DIR ""
#endif

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune options");
static cl::opt<std::string> command(cl::Positional, cl::Required,
                                    cl::desc("<plan|status>"), cl::cat(category));
static cl::opt<std::string> configFile(cl::Positional, cl::desc("<tune.toml>"),
                                       cl::cat(category));
static cl::opt<std::string> buildDir("B", cl::desc("build directory"),
                                     cl::value_desc("dir"), cl::init("build"),
                                     cl::cat(category));

/// Rules next to an installed binary (../share/retune/rules), else the
/// source tree this binary was built from.
static std::string rulesDir(StringRef toolDir) {
  if (const char *env = std::getenv("RETUNE_RULES_DIR"))
    return env;
  SmallString<256> installed(toolDir);
  sys::path::append(installed, "..", "share", "retune", "rules");
  if (sys::fs::is_directory(installed))
    return installed.str().str();
  return RETUNE_RULES_DIR;
}

static Error plan(const char *argv0) {
  if (configFile.empty())
    return makeError("usage: retune plan <tune.toml> -B <build dir>");
  Expected<pipeline::TuneConfig> config = pipeline::loadConfig(configFile);
  if (!config)
    return config.takeError();
  if (!sys::fs::exists(config->modelPath))
    return makeError(configFile + ": [model] path: " + config->modelPath +
                     ": no such file");
  SmallString<256> build(buildDir);
  sys::fs::make_absolute(build);
  if (std::error_code ec = sys::fs::create_directories(build))
    return makeError(build + ": cannot create: " + ec.message());
  pipeline::PlannerPaths paths;
  paths.buildDir = build.str().str();
  paths.toolDir = sys::path::parent_path(currentExecutable(argv0)).str();
  paths.rulesDir = rulesDir(paths.toolDir);
  return pipeline::writePlan(*config, paths);
}

static Error status() {
  std::string index = buildDir + "/dispatches/index.json";
  Expected<DispatchIndex> dispatches =
      readRecord<DispatchIndex>(index, schema::kDispatches, dispatchIndexFromJson);
  if (!dispatches)
    return dispatches.takeError();
  for (const DispatchEntry &d : dispatches->dispatches) {
    std::string best = buildDir + "/best/" + d.id + ".json";
    std::string state = "pending";
    if (Expected<json::Value> v = readJsonFile(best, schema::kSelect))
      state = v->getAsObject()->getString("reason").value_or("").str();
    else
      consumeError(v.takeError());
    outs() << d.id << "  " << d.name << "  " << state << "\n";
  }
  return Error::success();
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune: tune every hot dispatch of a model and link the winners into "
      "one tuning spec.\n\n  retune plan tune.toml -B build && ninja -C build "
      "tune\n  retune status -B build\n");
  if (command == "plan")
    return finishTool("retune", plan(argv[0]));
  if (command == "status")
    return finishTool("retune", status());
  return finishTool("retune", makeError("unknown command '" + command +
                                        "'; use plan or status"));
}
