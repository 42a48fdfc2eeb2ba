//===- ModelStage.h - Does the spec help the whole model? ------*- C++ -*-===//
//
// The work of the stage tool, callable from a unit: its main
// (stages/tools/iree/IreeModelMain.cpp) only parses the command line into
// ModelOptions.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_IREE_MODELSTAGE_H
#define RETUNE_STAGES_BACKENDS_IREE_MODELSTAGE_H

#include "stages/backends/iree/IreeRun.h"
#include "stages/backends/iree/ModelProfile.h"
#include "stages/backends/iree/ModelRun.h"
#include "stages/core/Records.h"
#include "stages/core/WinnerPruning.h"
#include "stages/support/LLVM.h"

#include <string>
#include <vector>

namespace retune::iree {

struct ModelOptions {
  /// The whole model's builds and timing (the flags stage's too).
  ModelRunOptions run;
  /// spec/linked.mlir: the link step's spec of every selected winner.
  std::string linkedPath{};
  /// The selection records (best/<id>.json) whose winners are tried.
  std::vector<std::string> selections;
  /// Tuning spec to write.
  std::string finalSpec{};
  /// Model result record (retune.model/2) to write.
  std::string outputPath{};
  /// Per dispatch, try up to this many of its fastest candidates alone in
  /// the whole model, fastest first, and keep the first that makes it
  /// faster (0: the dispatch's winner).
  unsigned inModel = 3;
  /// A spec helps the model only when it runs it in less than
  /// `1 - margin` of the baseline's time ([select] margin), beyond noise
  /// (modelTrial).
  double margin = 0.02;
};

/// The trial of one attempt timed against the baseline: its ratio is
/// stats::estimateRatio's of the tuned samples against the baseline's (as
/// every bench record's), and it helps when that ratio is below
/// `1 - margin` and the ratio's 95% confidence bound below 1: a spec is
/// kept only where the whole model gets faster by the margin, beyond
/// noise. A failed side, or no tuned sample, is a trial that does not
/// help, with ratio 0 and the failure's message.
Trial modelTrial(const InterleavedOutcome &timed, double margin);

/// Per selection record (`<build>/best/<id>.json`), the dispatch's
/// `inModel` fastest candidates that beat the baseline on the dispatch
/// (ratio < 1), fastest first, read from `<build>/results/<id>/` and
/// `<build>/candidates/<id>/index.json`; dispatches with none are left out.
/// A data-tiled matmul's grid that brings at most half the bytes of IREE's
/// own into the L2 (`bytes_into_l2` against `iree_bytes_into_l2`) and ran
/// within `kColdGridSlowestAlone` of the baseline alone is tried where no
/// other option brings as few, in its place among the winners if it won,
/// else in the last, its ratio unread (0) either way: the dispatch
/// benchmark repeats the dispatch with its weights warm in the cores' L2s,
/// the model does not (docs/iree-backend.md, "Grids the dispatch benchmark
/// cannot judge").
Expected<std::vector<DispatchOptions>>
readInModelOptions(llvm::ArrayRef<std::string> selections, unsigned inModel);

/// How much slower than the baseline, alone, a grid that streams far fewer
/// bytes through the L2 may run and still be tried in the model: the MLP's
/// mmt4d grid [16, 2] ran 1.08x IREE's [1, 1] on the dispatch benchmark at
/// 2 threads and its model 0.77x the time with it.
inline constexpr double kColdGridSlowestAlone = 1.15;

/// Each dispatch's share of the model's time, by dispatch id: of `profile`
/// (the baseline under IREE's profiler) where the profiler saw it, else its
/// share of the model's FLOPs as the dump counted them.
llvm::StringMap<double>
modelTimeShares(llvm::ArrayRef<DispatchEntry> dispatches,
                llvm::ArrayRef<DispatchTime> profile);

/// How far short of the margin a candidate's bound may fall and still be
/// tried in the model: the dispatch benchmark may understate a gain in the
/// model by this factor. Measured with IREE 3.13 on llvm-cpu, it overstated
/// it: the CRNN's LSTM matmul 1.15x on the dispatch, 1.07x in the model's
/// profile (2 threads); MiniLM's nine options with bounds of 0.1-0.3% ran
/// the model in 0.993-1.019x (1 thread).
inline constexpr double kInModelSlack = 2;

/// A candidate alone can save at most its dispatch's share of the model's
/// time times what it saves on the dispatch, `share * (1 - ratio)`. Each
/// try in the model is a whole-model compile and an interleaved timing, so
/// options whose bound is below `margin / kInModelSlack` are left out, and
/// a dispatch none of whose options is left goes (returned as
/// {"dispatch", "reason"}). Dispatches without a share, and options
/// without a dispatch ratio, stay.
llvm::json::Array keepPromisingOptions(std::vector<DispatchOptions> &dispatches,
                                       const llvm::StringMap<double> &shares,
                                       double margin);

/// The winners (from `winners`, the selections') of the dispatches
/// keepPromisingOptions left out: each too small to show alone in the
/// model, together they may. When their bounds add up to
/// `margin / kInModelSlack` they are returned, to join the chosen ones
/// untried (the trial together, then each alone, decides for them as for
/// the others), and leave `unpromising`; else none.
std::vector<Winner> smallWinnersTogether(llvm::json::Array &unpromising,
                                         llvm::ArrayRef<Winner> winners,
                                         double margin);

/// Each dump dispatch's time in a model profiled over `runs` runs,
/// microseconds a run, by dispatch id: its functions' calls at their mean
/// and at their fastest (DispatchTime::minUs), what chooseInModelByProfile
/// compares.
llvm::StringMap<InModelTime>
inModelTimes(llvm::ArrayRef<DispatchEntry> dispatches,
             llvm::ArrayRef<DispatchTime> profile, unsigned runs);

/// The dispatches of `savedUs` (chooseInModelByProfile's) whose saving is
/// below `margin / kInModelSlack` of the model's time a run in `baseline`
/// (its profile over `runs` runs): too small to show alone in the model's
/// time, they are not tried alone (decideWinners' untriedAlone). Sorted.
std::vector<std::string> tooSmallAlone(const llvm::StringMap<double> &savedUs,
                                       llvm::ArrayRef<DispatchTime> baseline,
                                       unsigned runs, double margin);

/// How many more timings an undecided whole-model trial of `some` may take
/// (ModelRunner::timeDecisively): kMoreTimingsWhenPredicted when the
/// model's profile predicts that together they save at least `margin` of
/// its time a run in `baseline` (the sum of their `savedUs`,
/// chooseInModelByProfile's), else kMoreTimings. A gain the dispatches'
/// own times in the model showed is worth timing longer than a guess: on
/// a noisy host nine runs a side cannot establish a 5-10% gain.
unsigned moreTimingsFor(llvm::ArrayRef<Winner> some,
                        const llvm::StringMap<double> &savedUs,
                        llvm::ArrayRef<DispatchTime> baseline, unsigned runs,
                        double margin);

/// Compiles the whole model without and with specs, benchmarks both
/// alternately on one device, decides which winners the model keeps
/// (chooseInModelByProfile or chooseInModel, decideWinners) and writes the
/// final spec and the result.
/// IREE's tools start through `processes`.
Error runModelStage(const ModelOptions &options,
                    ProcessRunner &processes = systemProcessRunner());

} // namespace retune::iree

#endif // RETUNE_STAGES_BACKENDS_IREE_MODELSTAGE_H
