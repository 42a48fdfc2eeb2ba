//===- RetuneMain.cpp - the retune command --------------------------------===//
//
//   retune plan <tune.toml> -B <build dir>   validate the config, write build.ninja
//                [--budget <d>] [--pin-flag <f>...] [--tune-tied-set-of <dir>]
//   retune status -B <build dir>             what is tuned, running, failed
//   retune verify -B <build dir> [files...]  the first step of every build
//   retune cache <stats|clear|verify|repair> [tune.toml]
//
//===----------------------------------------------------------------------===//
#include "cache/ContentCache.h"
#include "pipeline/BuildState.h"
#include "pipeline/PlanChecks.h"
#include "pipeline/Planner.h"
#include "stages/backends/iree/ModelFlags.h"
#include "stages/support/FileUtil.h"
#include "stages/support/RunBudget.h"
#include "stages/core/Records.h"
#include "stages/core/Subprocess.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

#ifndef RETUNE_RULES_DIR
#define RETUNE_RULES_DIR ""
#endif

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune options");
static cl::list<std::string> operands(cl::Positional, cl::OneOrMore,
                                      cl::desc("<plan|status|verify|cache> [operands]"),
                                      cl::cat(category));
static cl::opt<std::string> buildDir("B", cl::desc("build directory"),
                                     cl::value_desc("dir"), cl::init("build"),
                                     cl::cat(category));
static cl::opt<std::string> stepBeforePlanRecord(
    "step-before-plan-record",
    cl::desc("verify: the record of the step that runs before the plan (the "
             "flag search), removed when one of its take-aways is damaged"),
    cl::value_desc("file"), cl::cat(category));
