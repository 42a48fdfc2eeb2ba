//===- WinnerPruning.h - Which winners the whole model keeps ----*- C++ -*-===//
//
// Each winner beat the baseline on its own dispatch, in isolation. In the
// whole model a winner can still hurt (cache effects between dispatches, a
// spec that matches more than it should, a config that fails to compile in
// context). The model step of every backend asks the same questions in the
// same order; only how a set of winners is measured differs.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SUPPORT_WINNERPRUNING_H
#define RETUNE_SUPPORT_WINNERPRUNING_H

#include "stages/support/LLVM.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace retune {

struct Winner {
  std::string dispatch;
  /// The winning spec file.
  std::string spec;
  /// Its time over the baseline's on the dispatch benchmark (0: not read).
  double dispatchRatio = 0;
};

/// The winner of each selection record (best/<id>.json) that has one, in
/// the given order.
Expected<std::vector<Winner>> readWinners(ArrayRef<std::string> selectionFiles);

/// The spec files of `winners`, in order.
std::vector<std::string> specPaths(ArrayRef<Winner> winners);

/// The outcome of measuring the model with a spec made of some winners.
struct Trial {
  /// Faster than the baseline (and correct).
  bool helps = false;
  /// For the record: "0.912x the baseline time", or why it failed.
  std::string description;
  /// The model's time over the baseline's; 0 when the attempt failed.
  double ratio = 0;
};

/// Measures the model with exactly `winners` linked (maybe none); `tag`
/// names the attempt ("tuned", "solo-<dispatch>", "pruned") for its files.
/// An error aborts the decision: a failing compile or bench is a Trial.
using MeasureWinners =
    llvm::function_ref<Expected<Trial>(ArrayRef<Winner> winners, StringRef tag)>;

struct WinnerDecision {
  std::vector<Winner> kept;
  /// {"dispatch", "reason"} per dropped winner.
  llvm::json::Array dropped;
  /// One line for the report.
  std::string text;
  /// The tag of the measurement that describes `kept`.
  std::string finalTag;
};

/// All winners if together they make the model faster; else the ones that
/// help alone, if together those still make it faster; else none. The
/// winners of `untriedAlone` (dispatches too small to show alone in the
/// model, which joined the others for that) are never measured alone: when
/// together does not help, they go. So do those of `judgedInModel` (chosen
/// by their time in the model's profile, in a build with the others) when
/// together was timed and is not faster: alone each saves less, under the
/// same noise; when together failed, they are tried alone.
Expected<WinnerDecision>
decideWinners(ArrayRef<Winner> winners, MeasureWinners measure,
              ArrayRef<std::string> untriedAlone = {},
              ArrayRef<std::string> judgedInModel = {});

/// The candidates of one dispatch worth trying in the whole model, fastest
/// on the dispatch first.
struct DispatchOptions {
  std::string dispatch;
  std::vector<Winner> options;
};

struct InModelChoice {
  /// Per dispatch, the option that made the whole model fastest, if any
  /// made it faster at all; in the order of the dispatches.
  std::vector<Winner> chosen;
  /// {"dispatch", "spec", "model_ratio" and "measured" (the trial's
  /// description) or "failed"} per option measured.
  llvm::json::Array trials;
  /// {"dispatch", "reason"} per dispatch none of whose options helped.
  llvm::json::Array dropped;
  /// chooseInModelByProfile: per chosen dispatch, the microseconds a run
  /// its option saved in the model's profile.
  llvm::StringMap<double> savedUs;
};

/// Tries each dispatch's options (fastest on the dispatch first) alone in
/// the whole model (tag "option-<dispatch>-<k>") until one helps; that one
/// is chosen. A dispatch benchmark measures a kernel alone, hot in cache
/// and without its neighbours; in the model the fastest kernel alone is not
/// always the fastest (measured with IREE 3.13 on llvm-cpu: a dispatch 3.3x
/// faster alone made the MLP slower), so a slower option may still help.
Expected<InModelChoice> chooseInModel(ArrayRef<DispatchOptions> dispatches,
                                      MeasureWinners measure);

