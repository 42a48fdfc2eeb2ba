//===- Records.h - The JSON records stage tools exchange --------*- C++ -*-===//
//
// Every file a stage writes for another stage is one of these records. Each
// carries a `schema` string ("retune.<kind>/<version>"); readers reject a
// record whose schema they do not know, naming the file.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SUPPORT_RECORDS_H
#define RETUNE_SUPPORT_RECORDS_H

#include "stages/core/Problem.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>

#include <optional>
#include <string>
#include <vector>

namespace retune {

/// Outcome of one candidate at one stage. Candidate-level failures are data.
/// Wall-clock time as Unix seconds: when a step started, so that the report
/// can measure a stage's wall time as the union of its steps' intervals.
double unixSeconds();

/// What became of a step. `NotApplied`: the candidate's spec changed nothing
/// (its module is byte-identical to the baseline's: the matcher did not hit).
enum class Status {
  Ok,
  CompileError,
  Crash,
  Timeout,
  WrongResult,
  BenchError,
  NotApplied,
  /// Not run: the run's time budget was spent. The record is left older
  /// than its inputs, so the next `ninja tune` runs the step.
  Skipped
};
llvm::StringRef toString(Status status);
std::optional<Status> parseStatus(llvm::StringRef text);

/// dispatches/index.json entry.
struct DispatchEntry {
  std::string id;
  std::string name;
  /// Function holding the dispatch in dispatches/<id>/dispatch.mlir.
  std::string func;
  double flops = 0;
  /// Fraction of the model's root-op FLOPs in this dispatch (0..1].
  double share = 0;
  /// How many times the model contains this dispatch.
  unsigned occurrences = 1;
  Problem problem;
  /// BLAKE3 of dispatches/<id>/dispatch.mlir as the dump wrote it (empty:
  /// unknown), so that a damaged dispatch file is noticed.
  std::string irHash;
  /// The exports of every executable the dump found with this problem
  /// (the model's names for the dispatch, `name` among them); empty in a
  /// record that predates them.
  std::vector<std::string> exports;
  /// With the model's profile: the share of its time this dispatch could
  /// give back, its time above what its FLOPs take at the CPU's peak rate
  /// (negative: not known). The planner tunes in this order.
  double gainShare = -1;
  /// With the model's profile: its FLOP rate there over the CPU's peak
  /// (0: not bound by FLOPs, or not known).
  double peakFraction = 0;
  /// That peak rate, FLOPs a second (0: not known): the report judges the
  /// dispatch's time in the model step's profile against it.
  double peakFlopsPerSecond = 0;

