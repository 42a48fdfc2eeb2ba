//===- Backend.h - What the planner asks of a backend -----------*- C++ -*-===//
//
// The planner writes the phases every backend shares (dump, candidates per
// dispatch, then select, link, model, report) and asks the backend for what
// differs: its tools and compiler identity, the graph's variables and pools,
// the steps before the dump, and the edges that compile and measure one
// dispatch's candidates. Its stage tools (stages/tools/<backend>/) do the
// work behind those edges; rules/<backend>.ninja names them.
//
// Backends are found by name in a registry (as Ninja picks a CommandRunner
// and ccache a storage backend): no code outside the registry compares
// backend names. docs/extending.md lists what a new backend adds.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_PIPELINE_BACKEND_H
#define RETUNE_PIPELINE_BACKEND_H

#include "pipeline/Config.h"
#include "pipeline/NinjaWriter.h"
#include "stages/core/Records.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace retune::pipeline {

class TableReader;

struct PlannerPaths {
  /// The build directory (absolute).
  std::string buildDir;
  /// Where the retune tools live.
  std::string toolDir;
  /// Where the rule files live.
  std::string rulesDir;
};

/// Where one round of a dispatch's candidates lives. The search round
/// measures the candidates step's list; after a compiler change, the
/// verify round first measures the previous winner alone with the new
/// compiler (pipeline/Reverify.h), and the search round searches again
/// only when it lost.
struct DispatchRound {
  std::string candidatesDir, artifactsDir, resultsDir;
  /// Raw measurements, for a backend that ranks them into results (iree).
  std::string measureDir;
  /// The round's select record.
  std::string best;
  /// The phony over the round's compiles, which its benches wait for: a
  /// verification must not wait for the search's compiles.
  std::string compiledPhony;

  static DispatchRound search(llvm::StringRef id);
  static DispatchRound verify(llvm::StringRef id);
  bool isVerify() const { return compiledPhony != "compiled"; }
};

/// Files the per-candidate edges add to the graph's aggregate targets.
struct CandidateGraph {
  std::vector<std::string> compileRecords;
  /// The verify rounds' compiles (the `verify_compiled` phony).
  std::vector<std::string> verifyCompileRecords;
  std::vector<std::string> &compilesOf(const DispatchRound &round) {
    return round.isVerify() ? verifyCompileRecords : compileRecords;
  }
  std::vector<std::string> benches;
  std::vector<std::string> reportInputs;
  /// Further inputs of the model step (the iree model step ranks each
  /// dispatch's candidates in the model from its results).
  std::vector<std::string> modelInputs;
  /// Candidate spec files (inputs of the plan: a damaged one re-plans).
  std::vector<std::string> specs;
};

/// What a backend adds to the steps before the per-dispatch work.
/// The output of the verify step of every build (pipeline/BuildState.h),
/// touched when the plan must run again.
inline constexpr llvm::StringLiteral kVerifiedStamp = ".retune/verified";

struct ModelSteps {
  /// Files whose change re-plans.
  std::vector<std::string> planInputs;
  /// Further files a user takes away, written by a model step before the
  /// plan (with their hash beside them, stages/support/HashedFile.h):
  /// checked by `retune verify` in every build.
  std::vector<std::string> takeaways;
  /// The record of the model step that writes `takeaways` before the plan
  /// (the plan reads it): removed with a damaged take-away, so that the
  /// step runs again before the dump (pipeline/BuildState.h).
  std::string takeawaysRecord;
  /// Further inputs of the dump edge.
  std::vector<std::string> dumpInputs;
  /// False while a step the dump depends on (a model-level flag choice)
  /// has not run yet: the plan then has no dump edge.
  bool dumpReady = true;
  /// The model the dump edge reads when it is not modelForTools (the dump
  /// reads a model-level choice itself when it runs), and the variables its
  /// edge sets.
  std::string dumpModel;
  std::vector<std::pair<std::string, std::string>> dumpVariables;
  /// Order-only inputs of every candidates edge (no tuning before the
  /// model is known to compile) and inputs of the model step.
  std::vector<std::string> modelChecks;
};

/// The extra parts of one dispatch's candidates edge.
struct CandidatesEdgeParts {
  std::vector<std::string> extraOutputs;
  std::vector<std::string> implicitInputs;
  std::vector<std::pair<std::string, std::string>> variables;
};