/// A dispatch's time in a profiled run of the whole model, microseconds a
/// run: its calls at their median (the mean where the profile gives no
/// single calls), and at their fastest. The median, not the mean: a few
/// calls the machine held up weigh on the mean of ten runs as much as the
/// option (the MLP's mmt4d at 2 threads: 20 calls, median 2501 us, mean
/// 2776, slowest 4751).
struct InModelTime {
  double medianUs = 0;
  double fastestUs = 0;
};

/// One build of the whole model with several dispatches' options linked
/// together, profiled: each dispatch's time in that model.
struct ProfiledBuild {
  /// Why there is no profile (the build failed, its results differ, the
  /// spec changed nothing, the profiler failed); empty when there is one.
  std::string failure;
  /// Per dispatch id.
  llvm::StringMap<InModelTime> inModel;
};

/// Builds the model with exactly `winners` linked (tag names the build's
/// files) and profiles it. An error aborts the choice: a failing build is
/// a ProfiledBuild with its failure.
using ProfileWinners = llvm::function_ref<Expected<ProfiledBuild>(
    ArrayRef<Winner> winners, StringRef tag)>;

/// How much faster in the model than without a spec a dispatch's option
/// must run, by its median and by its fastest calls, for the profile to
/// choose it.
inline constexpr double kProfiledDispatchMargin = 0.03;

/// How far a profiled build's untouched dispatches may run from their
/// baseline times, by median or by fastest calls (profileDrift), for that
/// measure to judge its options. Beyond it, a phase of the machine caught
/// one of the two profiles and the measure is left out of the judgement
/// (the other, steady one decides alone). The ViT at 2 threads, before
/// the drift was summed (profileDrift): a round whose untouched dispatches'
/// means ran 0.607x the baseline profile's by their median ratio and their
/// fastest calls 0.992x; the softmax's mean then read 1.07x and its
/// fastest calls 0.68x, the 17x24x384 matmul's 1.22x and 0.76x.
inline constexpr double kSteadyDrift = 1.2;

/// How a profiled build ran apart from its options: the time the
/// dispatches no option of it touched (at least 3) took a run in it over
/// their time in `baseline`, by median and by fastest calls. On this machine
/// whole profiles drift: in one build of the CRNN every dispatch's fastest
/// call ran 0.51-0.85x its baseline's and its mean 0.97-1.29x, the tuned
/// ones and the untouched alike. Their time summed, not the median of
/// their ratios: at 2 threads most of a model's dispatches take a few
/// microseconds, the workers' wake-up, which two profiles of one ViT build
/// put 1.29x (means) and 1.68x (fastest calls) apart by the median ratio
/// of its 44 untouched dispatches and 1.09x and 1.12x summed; a round
/// whose median ratio read 0.566x ran its untouched time 0.891x.
std::optional<InModelTime> profileDrift(const ProfiledBuild &build,
                                        const llvm::StringMap<InModelTime> &baseline,
                                        ArrayRef<Winner> round);

/// chooseInModel by the model's profile instead of its time: each round
/// builds every undecided dispatch's next option together (tag
/// "round-<k>") and profiles the model once; a dispatch whose time in it,
/// over its time in `baseline` (the model without a spec, profiled alike)
/// and corrected for the build's drift (profileDrift), is below
/// `1 - kProfiledDispatchMargin` by its median and by its fastest calls (by
/// the steady one alone where the other drifted beyond kSteadyDrift) is
/// chosen, the others go on to their next option. A round that fails is
/// split: each of its options in a build of its own
/// ("round-<k>-<dispatch>"). Dispatches without a baseline time are left
/// to chooseInModel with `measure`. The whole model's time is too noisy to
/// tell a dispatch's gain of a few percent from a round; one dispatch's
/// calls beside the untouched ones are less so, and one build tries them
/// all.
Expected<InModelChoice>
chooseInModelByProfile(ArrayRef<DispatchOptions> dispatches,
                       const llvm::StringMap<InModelTime> &baseline,
                       ProfileWinners profile, MeasureWinners measure);

} // namespace retune

#endif // RETUNE_SUPPORT_WINNERPRUNING_H