static cl::list<std::string> stepBeforePlanTakeaways(
    "step-before-plan-takeaway",
    cl::desc("verify: a file the step before the plan writes for the user, "
             "checked against its hash (repeat it for several)"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string>
    budget("budget",
           cl::desc("plan: the time budget of each `ninja tune` (\"30m\"; \"0\": none), "
                    "over [tune] budget until the next plan without it"),
           cl::value_desc("duration"), cl::cat(category));

static cl::list<std::string> pinFlags(
    "pin-flag",
    cl::desc("plan (iree): add this flag to [iree] compile_flags and turn the "
             "model-level flag search off, until the next plan without it "
             "(repeat it for several)"),
    cl::value_desc("flag"), cl::cat(category));
static cl::opt<std::string> tiedSetOf(
    "tune-tied-set-of",
    cl::desc("plan (iree): pin the flag set that <build dir>/flags/chosen.json "
             "names as tied with its choice (tied_with), to tune it too"),
    cl::value_desc("build dir"), cl::cat(category));

/// The flag set `buildDir`'s flag search found tied with its choice.
static Expected<std::vector<std::string>> tiedFlagSet(StringRef buildDir) {
  std::string path = (buildDir + "/flags/chosen.json").str();
  Expected<iree::FlagChoice> choice = readRecord<iree::FlagChoice>(
      path, iree::schema::kFlags, iree::flagChoiceFromJson);
  if (!choice)
    return makeError("--tune-tied-set-of " + buildDir + ": " +
                     toString(choice.takeError()) +
                     " (run `ninja tune` there first)");
  if (!choice->tiedWithInput.empty())
    return makeError("--tune-tied-set-of " + buildDir + ": " + path +
                     " names a tied set that builds from the model as the "
                     "flag search rewrote it (" + choice->tiedWithInput +
                     "); a build with pinned flags has no flag search and "
                     "compiles the model as given, so it would not tune that "
                     "set");
  if (choice->tiedWith.empty())
    return makeError("--tune-tied-set-of " + buildDir + ": " + path +
                     " names no flag set tied with its choice; there is "
                     "nothing else to tune");
  return choice->tiedWith;
}

/// `retune plan --pin-flag`/`--tune-tied-set-of`: the flags join [iree]
/// compile_flags and the flag search is off.
static Error pinCompileFlags(pipeline::TuneConfig &config) {
  std::vector<std::string> pinned(pinFlags.begin(), pinFlags.end());
  if (tiedSetOf.getNumOccurrences()) {
    Expected<std::vector<std::string>> tied = tiedFlagSet(tiedSetOf);
    if (!tied)
      return tied.takeError();
    pinned.insert(pinned.end(), tied->begin(), tied->end());
  }
  if (pinned.empty())
    return Error::success();
  if (config.backend != "iree")
    return makeError(config.configPath + ": --pin-flag and --tune-tied-set-of "
                     "need [backend] kind = \"iree\"");
  config.iree.compileFlags.insert(config.iree.compileFlags.end(),
                                  pinned.begin(), pinned.end());
  config.iree.flagSets = std::vector<std::vector<std::string>>{};
  config.iree.pinnedFlags = std::move(pinned);
  return Error::success();
}

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
  if (operands.size() != 2)
    return makeError("usage: retune plan <tune.toml> -B <build dir>");
  StringRef configFile = operands[1];
  Expected<pipeline::TuneConfig> config = pipeline::loadConfig(configFile);
  if (!config)
    return config.takeError();
  if (Error err = pinCompileFlags(*config))
    return err;
  if (Error err = pipeline::checkPlanInputs(*config))
    return err;
  if (budget.getNumOccurrences()) {
    std::optional<double> seconds = parseDuration(budget);
    if (!seconds)
      return makeError("--budget " + budget +
                       ": not a duration; use e.g. 90s, 30m, 2h or 0 (none)");
    config->budgetSeconds = *seconds;
    config->budgetFromCommandLine = true;
  }
  SmallString<256> build(buildDir);
  sys::fs::make_absolute(build);
  bool fresh = !sys::fs::exists(build);
  if (std::error_code ec = sys::fs::create_directories(build))
    return makeError(build + ": cannot create: " + ec.message());
  pipeline::PlannerPaths paths;
  paths.buildDir = build.str().str();
  paths.toolDir = sys::path::parent_path(currentExecutable(argv0)).str();
  paths.rulesDir = rulesDir(paths.toolDir);
  Error err = pipeline::writePlan(*config, paths);
  // A refused plan leaves nothing behind: a build directory it created is
  // removed again.
  if (err && fresh)
    sys::fs::remove_directories(build);
  return err;
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

/// `retune verify`: the first step of every `ninja tune`. Removes damaged
/// state (pipeline/BuildState.h) and touches the verify stamp when the plan
/// must run again, or when there is none yet.
static Error verify() {
  std::vector<std::string> takeaways(operands.begin() + 1, operands.end());
  pipeline::StepBeforePlan before{
      stepBeforePlanRecord,
      {stepBeforePlanTakeaways.begin(), stepBeforePlanTakeaways.end()}};
  pipeline::BuildCheck check =
      pipeline::verifyBuild(buildDir, takeaways, before);
  if (check.skipped)
    errs() << "retune: note: " << check.skipped
           << " step(s) an earlier run's time budget skipped run now\n";
  std::string stamp = buildDir + "/" + pipeline::kVerifiedStamp.str();
  if (!check.replan && sys::fs::exists(stamp))
    return Error::success();
  return writeFileAtomic(stamp, formatv("{0} damaged file(s) removed\n",
                                        check.removed)
                                    .str());
}

/// `retune cache verify|repair`: every entry checked against its hashes;
/// repair removes damaged entries (redone and stored again by the next run)
/// and staging left by killed runs.
static Error verifyCache(const ContentCache &store, bool repair) {
  ContentCache::Health health = store.verify(repair);
  for (const std::string &entry : health.damaged)
    outs() << (repair ? "removed damaged entry " : "damaged entry ") << entry
           << "\n";
  for (const std::string &dir : health.staleStaging)
    outs() << (repair ? "removed stale staging " : "stale staging ") << dir
           << "\n";
  outs() << store.path() << ": " << health.entries << " entries, "
         << health.damaged.size() << " damaged, " << health.staleStaging.size()
         << " stale staging\n";
  // Stale staging is harmless litter (never read); damage is what fails.
  if (repair || health.damaged.empty())
    return Error::success();
  return makeError(store.path() + ": the cache is damaged; run `retune cache "
                                  "repair` to remove what is bad");
}

/// `retune cache stats|clear|verify|repair [tune.toml]`: the cache
/// tune.toml names, else the default one.
static Error cache() {
  static constexpr StringLiteral kActions[] = {"stats", "clear", "verify",
                                               "repair"};
  if (operands.size() < 2 || operands.size() > 3 ||
      !is_contained(kActions, operands[1]))
    return makeError(
        "usage: retune cache <stats|clear|verify|repair> [tune.toml]");
  std::string dir;
  if (operands.size() == 3) {
    Expected<pipeline::TuneConfig> config = pipeline::loadConfig(operands[2]);
    if (!config)
      return config.takeError();
    dir = config->cacheDir;
  }
  ContentCache store(ContentCache::rootFor(dir));
  if (!store.enabled()) {
    outs() << "the cache is off\n";
    return Error::success();
  }
  if (operands[1] == "verify" || operands[1] == "repair")
    return verifyCache(store, operands[1] == "repair");
  if (operands[1] == "clear") {
    if (Error err = store.clear())
      return err;
    outs() << "cleared " << store.path() << "\n";
    return Error::success();
  }
  auto [entries, bytes] = store.stats();
  outs() << store.path() << ": " << entries << " entries, "
         << formatv("{0:f1}", bytes / 1048576.0) << " MiB\n";
  return Error::success();
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune: tune every hot dispatch of a model and link the winners into "
      "one tuning spec.\n\n  retune plan tune.toml -B build && ninja -C build "
      "tune\n  retune status -B build\n  retune verify -B build [files]\n"
      "  retune cache "
      "<stats|clear|verify|repair> [tune.toml]\n");
  StringRef command = operands.front();
  if (command == "plan")
    return finishTool("retune", plan(argv[0]));
  if (command == "status")
    return finishTool("retune", status());
  if (command == "cache")
    return finishTool("retune", cache());
  if (command == "verify")
    return finishTool("retune", verify());
  return finishTool("retune", makeError("unknown command '" + command +
                                        "'; use plan, status, verify or cache"));
}
