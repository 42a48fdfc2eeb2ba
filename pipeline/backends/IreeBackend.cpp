//===- IreeBackend.cpp - The iree backend's plan --------------------------===//
//
// IREE's own tools compile and run (stages/backends/iree, stages/tools/iree):
// the plan finds them (tune.toml, tools_dir, PATH, the project's .venv) and
// pins their version; an ONNX model is imported first; on llvm-cpu a
// model-level flag search runs before the dump. Per dispatch the baseline
// is measured on every device before and after its candidates, whose
// benches are spread over the devices round-robin (candidate n runs on
// device n mod D, so growing the candidate count moves no bench).
//
//===----------------------------------------------------------------------===//
#include "pipeline/Backend.h"
#include "pipeline/TableReader.h"

#include "stages/backends/iree/IreeTools.h"
#include "stages/backends/iree/ModelFlags.h"
#include "stages/backends/iree/ModelSignature.h"
#include "stages/core/Subprocess.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <optional>

using namespace llvm;

namespace retune::pipeline {
namespace {

/// The model-level flag search's files, relative to the build directory.
constexpr StringLiteral kFlagSetsFile = "flags/sets.json";
constexpr StringLiteral kChosenFlags = "flags/chosen.json";
/// The flag search's rewrite of the model (FlagsStage.cpp; a note when it
/// rewrote nothing).
constexpr StringLiteral kRewrittenModel = "flags/rewritten.mlir";

/// `--<option>='<value>'` for each value, space-separated.
std::string repeatedFlag(StringRef option, ArrayRef<std::string> values) {
  std::vector<std::string> flags;
  for (const std::string &value : values)
    flags.push_back(shellQuote(("--" + option + "=" + value).str()));
  return join(flags, " ");
}

std::string poolOf(size_t device) { return "device_" + std::to_string(device); }

/// The iree stage tools (inputs of the plan edge).
std::vector<std::string> ireeStageTools() {
  return {"retune-iree-flags",   "retune-iree-dump",  "retune-iree-candidates",
          "retune-iree-compile", "retune-iree-bench", "retune-iree-rank",
          "retune-iree-link",    "retune-iree-model"};
}

/// The user's compile flags, without the flag search's choice.
const std::vector<std::string> &baseCompileFlags(const IreeConfig &i) {
  return i.baseCompileFlags.empty() ? i.compileFlags : i.baseCompileFlags;
}

/// Variables and device pools of the iree graph.
void writeIreeHeader(NinjaWriter &w, const TuneConfig &c) {
  const IreeConfig &i = c.iree;
  std::vector<std::string> tools = {
      shellQuote("--iree-compile=" + i.compile),
      shellQuote("--iree-opt=" + i.opt),
      shellQuote("--iree-benchmark-module=" + i.benchmark)};
  if (!i.version.empty())
    tools.push_back(shellQuote("--iree-version=" + i.version));
  // [tune] threads on IREE's multi-threaded CPU driver: every run of a
  // module (dispatch benches, the flag search, the model step, output
  // checks) uses that many workers.
  if (llvm::any_of(i.devices, [](StringRef d) { return d == "local-task"; }))
    tools.push_back(shellQuote("--device-flag=--task_topology_group_count=" +
                               std::to_string(c.threads)));
  w.variable("iree_tools", join(tools, " "));
  if (c.modelIsOnnx())
    w.variable("iree_import_onnx", shellQuote(i.importOnnx));
  w.variable("iree_compile_flags",
             repeatedFlag("compile-flag", i.compileFlags));
  // The flags step starts from the user's flags, not from its own choice.
  w.variable("iree_base_flags",
             repeatedFlag("compile-flag", baseCompileFlags(i)));
  w.variable("iree_bench_flags", repeatedFlag("bench-flag", i.benchmarkFlags));
  // The dump edge reads the flag search's choice itself where there is a
  // search (planModelSteps binds it there).
  w.variable("flag_choice_flag", "");
  w.variable("dump_note", "");
  w.variable("iree_repetitions", std::to_string(i.repetitions));
  w.variable("model_rounds", std::to_string(i.modelRounds));
  w.variable("model_candidates", std::to_string(i.modelCandidates));
  w.variable("model_device", shellQuote("--device=" + i.devices.front()));
  w.variable("dump_timeout", std::to_string(i.dumpTimeout));
  w.variable("profile_flag",
             i.profile.empty() ? "" : shellQuote("--profile=" + i.profile));
  // On this CPU the dump's shares are each dispatch's time in the model,
  // profiled (FLOPs mislead there, e.g. on matvecs); GPU shares stay FLOPs x
  // calls.
  w.variable("dump_time_flags",
             iree::isHostDevice(i.devices.front())
                 ? shellQuote("--device=" + i.devices.front()) +
                       " --repetitions " + std::to_string(i.repetitions)
                 : "");
  w.variable("device_list", shellQuote("--devices=" + join(i.devices, ",")));
  w.blank();
  // One measurement at a time per device; devices run in parallel, and
  // (unlike the CPU backend) benches may overlap compiles.
  for (size_t k = 0; k < i.devices.size(); ++k)
    w.pool(poolOf(k), 1);
}

/// Compile, bench, rank and select edges of one round of a dispatch;
/// returns the round's select record.
std::string writeIreeCandidateEdges(NinjaWriter &w, const TuneConfig &config,
                                    const DispatchEntry &d,
                                    const CandidateIndex &index,
                                    const DispatchRound &round,
                                    CandidateGraph &graph) {
  const std::vector<std::string> &devices = config.iree.devices;
  std::string dispatchIr = "dispatches/" + d.id + "/dispatch.mlir";
  std::string candidatesIndex = round.candidatesDir + "/index.json";
  std::vector<std::string> results;
  if (index.candidates.empty())
    return writeSelectEdge(w, round, {});
  auto deviceFile = [&](StringRef when, size_t device) {
    return formatv("{0}/baseline.{1}.{2}.json", round.measureDir, when, device)
        .str();
  };
  auto compile = [&](StringRef name, StringRef spec) {
    std::string stem = round.artifactsDir + "/" + name.str();
    std::string record = stem + ".json";
    w.build({{record},
             {},
             "compile",
             {dispatchIr},
             {spec.str(), "compiler.id"},
             {},
             {{"vmfb", stem + ".vmfb"}, {"spec", spec.str()}}});
    graph.compilesOf(round).push_back(record);
    return record;
  };
  // A candidate's bench compares with the baseline's compile (identical
  // module: not applied) and, to stop a hopeless one after its first
  // repetition, with the baseline measured before it on its device.
  auto bench = [&](StringRef output, StringRef record, size_t device,
                   std::vector<std::string> implicit,
                   std::vector<std::string> orderOnly, StringRef reuse,
                   StringRef baselineRecord) {
    std::string baselineFlags;
    if (!baselineRecord.empty()) {
      implicit.push_back(baselineRecord.str());
      baselineFlags = shellQuote("--baseline-record=" + baselineRecord.str()) +
                      " " +
                      shellQuote("--baseline-measure=" + deviceFile("before", device));
    }
    // On the host CPU, compiles running beside a bench inflate its samples
    // (27-35 ms instead of 12 measured): benches wait for the round's
    // compiles.
    if (iree::isHostDevice(devices[device]))
      orderOnly.push_back(round.compiledPhony);
    w.build({{output.str()},
             {},
             "bench",
             {record.str()},
             std::move(implicit),
             std::move(orderOnly),
             {{"pool", poolOf(device)},
              {"device", shellQuote("--device=" + devices[device])},
              {"reuse_flag", reuse.str()},
              {"baseline_flag", baselineFlags}}});
  };
  std::string baseline =
      compile("baseline", round.candidatesDir + "/baseline.spec.mlir");
  for (size_t k = 0; k < devices.size(); ++k)
    bench(deviceFile("before", k), baseline, k, {}, {}, "", "");
  std::vector<std::vector<std::string>> onDevice(devices.size());
  std::vector<std::string> measures;
  for (const CandidateEntry &c : index.candidates) {
    std::string n = std::to_string(c.index);
    std::string record = compile(n, round.candidatesDir + "/" + c.file);
    size_t k = c.index % devices.size();
    std::string measure = round.measureDir + "/" + n + ".json";
    // Identical modules (same hash) reuse one measurement per device.
    bench(measure, record, k, {}, {deviceFile("before", k)},
          "--reuse-dir=cache/bench", baseline);
    onDevice[k].push_back(measure);
    measures.push_back(measure);
    results.push_back(round.resultsDir + "/" + n + ".json");
    if (round.isVerify())
      continue;
    graph.benches.push_back(measure);
    graph.reportInputs.push_back(record);
    graph.reportInputs.push_back(results.back());
  }
  std::vector<std::string> rankInputs = measures;
  for (size_t k = 0; k < devices.size(); ++k) {
    // After every candidate of this dispatch on the device: drift shows.
    bench(deviceFile("after", k), baseline, k, onDevice[k], {}, "", "");
    rankInputs.push_back(deviceFile("before", k));
    rankInputs.push_back(deviceFile("after", k));
  }
  if (!round.isVerify()) {
    graph.modelInputs.push_back(candidatesIndex);
    graph.modelInputs.insert(graph.modelInputs.end(), results.begin(),
                             results.end());
  }
  w.build(
      {results,
       {},
       "rank",
       {candidatesIndex},
       rankInputs,
       {},
       {{"measure_dir", round.measureDir}, {"results_dir", round.resultsDir}}});
  return writeSelectEdge(w, round, results);
}

/// Whether the compile flags target IREE's llvm-cpu backend.
bool targetsLlvmCpu(const TuneConfig &config) {
  return llvm::any_of(config.iree.compileFlags, [](StringRef flag) {
    return flag.contains("llvm-cpu");
  });
}

/// The flag sets the model-level search tries: tune.toml's `flag_sets`, or
/// by default the CPU sets on llvm-cpu and none elsewhere. Empty: no search.
std::vector<std::vector<std::string>> flagSetsOf(const TuneConfig &config) {
  if (config.iree.flagSets)
    return *config.iree.flagSets;
  return targetsLlvmCpu(config) ? iree::defaultCpuFlagSets()
                                : std::vector<std::vector<std::string>>();
}

/// LLVM's alignment of every function, 64 bytes, added to every llvm-cpu
/// compile (the model's, each dispatch benchmark's, the shipped flags).
/// IREE links a model's dispatches into one executable, so a spec that
/// changes one function's code moves every function after it, and the time
/// of their loops moves with their alignment: on the CRNN (IREE 3.13, Zen
/// 4, 1 thread) a strided im2col copy ran 103.6 us a call in the baseline
/// and 61 us in every build with a spec, its own code unchanged, and the
/// winner of the other im2col (0.53x on its dispatch benchmark) 61 -> 102
/// us. With functions aligned each dispatch's code lands as in its own
/// benchmark whatever the others hold: the im2col copy 103.5 us in both
/// builds, the winner 103.4 -> 54.3 us (0.525x). A user's own
/// `--align-all-functions` stays.
constexpr StringLiteral kAlignFunctions = "--align-all-functions=6";

void alignFunctionsOnCpu(TuneConfig &resolved) {
  std::vector<std::string> &flags = resolved.iree.compileFlags;
  bool own = llvm::any_of(flags, [](StringRef flag) {
    return flag.starts_with("--align-all-functions");
  });
  if (targetsLlvmCpu(resolved) && !own)
    flags.push_back(kAlignFunctions.str());
}

/// The search's choice, once flags/chosen.json exists and reads.
std::optional<iree::FlagChoice> flagChoice(StringRef buildDir) {
  std::string path = (buildDir + "/" + kChosenFlags).str();
  if (!sys::fs::exists(path))
    return std::nullopt;
  Expected<iree::FlagChoice> choice = readRecord<iree::FlagChoice>(
      path, iree::schema::kFlags, iree::flagChoiceFromJson);
  if (!choice) {
    // Damaged: the flags edge redoes it; until then nothing is chosen.
    consumeError(choice.takeError());
    return std::nullopt;
  }
  return std::move(*choice);
}

/// The flags the search chose, once flags/chosen.json exists and reads.
std::optional<std::vector<std::string>> chosenFlags(StringRef buildDir) {
  if (std::optional<iree::FlagChoice> choice = flagChoice(buildDir))
    return choice->chosen;
  return std::nullopt;
}

/// Writes flags/sets.json when the search runs, and adds the chosen flags
/// (if chosen yet) to `resolved`'s compile flags, and its rewritten model
/// to what the later steps compile; the user's flags stay in
/// baseCompileFlags.
Error writeFlagSearch(TuneConfig &resolved, StringRef buildDir) {
  resolved.iree.baseCompileFlags = resolved.iree.compileFlags;
  std::vector<std::vector<std::string>> sets = flagSetsOf(resolved);
  if (sets.empty())
    return Error::success();
  if (Error err = writeJsonFile((buildDir + "/" + kFlagSetsFile).str(),
                                iree::flagSetsToJson(sets)))
    return err;
  if (std::optional<iree::FlagChoice> choice = flagChoice(buildDir)) {
    resolved.iree.compileFlags.insert(resolved.iree.compileFlags.end(),
                                      choice->chosen.begin(),
                                      choice->chosen.end());
    resolved.iree.chosenModel = choice->chosenInput;
  }
  return Error::success();
}

/// Checks at plan time that the model has the entry the whole-model
/// benchmark needs (or one public function when none is named) and that its
/// inputs can be read from the signature when benchmark_flags give none.
Error checkIreeEntry(const TuneConfig &config) {
  // An ONNX model's signature is known after the import; the model step
  // checks it then.
  if (config.modelIsOnnx())
    return Error::success();
  // The same resolution the flags and model steps make, so that what they
  // would refuse is refused here.
  Expected<iree::ModelInvocation> invocation = iree::resolveModelInvocation(
      config.modelPath, config.entry, config.iree.benchmarkFlags);
  if (!invocation)
    return makeError(config.configPath +
                     ": [model]: " + toString(invocation.takeError()));
  return Error::success();
}

/// [tune] threads above 1 needs a device that runs that many: IREE's
/// `local-task` (`local-sync` runs one thread; a GPU takes no thread count).
Error checkThreads(const TuneConfig &config) {
  if (config.threads <= 1)
    return Error::success();
  for (const std::string &device : config.iree.devices)
    if (device != "local-task")
      return makeError(config.where("tune.threads") + "[tune] threads = " +
                       std::to_string(config.threads) + ": device '" + device +
                       "' does not run that many; use [iree] devices = "
                       "[\"local-task\"] (IREE's multi-threaded CPU driver)");
  return Error::success();
}

/// iree-import-onnx: tune.toml's path, else the one beside iree-compile (the
/// same installation), else PATH.
Expected<std::string> findImportOnnx(const TuneConfig &config,
                                     StringRef ireeCompile) {
  StringRef given = config.iree.importOnnx;
  if (!given.empty()) {
    if (sys::fs::can_execute(given))
      return given.str();
    return makeError(config.configPath + ": [iree] iree_import_onnx '" + given +
                     "' does not exist or is not executable");
  }
  SmallString<256> sibling(sys::path::parent_path(ireeCompile));
  sys::path::append(sibling, "iree-import-onnx");
  if (sys::fs::can_execute(sibling))
    return std::string(sibling);
  if (ErrorOr<std::string> found = sys::findProgramByName("iree-import-onnx"))
    return *found;
  return makeError(config.configPath +
                   ": [model] path is an ONNX model, "
                   "which needs iree-import-onnx (pip install "
                   "iree-base-compiler onnx; scripts/setup.sh installs both "
                   "into .venv/) beside " +
                   ireeCompile + " or on PATH");
}

/// `config` with the IREE tools found (tune.toml, tools_dir, PATH, the
/// project's .venv) and the version pinned to the detected one. A missing
/// tool or an unsupported version is the error, at plan time.
Expected<TuneConfig> resolveIreeTools(const TuneConfig &config) {
  iree::IreeToolPaths paths{config.iree.compile,   config.iree.opt,
                            config.iree.benchmark, config.iree.toolsDir,
                            config.iree.version,   RETUNE_PROJECT_VENV_BIN};
  // Bare names in tune.toml ("iree-compile") are looked up on PATH.
  for (std::string *tool : {&paths.compile, &paths.opt, &paths.benchmark})
    if (!tool->empty() && !StringRef(*tool).contains('/')) {
      ErrorOr<std::string> found = sys::findProgramByName(*tool);
      if (!found)
        return makeError(config.configPath + ": [iree] tool '" + *tool +
                         "' is not on PATH; give its full path");
      *tool = *found;
    }
  Expected<iree::IreeTools> tools = iree::findIreeTools(paths);
  if (!tools)
    return makeError(config.configPath +
                     ": [iree]: " + toString(tools.takeError()));
  std::string importOnnx = config.iree.importOnnx;
  if (config.modelIsOnnx()) {
    Expected<std::string> found = findImportOnnx(config, tools->compile);
    if (!found)
      return found.takeError();
    importOnnx = *found;
  }
  outs() << "retune: IREE " << tools->version.text << ": " << tools->compile
         << " (from " << tools->foundIn << ")\n";
  if (tools->version.newerThanKnown)
    errs() << config.configPath
           << ": warning: " << iree::newerReleaseWarning(tools->version)
           << "\n";
  TuneConfig resolved = config;
  // Absolute: the build runs in the build directory, and PATH may hold
  // relative folders.
  auto absolute = [](StringRef path) {
    SmallString<256> full(path);
    sys::fs::make_absolute(full);
    return full.str().str();
  };
  resolved.iree.compile = absolute(tools->compile);
  resolved.iree.opt = absolute(tools->opt);
  resolved.iree.benchmark = absolute(tools->benchmark);
  resolved.iree.version = tools->version.text;
  if (!importOnnx.empty())
    resolved.iree.importOnnx = absolute(importOnnx);
  return resolved;
}

/// compiler.id for IREE: iree-compile's bytes, its version and the flags.
Expected<std::string> ireeIdentity(const TuneConfig &resolved) {
  Expected<std::string> binary = readFile(resolved.iree.compile);
  if (!binary)
    return binary.takeError();
  FieldHasher hasher;
  hasher.add("iree_compile", blake3Hex(*binary))
      .add("version", resolved.iree.version)
      .add("flags", join(resolved.iree.compileFlags, "\n"));
  return formatv("{{\"schema\": \"retune.compiler-id/1\", \"iree\": \"{0}\", "
                 "\"id\": \"{1}\"}\n",
                 resolved.iree.version, hasher.hex(16))
      .str();
}

/// The CUDA target the compile flags name (`--iree-cuda-target=`), or "".
std::string cudaTargetOf(ArrayRef<std::string> flags) {
  for (StringRef flag : flags)
    if (flag.consume_front("--iree-cuda-target="))
      return flag.str();
  return "";
}

/// A CUDA target this IREE release does not know (3.13 refuses sm_90) is
/// refused at plan time, not as a dump that fails deep in its log: a tiny
/// module is compiled to its executable configurations with the flags. The
/// verdict is kept per release and target in the build directory, so a
/// re-plan does not probe again. Another failure is left to the dump,
/// which reports it with the model's own IR.
Error checkCudaTarget(const TuneConfig &resolved, StringRef buildDir) {
  std::string target = cudaTargetOf(resolved.iree.compileFlags);
  if (target.empty())
    return Error::success();
  std::string known = (buildDir + "/.retune/cuda-target").str();
  std::string verdict = resolved.iree.version + " " + target + "\n";
  if (Expected<std::string> kept = readFile(known); kept && *kept == verdict)
    return Error::success();
  else if (!kept)
    consumeError(kept.takeError());
  std::string probe = (buildDir + "/.retune/cuda-probe.mlir").str();
  if (Error err = writeFileIfChanged(
          probe, "func.func @probe(%a: tensor<64xf32>) -> tensor<64xf32> {\n"
                 "  %0 = arith.addf %a, %a : tensor<64xf32>\n"
                 "  return %0 : tensor<64xf32>\n}\n"))
    return err;
  std::vector<std::string> args = {probe, "--compile-to=executable-configurations",
                                   "-o", probe + ".out"};
  args.insert(args.end(), resolved.iree.compileFlags.begin(),
              resolved.iree.compileFlags.end());
  std::string log = probe + ".log";
  ChildOutcome child = runLimited(resolved.iree.compile, args, 120, 0, log);
  if (child.status == Status::Ok)
    return writeFileIfChanged(known, verdict);
  Expected<std::string> text = readFile(log);
  if (text && StringRef(*text).contains("missing GPU target"))
    return makeError(resolved.where("iree.compile_flags") +
                     "[iree] compile_flags: IREE " + resolved.iree.version +
                     " does not know the CUDA target '" + target +
                     "' (iree-compile: missing GPU target); use one it knows, "
                     "e.g. --iree-cuda-target=sm_80 or sm_89");
  if (!text)
    consumeError(text.takeError());
  return Error::success();
}

class IreeBackend final : public Backend {
public:
  StringRef name() const override { return "iree"; }

