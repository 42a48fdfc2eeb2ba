//===- Planner.cpp - tune.toml + what exists so far -> build.ninja --------===//
#include "pipeline/Planner.h"

#include "pipeline/ClusterPlan.h"
#include "pipeline/NinjaWriter.h"
#include "pipeline/Reverify.h"
#include "stages/core/Records.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"
#include "stages/support/Text.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <optional>

using namespace llvm;

namespace retune::pipeline {
namespace {

/// The tools every backend's graph runs; each backend adds its own.
constexpr StringLiteral kSharedTools[] = {"retune", "retune-select",
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

/// The candidate index of a round of `d`, checked against its spec files.
std::optional<CandidateIndex> readCandidates(StringRef buildDir,
                                             const DispatchEntry &d,
                                             const DispatchRound &round) {
  std::string dir = joinPath(buildDir, round.candidatesDir);
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

void writeHeader(NinjaWriter &w, const TuneConfig &c, const PlannerPaths &p,
                 const Backend &backend) {
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
  w.variable("backend", backend.name().str());
  backend.writeVariables(w, c);
  writeClusterHeader(w, c);
  w.blank();
  w.pool("compile", compilePoolDepth(c));
  backend.writePools(w, c);
  w.include(joinPath(p.rulesDir, "common.ninja"));
  w.include(joinPath(p.rulesDir, (backend.name() + ".ninja").str()));
  w.blank();
}

/// The candidates edge of one dispatch, with what its backend adds;
/// `verified`: the verify round's select record, if the dispatch has one.
void writeCandidatesEdge(NinjaWriter &w, const TuneConfig &config,
                         const PlannerPaths &paths, const Backend &backend,
                         const ModelSteps &steps, const DispatchEntry &d,
                         std::vector<std::string> specs, StringRef reason,
                         StringRef verified) {
  std::string dispatchDir = "dispatches/" + d.id;
  std::string candidatesDir = "candidates/" + d.id;
  CandidatesEdgeParts parts = backend.candidatesEdge(config, paths, d.id);
  std::vector<std::string> implicit = {"compiler.id"};
  implicit.insert(implicit.end(), parts.implicitInputs.begin(),
                  parts.implicitInputs.end());
  if (!verified.empty())
    implicit.push_back(verified.str());
  specs.insert(specs.end(), parts.extraOutputs.begin(),
               parts.extraOutputs.end());
  std::vector<std::pair<std::string, std::string>> vars = {
      {"dir", candidatesDir},
      {"count", std::to_string(config.candidates)},
      {"skip_flag",
       // Quoted: reasons contain spaces and apostrophes ("model's").
       reason.empty() ? "" : "--skip-reason=" + shellQuote(reason)}};
  if (!verified.empty())
    vars.push_back({"verify_flag", shellQuote("--verified=" + verified.str())});
  vars.insert(vars.end(), parts.variables.begin(), parts.variables.end());
  w.build({{candidatesDir + "/index.json"},
           specs,
           "candidates",
           {dispatchDir + "/problem.json"},
           implicit,
           steps.modelChecks,
           vars});
}

/// The verify round of `d`, when a compiler change left one
/// (pipeline/Reverify.h): its edges, and its spec files as plan inputs (a
/// damaged one re-plans, and the plan drops the round). Returns its select
/// record, or "" without a round.
std::string writeVerifyRound(NinjaWriter &w, const TuneConfig &config,
                             const Backend &backend, StringRef buildDir,
                             const DispatchEntry &d, CandidateGraph &graph,
                             std::vector<std::string> &planInputs) {
  DispatchRound round = DispatchRound::verify(d.id);
  std::optional<CandidateIndex> index = readCandidates(buildDir, d, round);
  if (!index || index->candidates.empty())
    return "";
  // Written by the plan itself, so no edge makes them: phony, so that a
  // deleted one re-plans (and drops the round) instead of stopping Ninja.
  std::vector<std::string> files = {round.candidatesDir + "/index.json"};
  for (const CandidateEntry &c : index->candidates)
    files.push_back(round.candidatesDir + "/" + c.file);
  for (StringRef shared : kRoundSharedFiles) {
    std::string file = (round.candidatesDir + "/" + shared).str();
    if (sys::fs::exists(joinPath(buildDir, file)))
      files.push_back(file);
  }
  w.build({files, {}, "phony", {}, {}, {}, {}});
  planInputs.insert(planInputs.end(), files.begin(), files.end());
  return backend.writeCandidateEdges(w, config, d, *index, round, graph);
}

} // namespace

DispatchRound DispatchRound::search(StringRef id) {
  return {("candidates/" + id).str(),     ("artifacts/" + id).str(),
          ("results/" + id).str(),        ("measure/" + id).str(),
          ("best/" + id + ".json").str(), "compiled"};
}

DispatchRound DispatchRound::verify(StringRef id) {
  std::string dir = ("verify/" + id).str();
  return {dir + "/candidates", dir + "/artifacts", dir + "/results",
          dir + "/measure",    dir + "/best.json", "verify_compiled"};
}

std::string writeSelectEdge(NinjaWriter &w, const DispatchRound &round,
                            std::vector<std::string> results) {
  w.build({{round.best},
           {},
           "select",
           {round.candidatesDir + "/index.json"},
           std::move(results),
           {},
           {{"results_dir", round.resultsDir}}});
  return round.best;
}

std::string modelForTools(const TuneConfig &config) {
  return config.modelIsOnnx() ? "import/model.mlir" : config.modelPath;
}

Expected<std::string> planManifest(const TuneConfig &config,
                                   const PlannerPaths &paths) {
  Expected<std::unique_ptr<Backend>> backend = makeBackend(config.backend);
  if (!backend)
    return backend.takeError();
  return planManifest(config, paths, **backend);
}

Expected<std::string> planManifest(const TuneConfig &config,
                                   const PlannerPaths &paths,
                                   const Backend &backend) {
  NinjaWriter w;
  writeHeader(w, config, paths, backend);
  std::string buildDir = paths.buildDir;
  Expected<std::optional<DispatchIndex>> read = readDispatches(buildDir);
  if (!read)
    return read.takeError();
  std::optional<DispatchIndex> dispatches = std::move(*read);

  // Inputs whose change re-plans; outputs the dump already produced.
  std::vector<std::string> planInputs = {config.modelPath};
  for (StringRef tool : kSharedTools)
    planInputs.push_back(joinPath(paths.toolDir, tool));
  for (const std::string &tool : backend.stageTools())
    planInputs.push_back(joinPath(paths.toolDir, tool));
  ModelSteps steps = backend.planModelSteps(config, paths);
  planInputs.insert(planInputs.end(), steps.planInputs.begin(),
                    steps.planInputs.end());
  std::vector<std::string> dumpImplicit = {"compiler.id"};
  dumpImplicit.insert(dumpImplicit.end(), steps.dumpInputs.begin(),
                      steps.dumpInputs.end());
  bool dumps = steps.dumpReady;
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
      DispatchRound search = DispatchRound::search(d.id);
      std::optional<CandidateIndex> index = readCandidates(buildDir, d, search);
      std::vector<std::string> specs;
      if (index)
        for (const CandidateEntry &c : index->candidates)
          specs.push_back(candidatesDir + "/" + c.file);
      graph.specs.insert(graph.specs.end(), specs.begin(), specs.end());
      std::string reason = skipReason(config, d, rank);
      std::string verified;
      if (reason.empty() && backend.traits().verifiesWinners)
        verified = writeVerifyRound(w, config, backend, buildDir, d, graph,
                                    planInputs);
      writeCandidatesEdge(w, config, paths, backend, steps, d, specs, reason,
                          verified);
      if (!index) {
        complete = false;
        continue;
      }
      std::string best =
          backend.writeCandidateEdges(w, config, d, *index, search, graph);
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
    w.build({{modelForTools(config)},
             {},
             "import",
             {config.modelPath},
             {},
             {},
             {}});
  backend.writeModelSteps(w, config);
  if (dumps)
    w.build({{"dispatches/index.json"},
             {},
             "dump",
             {modelForTools(config)},
             dumpImplicit,
             {},
             {}});
  // The per-dispatch files are the dump's too, but declared through a phony
  // edge: as implicit outputs of the dump they would appear only after the
  // first re-plan, without build-log entries, and Ninja would dump again.
  if (!dumpOutputs.empty())
    w.build({dumpOutputs, {}, "phony", {"dispatches/index.json"}, {}, {}, {}});
  // compiler.id is written by plan too, but as a plain file: declaring it
  // an output would make dump -> compiler.id -> build.ninja a cycle.
  w.build(
      {{"build.ninja"}, {}, "plan", {config.configPath}, planInputs, {}, {}});
  w.blank();

  w.phony("dispatches", {"dispatches/index.json"});
  // Verify rounds run while the graph still grows (the candidates edges,
  // which build.ninja depends on, read them).
  if (!graph.verifyCompileRecords.empty())
    w.phony("verify_compiled", graph.verifyCompileRecords);
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
  modelInputs.insert(modelInputs.end(), steps.modelChecks.begin(),
                     steps.modelChecks.end());
  w.build({{"model/result.json"},
           {"tuning_spec.mlir"},
           "model",
           bests,
           modelInputs,
           {},
           {}});
  graph.reportInputs.push_back("model/result.json");
  w.build({{"report/summary.json"},
           {"report/index.html"},
           "report",
           {},
           graph.reportInputs,
           {},
           {}});
  w.blank();
  w.phony("spec", {"tuning_spec.mlir"});
  w.phony("report", {"report/summary.json"});
  w.phony("tune", {"report/summary.json", "tuning_spec.mlir"});
  w.defaultTarget("tune");
  return w.str();
}

Error writePlan(const TuneConfig &config, const PlannerPaths &paths) {
  Expected<std::unique_ptr<Backend>> backend = makeBackend(config.backend);
  if (!backend)
    return backend.takeError();
  Expected<TuneConfig> prepared = (*backend)->prepare(config, paths);
  if (!prepared)
    return prepared.takeError();
  Expected<std::string> identity =
      (*backend)->compilerIdentity(*prepared, paths);
  if (!identity)
    return identity.takeError();
  // Before compiler.id changes: the old compiler's winners are verified
  // first instead of searching everything again.
  if ((*backend)->traits().verifiesWinners &&
      compilerChanges(paths.buildDir, *identity)) {
    Expected<unsigned> rounds = snapshotWinners(paths.buildDir);
    if (!rounds)
      return rounds.takeError();
    if (*rounds)
      errs() << "retune: the compiler changed: " << *rounds
             << " winner(s) of the previous compiler are verified first\n";
  }
  if (Error err = writeFileIfChanged(joinPath(paths.buildDir, "compiler.id"),
                                     *identity))
    return err;
  Expected<std::string> manifest = planManifest(*prepared, paths, **backend);
  if (!manifest)
    return manifest.takeError();
  return writeFileIfChanged(joinPath(paths.buildDir, "build.ninja"), *manifest);
}

} // namespace retune::pipeline