/// What tune.toml validation needs to know before any tool is resolved.
struct BackendTraits {
  /// Optional tune.toml tables only this backend reads.
  std::vector<std::string> ownTables;
  /// Imports ONNX models itself (an `import` edge runs first).
  bool importsOnnx = false;
  /// Why `[cluster] kind = "slurm"` cannot run it; empty when it can.
  std::string slurmRefusal;
  /// Its candidate edges take a verify round (DispatchRound::verify): after
  /// a compiler change the previous winners are re-verified first.
  bool verifiesWinners = false;
};

class Backend {
public:
  virtual ~Backend();

  /// `[backend] kind`.
  virtual llvm::StringRef name() const = 0;
  virtual BackendTraits traits() const = 0;

  /// Reads `table`, one of traits().ownTables (all but [gpu], which
  /// stages/search/gpu reads), into `config`: the backend owns its
  /// tune.toml table, its keys and their checks. A key nothing claims is
  /// rejected with its line, so a backend without tables reads none.
  virtual Error readTable(llvm::StringRef table, TableReader &reader,
                          TuneConfig &config) const;

  /// Checks of the model `retune plan` can make before tuning starts
  /// (the file itself is checked for every backend).
  virtual Error checkModel(const TuneConfig &config) const = 0;

  /// `config` with the backend's tools found and pinned, after writing the
  /// plain files its steps read (gpu.toml, flags/sets.json). A missing tool
  /// or an unsupported version is the error, at plan time.
  virtual Expected<TuneConfig> prepare(const TuneConfig &config,
                                       const PlannerPaths &paths) const = 0;

  /// compiler.id: changes when what compiles (the compiler, its version,
  /// its flags, the host it targets) changes, and only then.
  virtual Expected<std::string>
  compilerIdentity(const TuneConfig &prepared,
                   const PlannerPaths &paths) const = 0;

  /// The stage tools: a rebuilt one re-plans.
  virtual std::vector<std::string> stageTools() const = 0;

  /// Variables of the graph's header (and pools that precede the shared
  /// ones); `writePools` follows the shared `compile` pool.
  virtual void writeVariables(NinjaWriter &w,
                              const TuneConfig &config) const = 0;
  virtual void writePools(NinjaWriter &w, const TuneConfig &config) const {}

  /// Plans the steps around the dump; `writeModelSteps` writes their edges.
  virtual ModelSteps planModelSteps(const TuneConfig &config,
                                    const PlannerPaths &paths) const = 0;
  virtual void writeModelSteps(NinjaWriter &w,
                               const TuneConfig &config) const = 0;

  /// What dispatch `id`'s candidates edge reads and writes beyond its
  /// problem.json and candidates/<id>/index.json.
  virtual CandidatesEdgeParts candidatesEdge(const TuneConfig &config,
                                             const PlannerPaths &paths,
                                             llvm::StringRef id) const = 0;

  /// Compile, bench and select edges of one round of a dispatch's
  /// candidates (a verify round only when traits().verifiesWinners);
  /// returns the round's select record (writeSelectEdge).
  virtual std::string writeCandidateEdges(NinjaWriter &w,
                                          const TuneConfig &config,
                                          const DispatchEntry &d,
                                          const CandidateIndex &index,
                                          const DispatchRound &round,
                                          CandidateGraph &graph) const = 0;
};

using BackendFactory = std::function<std::unique_ptr<Backend>()>;

/// The backend named `name`, or an error listing the known ones.
Expected<std::unique_ptr<Backend>> makeBackend(llvm::StringRef name);

/// The names `[backend] kind` accepts, in registration order.
std::vector<std::string> backendNames();

/// Adds a backend (tests register a fake one). A name registered twice
/// keeps the newer factory.
void registerBackend(llvm::StringRef name, BackendFactory factory);

/// The select edge of a round over its candidates' `results`; returns the
/// round's select record (every backend's per-dispatch edges end with it).
std::string writeSelectEdge(NinjaWriter &w, const DispatchRound &round,
                            std::vector<std::string> results);

/// The model as given: an ONNX model is imported to MLIR first, into the
/// build directory.
std::string importedModel(const TuneConfig &config);

/// The file the dump and model steps read: the imported model, or the
/// flag search's rewrite of it when its chosen set builds from that
/// (IreeConfig::chosenModel).
std::string modelForTools(const TuneConfig &config);

/// Where an imported model's weights go when they are external
/// (TuneConfig::externalParameters), relative to the build directory, in
/// the parameter scope `model`.
inline constexpr llvm::StringLiteral kParameterArchive = "import/model.irpa";

/// The built-in backends' factories (pipeline/backends/).
std::unique_ptr<Backend> makeMlirCpuBackend();
std::unique_ptr<Backend> makeIreeBackend();

} // namespace retune::pipeline

#endif // RETUNE_PIPELINE_BACKEND_H
