//===- Config.h - tune.toml, validated --------------------------*- C++ -*-===//
//
// The one place that knows tune.toml's keys, defaults and valid ranges
// (docs/config.md is the user-facing copy). Unknown keys and bad values are
// errors that name the file, the line, the key and what is allowed.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_PIPELINE_CONFIG_H
#define RETUNE_PIPELINE_CONFIG_H

#include "stages/core/Defaults.h"
#include "stages/support/LLVM.h"

#include <optional>
#include <map>
#include <string>
#include <vector>

namespace retune::pipeline {

/// The `[iree]` table: how to run IREE's tools for `[backend] kind = "iree"`.
struct IreeConfig {
  /// Tool paths; empty ones are searched in `toolsDir`, then on PATH, then
  /// in the project's .venv. `importOnnx` (iree-import-onnx) is needed only
  /// for .onnx models and defaults to the one beside iree-compile.
  std::string compile, opt, benchmark, toolsDir, importOnnx;
  /// Pins the IREE release instead of asking `iree-compile --version`.
  std::string version;
  /// Flags that compile the model for its target (also used for candidates).
  std::vector<std::string> compileFlags;
  /// The user's iree-benchmark-module flags for the whole model (inputs).
  std::vector<std::string> benchmarkFlags;
  /// Flag sets the model-level search tries beside the default flags; unset:
  /// data tiling with and without microkernels on llvm-cpu, none on GPUs.
  std::optional<std::vector<std::vector<std::string>>> flagSets;
  /// Flags `retune plan --pin-flag` added to compileFlags, turning the
  /// flag search off; re-plans keep them.
  std::vector<std::string> pinnedFlags;
  /// The compile flags before the search's choice is added (compileFlags
  /// holds both once `retune plan` has read flags/chosen.json).
  std::vector<std::string> baseCompileFlags;
  /// Whether the flag search may rewrite the model (ModelRewrite.h): off
  /// for a deployment that compiles the model exactly as given.
  bool rewriteModel = true;
  /// The model as the flag search rewrote it (flags/rewritten.mlir,
  /// ModelRewrite.h) when the chosen set builds from it: the steps after
  /// the search compile it. Empty: the model as given.
  std::string chosenModel;
  /// One depth-1 pool per device; benches are assigned round-robin.
  std::vector<std::string> devices = {"hip://0"};
  /// --benchmark_repetitions of every IREE benchmark.
  unsigned repetitions = defaults::kIreeRepetitions;
  /// Baseline/tuned alternations of the whole-model benchmark.
  unsigned modelRounds = defaults::kModelRounds;
  /// Per dispatch, how many of its fastest candidates are measured alone in
  /// the whole model to choose the one the model runs fastest with; 0 ships
  /// the dispatch benchmark's winner.
  unsigned modelCandidates = defaults::kModelCandidates;
  /// Absolute path of a profile weighting dispatches by time; empty: FLOPs.
  std::string profile;
  /// Seconds the dump (a whole-model compile) may take.
  unsigned dumpTimeout = defaults::kIreeDumpTimeoutSeconds;
};

/// The `[mlir-cpu]` table: the embedded compiler's own options.
struct MlirCpuConfig {
  /// Options of retune-compile (its --retune-* codegen options and LLVM's);
  /// part of the compiler identity, as an upgrade's changes are.
  std::vector<std::string> compileFlags;
};

/// The `[search]` table: how mlir-cpu orders a dispatch's candidates.
struct SearchConfig {
  /// Absolute path of a `retune-ranker train` model; empty: the cost
  /// heuristic's order.
  std::string ranker;
  /// With a ranker: the heuristic's best N stay among the candidates.
  unsigned explore = 0;
};

/// The `[cluster]` table: where compile and bench steps run. With kind
/// "slurm" each such step is one `srun` (docs/cluster.md).
struct ClusterConfig {
  /// "local" (this machine) or "slurm".
  std::string kind = "local";
  /// sbatch/srun --partition and --account; empty: the cluster's default.
  std::string partition, account;
  /// The GRES a bench holds one unit of (`--gres=<gres>:1`).
  std::string gres = "gpu";
  /// How many compiles run at once (the allocation's CPUs); 0: [tune] jobs,
  /// else this machine's cores.
  unsigned cpus = 0;
  /// How many benches run at once (the GRES units the allocation holds).
  unsigned devices = 1;
  /// Slurm time limits (--time, minutes) of one compile, bench and model
  /// step; 0: derived from the [compile] and [bench] timeouts.
  unsigned compileTimeMin = 0, benchTimeMin = 0, modelTimeMin = 0;
  /// Further srun flags of compile and of bench/model steps.
  std::vector<std::string> compileFlags, benchFlags;

