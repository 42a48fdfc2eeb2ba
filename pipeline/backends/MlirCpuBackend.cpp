//===- MlirCpuBackend.cpp - The embedded mlir-cpu backend's plan ----------===//
//
// Retune compiles linalg models itself (stages/backends/mlircpu) for this
// CPU: the compiler identity is the compile worker's bytes, LLVM and the
// host; measurements share the CPU, so one runs at a time (or one per Slurm
// GRES unit), and no candidate is measured before the model is known to
// compile and run (model/baseline.json).
//
//===----------------------------------------------------------------------===//
#include "pipeline/Backend.h"
#include "pipeline/TableReader.h"
#include "pipeline/ClusterPlan.h"

#include "cache/CacheKeys.h"
#include "cache/ContentCache.h"
#include "stages/core/ModelText.h"
#include "stages/core/Subprocess.h"
#include "stages/search/cpu/CpuHost.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace retune::pipeline {
namespace {

constexpr StringLiteral kModelBaseline = "model/baseline.json";

/// The entry the whole-model benchmark times must exist, or be implied by
/// a single public function. Read as text: the planner links no MLIR (the
/// dump reports a model MLIR cannot parse, with its line).
Error checkEntry(const TuneConfig &config) {
  Expected<std::string> model = readFile(config.modelPath);
  if (!model)
    return model.takeError();
  std::vector<std::string> publicFunctions;
  for (const FunctionHeader &function : retune::publicFunctions(*model))
    publicFunctions.push_back(function.name);
  std::string list = publicFunctions.empty()
                         ? std::string("none")
                         : "@" + join(publicFunctions, ", @");
  if (!config.entry.empty()) {
    if (is_contained(publicFunctions, config.entry))
      return Error::success();
    return makeError(config.where("model.entry") + "[model] entry '" +
                     config.entry + "' is not a public function of " +
                     config.modelPath + " (public functions: " + list + ")");
  }
  if (publicFunctions.size() == 1)
    return Error::success();
  return makeError(config.where("model.path") + config.modelPath + " has " +
                   std::to_string(publicFunctions.size()) +
                   " public functions (" + list +
                   "); name the one to time with [model] entry");
}

/// The model must parse: the planner links no MLIR, so retune-dump-worker
/// parses it once per model and worker (the content cache remembers a model
/// that parsed), and its message names the model's line.
Error checkModelParses(const TuneConfig &config, const PlannerPaths &paths) {
  SmallString<256> worker(paths.toolDir);
  sys::path::append(worker, "retune-dump-worker");
  Expected<std::string> model = readFile(config.modelPath);
  if (!model)
    return model.takeError();
  std::string modelHash = blake3Hex(*model);
  std::string key = FieldHasher()
                        .add("stage", "model-parses")
                        .add("worker", toolIdentity(worker.c_str()))
                        .add("model", modelHash)
                        .hex(16);
  ContentCache cache(ContentCache::rootFor(config.cacheDir));
  if (cache.enabled() && cache.lookup(key))
    return Error::success();
  SmallString<128> logPath;
  if (std::error_code ec =
          sys::fs::createTemporaryFile("retune-parse", "log", logPath))
    return makeError("cannot create a temporary file: " + ec.message());
  ChildOutcome outcome = runLimited(
      worker, {"--model=" + config.modelPath, "--parse-only"}, 0, 0, logPath);
  std::string log = logTail(logPath, 2000);
  sys::fs::remove(logPath);
  if (outcome.status != Status::Ok)
    return makeError(outcome.status == Status::CompileError
                         ? log
                         : "parsing " + config.modelPath +
                               " failed: " + outcome.message);
  if (cache.enabled())
    consumeError(cache.store(key, {{"model.hash", modelHash}}));
  return Error::success();
}

/// `[search] ranker` must be a model file `retune-ranker train` wrote; its
/// feature set is checked by the candidates step, which reads it.
Error checkRanker(const TuneConfig &config) {
  const std::string &path = config.search.ranker;
  if (path.empty())
    return Error::success();
  std::string fix = "; train one with `retune-ranker train -o <file> <tune "
                    "build directories>` or remove the key";
  Expected<std::string> text = readFile(path);
  if (!text)
    return makeError(config.where("search.ranker") +
                     "[search] ranker: cannot read " + path + ": " +
                     toString(text.takeError()) + fix);
  Expected<json::Value> value = json::parse(*text);
  const json::Object *root = value ? value->getAsObject() : nullptr;
  if (!value)
    consumeError(value.takeError());
  if (!root || root->getString("schema") != "retune.ranker/1")
    return makeError(config.where("search.ranker") +
                     "[search] ranker: " + path +
                     " is not a ranker model (schema "
                     "\"retune.ranker/1\")" +
                     fix);
  return Error::success();
}

class MlirCpuBackend final : public Backend {
public:
  StringRef name() const override { return "mlir-cpu"; }

  BackendTraits traits() const override {
    BackendTraits traits;
    traits.verifiesWinners = true;
    traits.ownTables = {"mlir-cpu", "search"};
    return traits;
  }

  /// [mlir-cpu] and [search].
  Error readTable(StringRef table, TableReader &r,
                  TuneConfig &c) const override {
    if (table == "mlir-cpu")
      return r.stringListKey("compile_flags", c.mlirCpu.compileFlags);
    if (table != "search")
      return Error::success();
    if (Error err = r.stringKey("ranker", c.search.ranker))
      return err;
    return r.unsignedKey("explore", c.search.explore, 0, 100000);
  }