  /// The planner's order (and top_k's): time to gain where known, else
  /// the share of the model.
  double priority() const { return gainShare >= 0 ? gainShare : share; }
  /// `exports`, or `name` alone when the record has none.
  std::vector<std::string> allExports() const {
    return exports.empty() ? std::vector<std::string>{name} : exports;
  }
};

struct DispatchIndex {
  std::string model;
  double totalFlops = 0;
  std::vector<DispatchEntry> dispatches;
};

/// candidates/<id>/index.json entry.
struct CandidateEntry {
  unsigned index = 0;
  /// Spec file name relative to candidates/<id>/.
  std::string file;
  /// Backend-specific knob values.
  llvm::json::Object config;
  /// Heuristic cost estimate; lower is better.
  double cost = 0;
  /// BLAKE3 of the spec file as written (empty: unknown).
  std::string specHash;
};

struct CandidateIndex {
  std::string dispatch;
  /// Valid configurations in the whole space (before taking the first N).
  uint64_t totalSolutions = 0;
  double enumerationSeconds = 0;
  /// When the enumeration started (Unix seconds; 0 = unknown).
  double startedAt = 0;
  /// Why there are no candidates, when there are none.
  std::string note;
  /// Hash of everything the index was made from (empty: unknown): a step
  /// that finds its record with the same key has nothing to redo.
  std::string key;
  std::vector<CandidateEntry> candidates;
  /// After a compiler change (pipeline/Reverify.h), what became of the
  /// previous winner: "kept" (it still wins; it is the only candidate) or
  /// "re-searched"; `reverifyWhy` says why, for the report. Empty when the
  /// dispatch had no winner to verify.
  std::string reverify, reverifyWhy;
  /// With a ranker model (`[search] ranker`): "learned" when the model
  /// ordered the candidates, "heuristic" when it had too little data like
  /// this dispatch; `orderWhy` says which. Empty without a model.
  std::string order, orderWhy;
};

/// A tensor argument or result of a compiled function.
struct TensorSpec {
  std::vector<int64_t> shape;
  /// "f32", "f64", "f16", "bf16", "i8", "i32", "i64".
  std::string elementType;
};

/// The C interface of one compiled public function (`_mlir_ciface_<name>`).
struct FuncSignature {
  std::string name;
  std::vector<TensorSpec> args;
  std::vector<TensorSpec> results;
};

/// artifacts/<id>/<n>.json.
struct CompileRecord {
  Status status = Status::Ok;
  std::string message;
  /// Path of the compiled object, relative to the build directory.
  std::string artifact;
  std::string artifactHash;
  double seconds = 0;
  /// When this step started (Unix seconds; 0 = unknown). With `seconds` it
  /// is the interval the step occupied in this build.
  double startedAt = 0;
  /// Replayed from the content-addressed cache instead of compiled.
  bool cached = false;
  /// Hash of the compile's inputs and settings (see CandidateIndex::key).
  std::string key;
  std::vector<FuncSignature> functions;
};

/// Where Slurm ran a step (docs/cluster.md): read from the environment
/// srun gives the step, so a record shows which job measured it and which
/// devices that job held.
struct SlurmPlacement {
  std::string jobId, stepId, node;
  /// The GRES indices of the step (SLURM_STEP_GPUS, else SLURM_JOB_GPUS).
  std::string gpus;
  /// CUDA_VISIBLE_DEVICES as Slurm set it.
  std::string visibleDevices;
};

/// The placement of this process, or none outside a Slurm job.
std::optional<SlurmPlacement> slurmPlacementFromEnv();

/// results/<id>/<n>.json.
struct BenchRecord {
  Status status = Status::Ok;
  std::string message;
  std::vector<double> samples;
  std::vector<double> baselineSamples;
  double median = 0;
  double baselineMedian = 0;
  /// Candidate over baseline time, below 1 is faster, and half the IQR of
  /// the sample ratios: one definition for every backend
  /// (stages/core/Statistics.h, retune.bench/2).
  double ratio = 0;
  double noise = 0;
  double maxError = 0;
  double seconds = 0;
  /// When this step started (Unix seconds; 0 = unknown).
  double startedAt = 0;
  /// Replayed from the content-addressed cache instead of measured.
  bool cached = false;
  /// Hash of the measurement's inputs and settings (see CandidateIndex::key).
  std::string key;
  /// CPU time of the measuring process over its wall time (0: unknown).
  /// Below ~0.9 something else took the CPU while it measured.
  double cpuShare = 0;
  /// The 1-minute load average when the measurement ended (0: unknown).
  double loadAverage = 0;
  /// Another process competed for the device: used in this run, never
  /// cached.
  bool disturbed = false;
  /// The Slurm job that wrote this record; none for a local step.
  std::optional<SlurmPlacement> slurm;
};

/// best/<id>.json: a dispatch's winner, or why it keeps the default.
struct SelectRecord {
  std::string dispatch;
  /// The winning candidate and its spec file ("" when none won).
  std::optional<unsigned> winner;
  std::string spec;
  double ratio = 1;
  /// The margin the winner had to beat: max(configured margin, noise).
  double requiredMargin = 0;
  std::string reason;
  /// Candidates per status name ("ok", "crash", ...).
  std::map<std::string, unsigned> statusCounts;
};

/// model/result.json: the whole model with the final spec, every backend.
struct ModelRecord {
  std::string model;
  /// The device the model ran on (iree); empty for this CPU (mlir-cpu).
  std::string device;
  Status status = Status::Ok;
  std::string message;
  /// One line: which winners the model kept and why.
  std::string decision;
  double baselineMedian = 0;
  double tunedMedian = 0;
  /// baselineMedian / tunedMedian (1 when nothing was kept).
  double speedup = 1;
  /// Tuned over baseline time and its noise, as stats::estimateRatio.
  double ratio = 1;
  double noise = 0;
  double maxError = 0;
  std::vector<std::string> winnersKept;
  /// {"dispatch", "reason"} per dropped winner.
  llvm::json::Array winnersDropped;
  /// iree: each candidate measured alone in the model.
  llvm::json::Array inModelTrials;
  /// iree: where the model's time goes, from IREE's profiler: per dispatch
  /// function `function`, `dispatch` (its id when the dump listed it),
  /// `calls_per_run`, `baseline_us` and `tuned_us` (mean time of one call
  /// in the model without and with the spec); slowest first.
  llvm::json::Array inModelProfile;
  /// iree: why there is no profile (empty when there is one).
  std::string profileNote;
  /// iree: the kept winners the model's compile does not apply from the
  /// spec, delivered as configured executables: per executable `dispatch`,
  /// `executable` and `file` (in the executables folder beside the spec).
  llvm::json::Array executables;
  /// iree: how the spec reaches the dispatches, or why it was not checked.
  std::string specReach;
  /// The run's time budget cut this step short (iree: all winners together
  /// only): the next run's VERIFY removes the record, so the step is redone.
  bool budgetLimited = false;
  /// Whether (and how) the tuned model's results were checked.
  std::string resultsChecked;
  std::vector<double> baselineSamples;
  std::vector<double> tunedSamples;
  double seconds = 0;
  double startedAt = 0;
};

llvm::json::Value toJson(const DispatchIndex &index);
llvm::Expected<DispatchIndex> dispatchIndexFromJson(const llvm::json::Value &v);
llvm::json::Value toJson(const CandidateIndex &index);
llvm::Expected<CandidateIndex>
candidateIndexFromJson(const llvm::json::Value &v);
llvm::json::Value toJson(const FuncSignature &signature);
llvm::Expected<FuncSignature> funcSignatureFromJson(const llvm::json::Value &v);
llvm::json::Value toJson(const CompileRecord &record);
llvm::Expected<CompileRecord> compileRecordFromJson(const llvm::json::Value &v);
llvm::json::Value toJson(const BenchRecord &record);
llvm::Expected<BenchRecord> benchRecordFromJson(const llvm::json::Value &v);
llvm::json::Value toJson(const SelectRecord &record);
llvm::Expected<SelectRecord> selectRecordFromJson(const llvm::json::Value &v);
llvm::json::Value toJson(const ModelRecord &record);
llvm::Expected<ModelRecord> modelRecordFromJson(const llvm::json::Value &v);

/// Reads dispatches/<id>/problem.json: a dispatch index with exactly one entry.
llvm::Expected<DispatchEntry> readDispatchProblem(llvm::StringRef path);

/// The numbers of an ok candidate-vs-baseline record within what a
/// measurement can give (ratio in [1e-6, 1e6], noise in [0, 1e6], both
/// medians in (1e-12 s, 1e9 s)): a ratio of 1e-320 or a negative noise is a
/// record that lies, and selection must not take it.
llvm::Error checkMeasuredComparison(const BenchRecord &record);

/// A record that exists but cannot be used (garbled, truncated, a field of
/// the wrong type or out of range, an unknown schema) is damaged state:
/// Ninja would see it up to date forever. It is removed, so that the next
/// `ninja tune` redoes the step that writes it, and the error says so.
llvm::Error damagedRecord(llvm::StringRef path, const llvm::Twine &problem);

/// Reads `path`, parses JSON and checks `schema`. Errors name the file; a
/// damaged record is removed (damagedRecord).
llvm::Expected<llvm::json::Value> readJsonFile(llvm::StringRef path,
                                               llvm::StringRef schema);

/// Pretty-prints `value` and writes it if changed (atomic).
llvm::Error writeJsonFile(llvm::StringRef path, const llvm::json::Value &value);

/// A step the run's budget stopped (stages/support/RunBudget.h): writes the
/// record of a compile or bench with status `skipped` and `message`, and
/// notes it in the ledger so that the next run does the step.
llvm::Error writeSkippedRecord(llvm::StringRef path, llvm::StringRef message, bool isBench);

/// writeJsonFile with the hash beside it (stages/support/HashedFile.h): for
/// the records the graph hangs on (indexes, problems) and the summary.
llvm::Error writeHashedJsonFile(llvm::StringRef path,
                                const llvm::json::Value &value);

/// Typed read: readJsonFile + the matching fromJson, errors prefixed by path.
template <typename T>
llvm::Expected<T> readRecord(llvm::StringRef path, llvm::StringRef schema,
                             llvm::Expected<T> (*parse)(const llvm::json::Value &)) {
  llvm::Expected<llvm::json::Value> value = readJsonFile(path, schema);
  if (!value)
    return value.takeError();
  llvm::Expected<T> record = parse(*value);
  if (!record)
    return damagedRecord(path, llvm::toString(record.takeError()));
  return record;
}

/// Reads a compile record (artifacts/<id>/<n>.json) or a bench record
/// (retune.bench/2) with readRecord: errors name the file.
llvm::Expected<CompileRecord> readCompileRecord(llvm::StringRef path);
llvm::Expected<BenchRecord> readBenchRecord(llvm::StringRef path);

namespace schema {
inline constexpr llvm::StringLiteral kDispatches = "retune.dispatches/1";
inline constexpr llvm::StringLiteral kCandidates = "retune.candidates/1";
inline constexpr llvm::StringLiteral kCompile = "retune.compile/1";
inline constexpr llvm::StringLiteral kBench = "retune.bench/2";
inline constexpr llvm::StringLiteral kSelect = "retune.select/1";
inline constexpr llvm::StringLiteral kModel = "retune.model/2";
inline constexpr llvm::StringLiteral kSummary = "retune.summary/1";
inline constexpr llvm::StringLiteral kSignature = "retune.signature/1";
} // namespace schema

} // namespace retune

#endif // RETUNE_SUPPORT_RECORDS_H
