//===- ModelFlags.h - The model-level search over compile flags -*- C++ -*-===//
//
// Some iree-compile flags change the code of every dispatch at once (data
// tiling, microkernels): measured with IREE 3.13 on this CPU they matter
// more than any one dispatch's config. Before the per-dispatch search, the
// flags step compiles the whole model with each candidate flag set, checks
// its results against the default build's and times it interleaved with the
// default; the fastest set that beats the default by the margin is chosen,
// and everything after it (dump, candidates, model) builds with it.
//
// Files: flags/sets.json (written by `retune plan`: the sets to try),
// flags/chosen.json (the step's record), compile_flags.txt (the flags to
// pass to iree-compile together with tuning_spec.mlir, one per line).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_MODELFLAGS_H
#define RETUNE_IREE_MODELFLAGS_H

#include "stages/backends/iree/CompileTiming.h"
#include "stages/core/Records.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace retune::iree {

namespace schema {
inline constexpr llvm::StringLiteral kFlagSets = "retune.flag-sets/1";
inline constexpr llvm::StringLiteral kFlags = "retune.flags/1";
} // namespace schema

using FlagSet = std::vector<std::string>;

/// The flag sets iree-compile is tried with on llvm-cpu when tune.toml says
/// nothing: data tiling with and without microkernels, of convolutions
/// too, convolutions as im2col matmuls, channels-last, and 3x3
/// convolutions by Winograd (ModelFlags.cpp says why).
std::vector<FlagSet> defaultCpuFlagSets();

/// flags/sets.json.
llvm::json::Value flagSetsToJson(llvm::ArrayRef<FlagSet> sets);
Expected<std::vector<FlagSet>> flagSetsFromJson(const llvm::json::Value &value);

/// One flag set, measured.
struct FlagSetOutcome {
  FlagSet flags;
  /// The model the set builds from when it is not the model as given: the
  /// search's rewrite of it (flags/rewritten.mlir, ModelRewrite.h).
  std::string input;
  Status status = Status::Ok;
  std::string message;
  double medianSeconds = 0;
  /// Time over the default build's, measured interleaved and estimated as
  /// the model step's (estimateInterleaved); 0 when the set failed.
  double ratio = 0;
  /// The 95% confidence bound of the ratio over the benchmark runs
  /// (stats::RatioEstimate::upper, as the model step's): a set is chosen
  /// only when it is below 1.
  double ratioUpper = 0;
  /// Runs the machine slowed left under three steady runs a side
  /// (tooFewSteadyRuns): the ratio says nothing either way yet. Set while
  /// the search times (not recorded).
  bool unsteady = false;
  /// Seconds the whole-model compile with the set took (part of what a
  /// set costs: a nightly run compiles the model many times), also when
  /// this run replayed the build from the cache (`compileCached`).
  double compileSeconds = 0;
  bool compileCached = false;
  /// Where that compile's time went (CompileTiming.h).
  std::vector<PassTime> compilePasses;
  /// Bytes of the set's module (.vmfb); 0 when unknown. Constants IREE
  /// computes once at compile time (Winograd's filters) grow it, and every
  /// deployment carries them.
  uint64_t moduleBytes = 0;
};

/// flags/chosen.json.
struct FlagChoice {
  double defaultMedianSeconds = 0;
  /// Seconds the whole-model compile with the default flags took.
  double defaultCompileSeconds = 0;
  std::vector<PassTime> defaultCompilePasses;
  /// Bytes of the default build's module; 0 when unknown.
  uint64_t defaultModuleBytes = 0;
  std::vector<FlagSetOutcome> sets;
  /// The chosen set (empty: the default flags won, or the default flags on
  /// the rewritten model when `chosenInput` names it).
  FlagSet chosen;
  /// The chosen set's FlagSetOutcome::input: what the later steps compile.
  std::string chosenInput;
  /// The fastest other set the chosen one was not established faster than
  /// (noteTiedSet; empty: none), and the model it builds from.
  FlagSet tiedWith;
  std::string tiedWithInput;
  /// What the search's rewrite of the model changed (RewriteReport), and
  /// the ops of the kind it left as they were, with why.
  std::vector<std::string> rewritten;
  std::vector<std::string> notRewritten;
  std::string reason;
};

llvm::json::Value toJson(const FlagChoice &choice);
Expected<FlagChoice> flagChoiceFromJson(const llvm::json::Value &value);

/// The fastest set that runs in less than `1 - margin` of the default's
/// time and computes the same results; none otherwise. Fills `chosen` and
/// `reason`.
void chooseFlagSet(FlagChoice &choice, double margin);