  bool isSlurm() const { return kind == "slurm"; }
};

struct TuneConfig {
  /// Absolute path of tune.toml itself.
  std::string configPath;
  /// The line of each key that tune.toml sets ("model.entry" -> 3), so that
  /// checks after parsing (does the model exist? does it define the entry?)
  /// can still name the line.
  std::map<std::string, unsigned> keyLines;

  /// "<tune.toml>:<line>: " for a key tune.toml sets, else "<tune.toml>: ".
  std::string where(StringRef key) const;

  // [model]
  /// Absolute path of the model (relative paths resolve against tune.toml).
  std::string modelPath;
  /// Function the whole-model benchmark times; empty: the only one.
  std::string entry;
  /// An ONNX model (`.onnx`): the iree backend imports it first.
  bool modelIsOnnx() const { return llvm::StringRef(modelPath).ends_with(".onnx"); }
  /// From this size of ONNX file on, `parameters = "auto"` externalizes
  /// the weights: inlined, MiniLM's 69 MB become a 138 MB .mlir that every
  /// whole-model compile parses (3.9 s and 499 MB each, against 2.9 s and
  /// 176 MB with an archive, and a 94 KB module instead of 69 MB).
  static constexpr uint64_t kExternalParametersBytes = 32ull << 20;
  /// Where an imported model's weights go: "auto" (a parameter archive
  /// from kExternalParametersBytes of ONNX file on), "external" or "inline".
  std::string parameters = "auto";
  /// Whether the import writes the weights to a parameter archive
  /// (import/model.irpa) that every run of the model is given.
  bool externalParameters() const;

  // [backend]
  std::string backend = "mlir-cpu";

  // [tune]
  unsigned candidates = defaults::kCandidates;
  /// Depth of the compile pool; 0 means the number of cores.
  unsigned jobs = 0;
  /// Threads of the generated code.
  unsigned threads = 1;
  /// Dispatches below this share of the model's FLOPs keep the default.
  double minShare = 0;
  /// Tune only the K hottest dispatches; 0: all.
  unsigned topK = 0;
  /// Seconds one `ninja tune` may take before compile and bench steps stop
  /// starting (they are recorded `skipped` and done by the next run); 0:
  /// none. `retune plan --budget` overrides it.
  double budgetSeconds = 0;
  /// Set by `retune plan --budget`: re-plans keep it.
  bool budgetFromCommandLine = false;

  // [compile]
  unsigned compileTimeout = defaults::kCompileTimeoutSeconds;
  unsigned compileMemoryMB = defaults::kCompileMemoryMB;

  // [bench]
  unsigned warmup = defaults::kWarmup;
  unsigned repetitions = defaults::kRepetitions;
  double minSampleSeconds = defaults::kMinSampleSeconds;
  unsigned benchTimeout = defaults::kBenchTimeoutSeconds;
  unsigned seed = defaults::kSeed;

  // [cache]
  /// Root of the content-addressed cache; empty: the default
  /// ($RETUNE_CACHE_DIR or ~/.cache/retune); "off": no cache.
  std::string cacheDir;

  // [select]
  double margin = defaults::kMargin;

  // [cluster]
  ClusterConfig cluster;

  // [iree] (backend "iree" only)
  IreeConfig iree;
  MlirCpuConfig mlirCpu;
  SearchConfig search;
  /// The validated `[gpu]` table re-serialized as TOML (`[gpu]` header
  /// included) for retune-iree-candidates; empty when tune.toml has none.
  std::string gpuTable;
};

/// Parses and validates `path`.
Expected<TuneConfig> loadConfig(StringRef path);

/// Parses and validates TOML text (`path` is used in messages and to
/// resolve relative paths).
Expected<TuneConfig> parseConfig(StringRef text, StringRef path);

} // namespace retune::pipeline

#endif // RETUNE_PIPELINE_CONFIG_H