  BackendTraits traits() const override {
    BackendTraits traits;
    traits.ownTables = {"iree", "gpu"};
    traits.importsOnnx = true;
    traits.verifiesWinners = true;
    traits.slurmRefusal = "pins each bench to one configured device, which "
                          "Slurm's GRES cannot";
    return traits;
  }

  /// [iree]; [gpu] is read by stages/search/gpu.
  Error readTable(StringRef table, TableReader &r,
                  TuneConfig &c) const override {
    if (table != "iree")
      return Error::success();
    IreeConfig &i = c.iree;
    for (auto [key, field] :
         {std::pair<StringRef, std::string *>{"iree_compile", &i.compile},
          {"iree_opt", &i.opt},
          {"iree_benchmark_module", &i.benchmark},
          {"iree_import_onnx", &i.importOnnx},
          {"tools_dir", &i.toolsDir},
          {"version", &i.version},
          {"profile", &i.profile}})
      if (Error err = r.stringKey(key, *field))
        return err;
    if (Error err = r.stringListKey("compile_flags", i.compileFlags))
      return err;
    if (Error err = r.stringListKey("benchmark_flags", i.benchmarkFlags))
      return err;
    if (Error err = r.stringListsKey("flag_sets", i.flagSets))
      return err;
    if (Error err = r.boolKey("rewrite_model", i.rewriteModel))
      return err;
    if (Error err = r.stringListKey("devices", i.devices, true))
      return err;
    if (Error err = r.unsignedKey("repetitions", i.repetitions, 1, 1000))
      return err;
    if (Error err = r.unsignedKey("model_rounds", i.modelRounds, 1, 100))
      return err;
    if (Error err =
            r.unsignedKey("model_candidates", i.modelCandidates, 0, 100))
      return err;
    if (Error err = r.unsignedKey("dump_timeout_s", i.dumpTimeout, 1, 86400))
      return err;
    // The same hot-dispatch policy as [tune]; checked for conflicts in
    // Config.cpp's checkBackendTables.
    if (Error err = r.realKey("min_share", c.minShare, 0, 1))
      return err;
    return r.unsignedKey("top_k", c.topK, 0, 100000);
  }