/// The set as a reason names it: its flags ("the default flags" when
/// none), and "on the rewritten model" when it builds from that.
std::string describeSet(const FlagSetOutcome &set);

/// After chooseFlagSet, with every set's run medians (`runMediansUs`, in
/// the order of `choice.sets`, all timed in the same rounds): the fastest
/// other timed set whose runs the chosen set's are not established faster
/// than (the ratio's 95% confidence bound not below 1) becomes `tiedWith`,
/// and the reason says so. Before tuning the two tie, yet only the chosen
/// set's dispatches are tuned; which set ends faster with its spec can
/// differ (measured on a ViT at 2 threads: docs/iree-backend.md), so the
/// reason names the other set and how to tune it in a build of its own
/// (`retune plan --tune-tied-set-of`).
void noteTiedSet(FlagChoice &choice,
                 llvm::ArrayRef<std::vector<double>> runMediansUs);

/// The sets whose gain is beyond `margin` but not established beyond noise
/// and that could still be chosen: faster than the fastest set whose gain
/// is established. Only these are worth more runs; a set slower than an
/// established one is not chosen whatever more runs say. A set timed
/// `unsteady` is one too, whatever its ratio: the machine slowed too many
/// of its runs for the ratio to say whether it could be chosen.
std::vector<size_t> undecidedContenders(llvm::ArrayRef<FlagSetOutcome> sets,
                                        double margin);

/// IREE's coarse knob for how a data-tiled matmul is split among the
/// workers: the bytes of operands one distribution tile holds (256 KB by
/// default in 3.13; "lower values can help use more threads").
inline constexpr llvm::StringLiteral kMatmulTileBytesFlag =
    "--iree-llvmcpu-matmul-tile-bytes=";
/// The tile bytes the refinement tries: at 2 threads on this project's VM,
/// 16 KB ran MiniLM in 0.92x, the CRNN in 0.93x and the ViT in 0.955x of
/// their chosen flags' time (4-64 KB all helped MiniLM; at 1 thread none
/// changed it): docs/iree-backend.md.
inline constexpr unsigned kRefinedMatmulTileBytes = 16384;

/// A set the search tries after timing the others: `flags` built from
/// `input`, refining set `parent` (none: the default flags); `what` says
/// so in the set's record.
struct Refinement {
  std::optional<size_t> parent;
  FlagSet flags;
  std::string input;
  std::string what;
};

/// On more than one worker, the fastest timed set whose build data-tiles
/// (its flags or `compileFlags` name the data tiling) with its data-tiled
/// matmuls split in kRefinedMatmulTileBytes tiles, chosen or not: on MiniLM
/// at 2 threads data tiling alone ran 0.986x the default flags' time and was
/// not chosen, with the finer tiles 0.915x. When `compileFlags` data-tile,
/// the default flags are refined if no set ran faster than they did. None
/// on one worker, without data tiling, or when `compileFlags` set the tile
/// bytes already.
std::optional<Refinement>
distributionRefinement(llvm::ArrayRef<std::string> compileFlags,
                       const FlagChoice &choice, unsigned workers);

/// IREE's switch for floating-point reductions: off by default in 3.13 (on
/// at its O2 codegen level), each vector of a reduction is added into one
/// scalar element by element, sixteen dependent adds a 16-wide vector; on,
/// the loop keeps a vector of partial sums. A layer norm's sum of squares
/// (the ViT's 257x384 f32, 1 thread, the dispatch benchmark): 70.5 us off,
/// 5.9 us on; whole models at 1 thread: MiniLM 14.9-15.0 -> 14.4-14.6 ms,
/// the ViT 175-180 -> 171-175 ms (docs/iree-backend.md).
inline constexpr llvm::StringLiteral kReassociateReductionsFlag =
    "--iree-llvmcpu-reassociate-fp-reductions=true";

/// After the choice, on any number of workers: the chosen set (the default
/// flags when none was chosen) with its floating-point reductions
/// reassociated. Sums in another order round differently: the set's
/// results are checked as every set's are. None when `compileFlags` or the
/// chosen set decide it already (the flag, or IREE's codegen level
/// `--iree-llvmcpu-mlir-opt-level`, which sets it).
std::optional<Refinement>
reductionRefinement(llvm::ArrayRef<std::string> compileFlags,
                    const FlagChoice &choice);

/// The refinements the search tries together after its first choice: on
/// more than one worker the distribution refinement and the same with its
/// reductions reassociated; on any number the reduction refinement. Each
/// once, as flags and input go.
std::vector<Refinement>
choiceRefinements(llvm::ArrayRef<std::string> compileFlags,
                  const FlagChoice &choice, unsigned workers);

} // namespace retune::iree

#endif // RETUNE_IREE_MODELFLAGS_H
