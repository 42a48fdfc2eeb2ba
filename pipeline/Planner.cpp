//===- Planner.cpp - tune.toml + what exists so far -> build.ninja --------===//
#include "pipeline/Planner.h"

#include "pipeline/ClusterPlan.h"
#include "pipeline/IreePlan.h"
#include "pipeline/NinjaWriter.h"
#include "stages/search/cpu/CpuHost.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"
#include "stages/core/Records.h"
#include "stages/support/Text.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <optional>

using namespace llvm;

namespace retune::pipeline {
namespace {

constexpr StringLiteral kStageTools[] = {
    "retune",         "retune-dump",   "retune-candidates", "retune-compile",
    "retune-bench",   "retune-select", "retune-link",       "retune-model",
    "retune-report"};

std::string joinPath(StringRef a, StringRef b) {
  SmallString<256> path(a);
  sys::path::append(path, b);
  return path.str().str();
}

/// A record of the build directory, if it exists and parses.
template <typename T>
std::optional<T> readOptional(StringRef path, StringRef schema,
                              Expected<T> (*parse)(const json::Value &)) {
  if (!sys::fs::exists(path))
    return std::nullopt;
  Expected<T> record = readRecord<T>(path, schema, parse);
  if (!record) {
    // Damaged: readRecord removed it, and the edge that writes it runs
    // again in this build.
    errs() << "retune: note: " << toString(record.takeError()) << "\n";
    return std::nullopt;
  }
  return std::move(*record);
}

/// Removes a record whose files do not match it, so that its edge runs
/// again (Ninja would otherwise keep compiling garbled files).
void redo(StringRef record, const Twine &why) {
  errs() << "retune: note: " << record << ": " << why
         << "; removed it, the step that writes it runs again\n";
  sys::fs::remove(record);
}

/// Whether `path` holds the bytes hashed to `hash` (an empty hash: unknown,
/// taken as a match).
bool matchesHash(StringRef path, StringRef hash) {
  if (hash.empty())
    return true;
  Expected<std::string> bytes = readFile(path);
  if (!bytes) {
    consumeError(bytes.takeError());
    return false;
  }
  return blake3Hex(*bytes) == hash;
}

/// The dispatch index, checked against the files the dump wrote beside it.
/// An index listing nothing is an error: nothing to tune.
Expected<std::optional<DispatchIndex>> readDispatches(StringRef buildDir) {
  std::string path = joinPath(buildDir, "dispatches/index.json");
  std::optional<DispatchIndex> index = readOptional<DispatchIndex>(
      path, schema::kDispatches, dispatchIndexFromJson);
  if (!index)
    return std::nullopt;
  if (index->dispatches.empty()) {
    sys::fs::remove(path);
    return makeError(path + ": " + index->model +
                     " has no dispatch retune can tune; nothing to tune "
                     "(check [model] path; the index was removed)");
  }
  for (const DispatchEntry &d : index->dispatches) {
    std::string dir = joinPath(buildDir, "dispatches/" + d.id);
    Expected<DispatchEntry> problem =
        readDispatchProblem(joinPath(dir, "problem.json"));
    if (!problem || problem->id != d.id) {
      if (!problem)
        consumeError(problem.takeError());
      redo(path, "dispatches/" + d.id + "/problem.json is missing or damaged");
      return std::nullopt;
    }
    if (!matchesHash(joinPath(dir, "dispatch.mlir"), d.irHash)) {
      redo(path, "dispatches/" + d.id +
                     "/dispatch.mlir is missing or not what the dump wrote");
      return std::nullopt;
    }
  }
  return index;
}

/// The candidate index of `d`, checked against its spec files.
std::optional<CandidateIndex> readCandidates(StringRef buildDir,
                                             const DispatchEntry &d) {
  std::string dir = joinPath(buildDir, "candidates/" + d.id);
  std::string path = joinPath(dir, "index.json");
  std::optional<CandidateIndex> index = readOptional<CandidateIndex>(
      path, schema::kCandidates, candidateIndexFromJson);
  if (!index)
    return std::nullopt;
  if (index->dispatch != d.id) {
    redo(path, "it belongs to dispatch " + index->dispatch);
    return std::nullopt;
  }
  for (const CandidateEntry &c : index->candidates)
    if (!matchesHash(joinPath(dir, c.file), c.specHash)) {
      redo(path, c.file + " is missing or not what the candidates step wrote");
      return std::nullopt;
    }
  return index;
}

/// Why a dispatch keeps the default config, or "" when it is tuned.
std::string skipReason(const TuneConfig &config, const DispatchEntry &d,
                       unsigned rank) {
  if (config.topK && rank >= config.topK)
    return formatv("not among the {0} hottest dispatches (top_k)", config.topK);
  if (d.share < config.minShare)
    return formatv("{0:f1}% of the model's FLOPs is below min_share {1:f1}%",
                   100 * d.share, 100 * config.minShare);
  return "";
}

/// The model file the dump and model steps read: an ONNX model is imported
/// to MLIR first, into the build directory.
std::string modelForTools(const TuneConfig &c) {
  return c.modelIsOnnx() ? "import/model.mlir" : c.modelPath;
}

void writeHeader(NinjaWriter &w, const TuneConfig &c, const PlannerPaths &p) {
  w.comment("Generated by `retune plan` from " + c.configPath + ".");
  w.comment("Do not edit: tune.toml is the source; this file re-plans itself.");
  w.variable("ninja_required_version", "1.10");
  // Paths and names reach shell command lines: quoted here, bare in rules.
  w.variable("retune_bin", shellQuote(p.toolDir));
  w.variable("tune_toml", shellQuote(c.configPath));
  w.variable("model_file", shellQuote(modelForTools(c)));
  w.variable("code_threads", std::to_string(c.threads));
  w.variable("compile_timeout", std::to_string(c.compileTimeout));
  w.variable("compile_memory", std::to_string(c.compileMemoryMB));
  w.variable("warmup", std::to_string(c.warmup));
  w.variable("repetitions", std::to_string(c.repetitions));
  w.variable("min_sample", formatNumber(c.minSampleSeconds));
  w.variable("seed", std::to_string(c.seed));
  w.variable("bench_timeout", std::to_string(c.benchTimeout));
  w.variable("margin", formatNumber(c.margin));
  w.variable("cache_dir", shellQuote(c.cacheDir));
  w.variable("entry_flag",
             c.entry.empty() ? "" : shellQuote("--function=" + c.entry));
  w.variable("model_entry_flag",
             c.entry.empty() ? "" : shellQuote("--entry=" + c.entry));
  w.variable("backend", c.backend);
  if (c.backend == "iree")
    writeIreeHeader(w, c);
  writeClusterHeader(w, c);
  w.blank();
  w.pool("compile", compilePoolDepth(c));
  // The CPU is the device: one measurement at a time (on Slurm, one per
  // GRES unit the allocation holds).
  if (c.backend != "iree")
    w.pool("device_cpu", benchPoolDepth(c));
  w.include(joinPath(p.rulesDir, "common.ninja"));
  w.include(joinPath(p.rulesDir, c.backend + ".ninja"));
  w.blank();
}

/// Edges of one dispatch's candidates (mlir-cpu); returns its best/<id>.json.
std::string writeCandidateEdges(NinjaWriter &w, const DispatchEntry &d,
                                const CandidateIndex &index,
                                CandidateGraph &graph) {
  std::vector<std::string> &compileRecords = graph.compileRecords;
  std::vector<std::string> &benchEdges = graph.benches;
  std::vector<std::string> &reportInputs = graph.reportInputs;
  std::string dispatchIr = "dispatches/" + d.id + "/dispatch.mlir";
  std::string candidatesIndex = "candidates/" + d.id + "/index.json";
  std::string baseline = "artifacts/" + d.id + "/baseline.json";
  std::vector<std::string> results;
  if (!index.candidates.empty()) {
    w.build({{baseline}, {}, "compile", {dispatchIr}, {"compiler.id"}, {},
             {{"artifact", "artifacts/" + d.id + "/baseline.so"},
              {"spec_flag", ""}}});
    compileRecords.push_back(baseline);
  }
  for (const CandidateEntry &c : index.candidates) {
    std::string stem = d.id + "/" + std::to_string(c.index);
    std::string spec = "candidates/" + d.id + "/" + c.file;
    std::string record = "artifacts/" + stem + ".json";
    std::string result = "results/" + stem + ".json";
    w.build({{record}, {}, "compile", {dispatchIr}, {spec, "compiler.id"}, {},
             {{"artifact", "artifacts/" + stem + ".so"},
              {"spec_flag", "--spec=" + spec}}});
    // Order-only on every compile: no measurement while compiles run.
    benchEdges.push_back(result);
    w.build({{result}, {}, "bench", {record}, {baseline}, {"compiled"},
             {{"baseline_record", baseline}}});
    compileRecords.push_back(record);
    results.push_back(result);
    reportInputs.push_back(record);
    reportInputs.push_back(result);
  }
  std::string best = "best/" + d.id + ".json";
  w.build({{best}, {}, "select", {candidatesIndex}, results, {},
           {{"results_dir", "results/" + d.id}}});
  return best;
}

/// The candidates edge of one dispatch; the iree one also reads the
/// dispatch file (its GPU target) and the [gpu] options.
void writeCandidatesEdge(NinjaWriter &w, const TuneConfig &config,
                         const PlannerPaths &paths, StringRef dispatchDir,
                         StringRef candidatesDir, std::vector<std::string> specs,
                         StringRef reason) {
  bool iree = config.backend == "iree";
  std::vector<std::string> implicit = {"compiler.id"};
  // The iree candidates tool renders specs itself (its own spelling and
  // rules): a new one redoes the specs, and only changed ones recompile.
  if (iree)
    implicit.push_back(joinPath(paths.toolDir, "retune-iree-candidates"));
  std::vector<std::pair<std::string, std::string>> vars = {
      {"dir", candidatesDir.str()},
      {"count", std::to_string(config.candidates)},
      {"skip_flag",
       // Quoted: reasons contain spaces and apostrophes ("model's").
       reason.empty() ? "" : "--skip-reason=" + shellQuote(reason)}};
  if (iree) {
    specs.push_back(candidatesDir.str() + "/baseline.spec.mlir");
    implicit.push_back(dispatchDir.str() + "/dispatch.mlir");
    implicit.push_back("gpu.toml");
    vars.push_back({"dispatch_ir", dispatchDir.str() + "/dispatch.mlir"});
  }
  // mlir-cpu: no tuning before the model is known to compile.
  std::vector<std::string> orderOnly;
  if (!iree)
    orderOnly.push_back("model/baseline.json");
  w.build({{candidatesDir.str() + "/index.json"}, specs, "candidates",
           {dispatchDir.str() + "/problem.json"}, implicit, orderOnly, vars});
}

} // namespace

Expected<std::string> planManifest(const TuneConfig &config,
                                   const PlannerPaths &paths) {
  NinjaWriter w;
  writeHeader(w, config, paths);
  std::string buildDir = paths.buildDir;
  Expected<std::optional<DispatchIndex>> read = readDispatches(buildDir);
  if (!read)
    return read.takeError();
  std::optional<DispatchIndex> dispatches = std::move(*read);

  // Inputs whose change re-plans; outputs the dump already produced.
  std::vector<std::string> planInputs = {config.modelPath};
  for (StringRef tool : kStageTools)
    planInputs.push_back(joinPath(paths.toolDir, tool));
  bool iree = config.backend == "iree";
  std::vector<std::string> dumpImplicit = {"compiler.id"};
  if (iree) {
    for (const std::string &tool : ireeStageTools())
      planInputs.push_back(joinPath(paths.toolDir, tool));
    // A new dump tool may read the same model differently; its outputs are
    // restat'ed, so only what changes is redone downstream.
    dumpImplicit.push_back(joinPath(paths.toolDir, "retune-iree-dump"));
    if (!config.iree.profile.empty()) {
      planInputs.push_back(config.iree.profile);
      dumpImplicit.push_back(config.iree.profile);
    }
  }
  // The model-level flag search runs before the dump, which (like every
  // later step) builds with the chosen flags: until they are chosen there
  // is no dump edge, so the dump never runs with flags about to change.
  bool searchesFlags = iree && !flagSetsOf(config).empty();
  bool flagsChosen = searchesFlags && chosenFlags(buildDir).has_value();
  if (searchesFlags) {
    planInputs.push_back(kChosenFlags.str());
    dumpImplicit.push_back(kChosenFlags.str());
  }
  bool dumps = !searchesFlags || flagsChosen;
  if (dumps)
    planInputs.push_back("dispatches/index.json");
  std::vector<std::string> dumpOutputs;
  std::vector<std::string> candidateIndexes, bests;
  CandidateGraph graph;
  graph.reportInputs = {"dispatches/index.json"};
  bool complete = dispatches.has_value();
  if (dispatches) {
    for (auto [rank, d] : llvm::enumerate(dispatches->dispatches)) {
      std::string dir = "dispatches/" + d.id;
      dumpOutputs.push_back(dir + "/dispatch.mlir");
      dumpOutputs.push_back(dir + "/problem.json");
      std::string candidatesDir = "candidates/" + d.id;
      std::string candidatesIndex = candidatesDir + "/index.json";
      candidateIndexes.push_back(candidatesIndex);
      graph.reportInputs.push_back(candidatesIndex);
      std::optional<CandidateIndex> index = readCandidates(buildDir, d);
      std::vector<std::string> specs;
      if (index)
        for (const CandidateEntry &c : index->candidates)
          specs.push_back(candidatesDir + "/" + c.file);
      graph.specs.insert(graph.specs.end(), specs.begin(), specs.end());
      std::string reason = skipReason(config, d, rank);
      writeCandidatesEdge(w, config, paths, dir, candidatesDir, specs, reason);
      if (!index) {
        complete = false;
        continue;
      }
      std::string best =
          iree ? writeIreeCandidateEdges(w, config, d, *index, graph)
               : writeCandidateEdges(w, d, *index, graph);
      bests.push_back(best);
      graph.reportInputs.push_back(best);
    }
  }
  planInputs.insert(planInputs.end(), candidateIndexes.begin(),
                    candidateIndexes.end());
  // A damaged dispatch or spec file re-plans, and the plan redoes its step.
  planInputs.insert(planInputs.end(), dumpOutputs.begin(), dumpOutputs.end());
  planInputs.insert(planInputs.end(), graph.specs.begin(), graph.specs.end());
  w.blank();
  if (config.modelIsOnnx())
    w.build({{modelForTools(config)}, {}, "import", {config.modelPath}, {}, {},
             {}});
  if (searchesFlags)
    w.build({{kChosenFlags.str()}, {"compile_flags.txt"}, "flags",
             {modelForTools(config)}, {kFlagSetsFile.str(), config.iree.compile},
             {}, {}});
  if (dumps)
    w.build({{"dispatches/index.json"}, {}, "dump", {modelForTools(config)},
             dumpImplicit, {}, {}});
  if (!iree)
    w.build({{"model/baseline.json"}, {}, "model_baseline", {config.modelPath},
             {"compiler.id"}, {}, {}});
  // The per-dispatch files are the dump's too, but declared through a phony
  // edge: as implicit outputs of the dump they would appear only after the
  // first re-plan, without build-log entries, and Ninja would dump again.
  if (!dumpOutputs.empty())
    w.build({dumpOutputs, {}, "phony", {"dispatches/index.json"}, {}, {}, {}});
  // compiler.id is written by plan too, but as a plain file: declaring it
  // an output would make dump -> compiler.id -> build.ninja a cycle.
  w.build({{"build.ninja"}, {}, "plan", {config.configPath},
           planInputs, {}, {}});
  w.blank();

  w.phony("dispatches", {"dispatches/index.json"});
  w.phony("candidates", candidateIndexes.empty()
                            ? std::vector<std::string>{"dispatches/index.json"}
                            : candidateIndexes);
  if (!complete) {
    // The graph is still growing: ninja re-plans before building these.
    w.phony("spec", {"build.ninja"});
    w.phony("report", {"build.ninja"});
    w.phony("tune", {"build.ninja"});
    w.defaultTarget("tune");
    return w.str();
  }
  w.phony("compiled", graph.compileRecords);
  w.build({{"spec/linked.mlir"}, {}, "link", bests, {}, {}, {}});
  std::vector<std::string> modelInputs = bests;
  modelInputs.push_back("spec/linked.mlir");
  modelInputs.push_back("compiler.id");
  modelInputs.insert(modelInputs.end(), graph.modelInputs.begin(),
                     graph.modelInputs.end());
  if (!iree)
    modelInputs.push_back("model/baseline.json");
  w.build({{"model/result.json"}, {"tuning_spec.mlir"}, "model", bests,
           modelInputs, {}, {}});
  graph.reportInputs.push_back("model/result.json");
  w.build({{"report/summary.json"}, {"report/index.html"}, "report", {},
           graph.reportInputs, {},
           {}});
  w.blank();
  w.phony("spec", {"tuning_spec.mlir"});
  w.phony("report", {"report/summary.json"});
  w.phony("tune", {"report/summary.json", "tuning_spec.mlir"});
  w.defaultTarget("tune");
  return w.str();
}

Expected<std::string> compilerIdentity(const PlannerPaths &paths) {
  FieldHasher hasher;
  hasher.add("llvm", LLVM_VERSION_STRING);
  cpu::CpuHost host = cpu::detectHost();
  hasher.add("host", host.target()).add("vector_bits", host.vectorBits);
  std::string compiler = joinPath(paths.toolDir, "retune-compile");
  Expected<std::string> binary = readFile(compiler);
  if (!binary)
    return binary.takeError();
  hasher.add("compiler", blake3Hex(*binary));
  return formatv("{{\"schema\": \"retune.compiler-id/1\", \"llvm\": \"{0}\", "
                 "\"host\": \"{1}\", \"id\": \"{2}\"}\n",
                 LLVM_VERSION_STRING, host.target(), hasher.hex(16))
      .str();
}

Error writePlan(const TuneConfig &config, const PlannerPaths &paths) {
  if (config.backend == "iree")
    return writeIreePlan(config, paths);
  Expected<std::string> identity = compilerIdentity(paths);
  if (!identity)
    return identity.takeError();
  if (Error err = writeFileIfChanged(joinPath(paths.buildDir, "compiler.id"),
                                     *identity))
    return err;
  Expected<std::string> manifest = planManifest(config, paths);
  if (!manifest)
    return manifest.takeError();
  return writeFileIfChanged(joinPath(paths.buildDir, "build.ninja"), *manifest);
}

Error writeIreePlan(const TuneConfig &config, const PlannerPaths &paths) {
  if (Error err = checkIreeEntry(config))
    return err;
  Expected<TuneConfig> resolved = resolveIreeTools(config);
  if (!resolved)
    return resolved.takeError();
  if (Error err = writeFlagSearch(*resolved, paths.buildDir))
    return err;
  Expected<std::string> identity = ireeIdentity(*resolved);
  if (!identity)
    return identity.takeError();
  // Plain files like compiler.id: written only when their bytes change.
  for (auto [name, text] :
       {std::pair<const char *, const std::string &>{"compiler.id", *identity},
        {"gpu.toml", resolved->gpuTable}})
    if (Error err = writeFileIfChanged(joinPath(paths.buildDir, name), text))
      return err;
  Expected<std::string> manifest = planManifest(*resolved, paths);
  if (!manifest)
    return manifest.takeError();
  return writeFileIfChanged(joinPath(paths.buildDir, "build.ninja"), *manifest);
}

} // namespace retune::pipeline