  Error checkModel(const TuneConfig &config) const override {
    if (Error err = checkThreads(config))
      return err;
    return checkIreeEntry(config);
  }

  Expected<TuneConfig> prepare(const TuneConfig &config,
                               const PlannerPaths &paths) const override {
    Expected<TuneConfig> resolved = resolveIreeTools(config);
    if (!resolved)
      return resolved.takeError();
    if (Error err = checkCudaTarget(*resolved, paths.buildDir))
      return std::move(err);
    // Every run of the whole model (flag search, model step, output checks)
    // is given the import's parameter archive.
    if (resolved->externalParameters())
      resolved->iree.benchmarkFlags.push_back("--parameters=model=" +
                                              kParameterArchive.str());
    alignFunctionsOnCpu(*resolved);
    if (Error err = writeFlagSearch(*resolved, paths.buildDir))
      return std::move(err);
    // A plain file like compiler.id: written only when its bytes change.
    if (Error err = writeFileIfChanged(paths.buildDir + "/gpu.toml",
                                       resolved->gpuTable))
      return std::move(err);
    return resolved;
  }

  Expected<std::string> compilerIdentity(const TuneConfig &prepared,
                                         const PlannerPaths &paths) const override {
    // While the flag search runs again (its record removed as damaged), the
    // flags are not known: the identity stays the last choice's, and a real
    // change shows once the search has chosen, not twice.
    std::string last = paths.buildDir + "/compiler.id";
    if (!flagSetsOf(prepared).empty() && !flagChoice(paths.buildDir) &&
        sys::fs::exists(last))
      return readFile(last);
    return ireeIdentity(prepared);
  }