  Error checkModel(const TuneConfig &config) const override {
    if (Error err = checkRanker(config))
      return err;
    return checkEntry(config);
  }

  Expected<TuneConfig> prepare(const TuneConfig &config,
                               const PlannerPaths &paths) const override {
    if (Error err = checkModelParses(config, paths))
      return std::move(err);
    return config;
  }

  Expected<std::string>
  compilerIdentity(const TuneConfig &config,
                   const PlannerPaths &paths) const override {
    FieldHasher hasher;
    hasher.add("flags", join(config.mlirCpu.compileFlags, "\n"));
    hasher.add("llvm", LLVM_VERSION_STRING);
    cpu::CpuHost host = cpu::detectHost();
    hasher.add("host", host.target()).add("vector_bits", host.vectorBits);
    SmallString<256> compiler(paths.toolDir);
    sys::path::append(compiler, "retune-compile-worker");
    Expected<std::string> binary = readFile(compiler);
    if (!binary)
      return binary.takeError();
    hasher.add("compiler", blake3Hex(*binary));
    return formatv("{{\"schema\": \"retune.compiler-id/1\", \"llvm\": \"{0}\", "
                   "\"host\": \"{1}\", \"id\": \"{2}\"}\n",
                   LLVM_VERSION_STRING, host.target(), hasher.hex(16))
        .str();
  }

  std::vector<std::string> stageTools() const override {
    return {"retune-dump",         "retune-dump-worker", "retune-candidates",
            "retune-compile",      "retune-compile-worker",
            "retune-bench",        "retune-bench-worker",
            "retune-link",         "retune-link-worker", "retune-model"};
  }

  void writeVariables(NinjaWriter &w, const TuneConfig &config) const override {
    std::vector<std::string> flags;
    for (const std::string &flag : config.mlirCpu.compileFlags)
      flags.push_back(shellQuote("--compiler-flag=" + flag));
    w.variable("compiler_flags", join(flags, " "));
  }

  void writePools(NinjaWriter &w, const TuneConfig &config) const override {
    // The CPU is the device: one measurement at a time (on Slurm, one per
    // GRES unit the allocation holds).
    w.pool("device_cpu", benchPoolDepth(config));
  }

  ModelSteps planModelSteps(const TuneConfig &,
                            const PlannerPaths &) const override {
    ModelSteps steps;
    steps.modelChecks.push_back(kModelBaseline.str());
    return steps;
  }

  void writeModelSteps(NinjaWriter &w,
                       const TuneConfig &config) const override {
    w.build({{kModelBaseline.str()},
             {},
             "model_baseline",
             {config.modelPath},
             {"compiler.id"},
             {},
             {}});
  }

  CandidatesEdgeParts candidatesEdge(const TuneConfig &config,
                                     const PlannerPaths &,
                                     StringRef) const override {
    CandidatesEdgeParts parts;
    if (config.search.ranker.empty()) {
      parts.variables.push_back({"ranker_flag", ""});
      return parts;
    }
    // A retrained model re-runs the candidates steps (its hash is in their
    // cache key too).
    parts.implicitInputs.push_back(config.search.ranker);
    parts.variables.push_back(
        {"ranker_flag",
         shellQuote("--ranker-model=" + config.search.ranker) +
             " --explore=" + std::to_string(config.search.explore)});
    return parts;
  }

  std::string writeCandidateEdges(NinjaWriter &w, const TuneConfig &,
                                  const DispatchEntry &d,
                                  const CandidateIndex &index,
                                  const DispatchRound &round,
                                  CandidateGraph &graph) const override {
    std::string dispatchIr = "dispatches/" + d.id + "/dispatch.mlir";
    std::string baseline = round.artifactsDir + "/baseline.json";
    std::vector<std::string> results;
    std::vector<std::string> &compiles = graph.compilesOf(round);
    if (!index.candidates.empty()) {
      w.build({{baseline},
               {},
               "compile",
               {dispatchIr},
               {"compiler.id"},
               {},
               {{"artifact", round.artifactsDir + "/baseline.so"},
                {"spec_flag", ""}}});
      compiles.push_back(baseline);
    }
    for (const CandidateEntry &c : index.candidates) {
      std::string n = std::to_string(c.index);
      std::string spec = round.candidatesDir + "/" + c.file;
      std::string record = round.artifactsDir + "/" + n + ".json";
      std::string result = round.resultsDir + "/" + n + ".json";
      w.build({{record},
               {},
               "compile",
               {dispatchIr},
               {spec, "compiler.id"},
               {},
               {{"artifact", round.artifactsDir + "/" + n + ".so"},
                {"spec_flag", "--spec=" + spec}}});
      // Order-only on every compile of the round: no measurement while
      // compiles run.
      w.build({{result},
               {},
               "bench",
               {record},
               {baseline},
               {round.compiledPhony},
               {{"baseline_record", baseline}}});
      compiles.push_back(record);
      results.push_back(result);
      if (round.isVerify())
        continue;
      graph.benches.push_back(result);
      graph.reportInputs.push_back(record);
      graph.reportInputs.push_back(result);
    }
    return writeSelectEdge(w, round, results);
  }
};

} // namespace

std::unique_ptr<Backend> makeMlirCpuBackend() {
  return std::make_unique<MlirCpuBackend>();
}

} // namespace retune::pipeline