  std::vector<std::string> stageTools() const override {
    return ireeStageTools();
  }

  void writeVariables(NinjaWriter &w, const TuneConfig &config) const override {
    writeIreeHeader(w, config);
  }

  ModelSteps planModelSteps(const TuneConfig &config,
                            const PlannerPaths &paths) const override {
    ModelSteps steps;
    // A new dump tool may read the same model differently; its outputs are
    // restat'ed, so only what changes is redone downstream.
    steps.dumpInputs.push_back(paths.toolDir + "/retune-iree-dump");
    if (!config.iree.profile.empty()) {
      steps.planInputs.push_back(config.iree.profile);
      steps.dumpInputs.push_back(config.iree.profile);
    }
    // The model-level flag search runs before the dump, which (like every
    // later step) builds with the chosen flags: until they are chosen there
    // is no dump edge, so the dump never runs with flags about to change.
    if (!flagSetsOf(config).empty()) {
      steps.planInputs.push_back(kChosenFlags.str());
      steps.dumpInputs.push_back(kChosenFlags.str());
      steps.dumpReady = chosenFlags(paths.buildDir).has_value();
      // The dump reads the choice when it runs: a plan made before the
      // search runs again (a changed model or tune.toml) must not dump
      // with the flags or the rewrite the search is about to replace.
      steps.dumpModel = importedModel(config);
      steps.dumpVariables = {
          {"iree_compile_flags", repeatedFlag("compile-flag",
                                              baseCompileFlags(config.iree))},
          {"flag_choice_flag", "--flag-choice=" + kChosenFlags.str()},
          {"dump_note", "as " + kChosenFlags.str() + " chooses"}};
      steps.takeaways.push_back("compile_flags.txt");
      steps.takeaways.push_back(kRewrittenModel.str());
      steps.takeawaysRecord = kChosenFlags.str();
    }
    return steps;
  }

  void writeModelSteps(NinjaWriter &w,
                       const TuneConfig &config) const override {
    if (flagSetsOf(config).empty())
      return;
    // Its rewrite of the model is an output from the first plan on, made
    // whether or not the choice builds from it: lost or damaged (VERIFY
    // removes it), the search runs again and makes it.
    w.build({{kChosenFlags.str()},
             {"compile_flags.txt", kRewrittenModel.str()},
             "flags",
             {importedModel(config)},
             {kFlagSetsFile.str(), config.iree.compile},
             {},
             {{"rewrite_flag",
               config.iree.rewriteModel ? "" : "--no-model-rewrite"}}});
  }

  CandidatesEdgeParts candidatesEdge(const TuneConfig &,
                                     const PlannerPaths &paths,
                                     StringRef id) const override {
    std::string dispatchIr = "dispatches/" + id.str() + "/dispatch.mlir";
    CandidatesEdgeParts parts;
    parts.extraOutputs.push_back("candidates/" + id.str() +
                                 "/baseline.spec.mlir");
    // The candidates tool renders specs itself (its own spelling and
    // rules): a new one redoes the specs, and only changed ones recompile.
    // It also reads the dispatch (its GPU target) and the [gpu] options.
    parts.implicitInputs = {paths.toolDir + "/retune-iree-candidates",
                            dispatchIr, "gpu.toml"};
    parts.variables.push_back({"dispatch_ir", dispatchIr});
    return parts;
  }

  std::string writeCandidateEdges(NinjaWriter &w, const TuneConfig &config,
                                  const DispatchEntry &d,
                                  const CandidateIndex &index,
                                  const DispatchRound &round,
                                  CandidateGraph &graph) const override {
    return writeIreeCandidateEdges(w, config, d, index, round, graph);
  }
};

} // namespace

std::unique_ptr<Backend> makeIreeBackend() {
  return std::make_unique<IreeBackend>();
}

} // namespace retune::pipeline
