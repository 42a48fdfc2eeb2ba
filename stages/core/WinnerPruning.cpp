//===- WinnerPruning.cpp - Which winners the whole model keeps ------------===//
#include "stages/core/WinnerPruning.h"

#include "stages/support/FileUtil.h"
#include "stages/core/Records.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>

using namespace llvm;

namespace retune {

Expected<std::vector<Winner>> readWinners(ArrayRef<std::string> selectionFiles) {
  std::vector<Winner> winners;
  for (const std::string &path : selectionFiles) {
    Expected<SelectRecord> record =
        readRecord<SelectRecord>(path, schema::kSelect, selectRecordFromJson);
    if (!record)
      return record.takeError();
    if (record->winner)
      winners.push_back({record->dispatch, record->spec});
  }
  return winners;
}

std::vector<std::string> specPaths(ArrayRef<Winner> winners) {
  std::vector<std::string> paths;
  for (const Winner &w : winners)
    paths.push_back(w.spec);
  return paths;
}

static json::Object droppedEntry(const Winner &w, const Twine &reason) {
  return json::Object{{"dispatch", w.dispatch}, {"reason", reason.str()}};
}

Expected<WinnerDecision> decideWinners(ArrayRef<Winner> winners,
                                       MeasureWinners measure,
                                       ArrayRef<std::string> untriedAlone,
                                       ArrayRef<std::string> judgedInModel) {
  WinnerDecision d;
  d.kept.assign(winners.begin(), winners.end());
  d.finalTag = "tuned";
  Expected<Trial> together = measure(d.kept, d.finalTag);
  if (!together)
    return together.takeError();
  if (winners.empty()) {
    d.text = "no dispatch had a winner; the spec is empty";
    return d;
  }
  if (together->helps) {
    d.text = "all winners kept";
    return d;
  }
  // Each alone: the ones that do not help go.
  d.kept.clear();
  for (const Winner &w : winners) {
    if (is_contained(untriedAlone, w.dispatch)) {
      d.dropped.push_back(droppedEntry(
          w, "together the winners give " + together->description +
                 "; too small to save the margin alone, it is not tried "
                 "alone"));
      continue;
    }
    if (together->ratio > 0 && is_contained(judgedInModel, w.dispatch)) {
      d.dropped.push_back(droppedEntry(
          w, "together the winners give " + together->description +
                 "; its gain was measured in the model's profile beside the "
                 "others, so it is not timed alone"));
      continue;
    }
    Expected<Trial> alone = measure({w}, "solo-" + w.dispatch);
    if (!alone)
      return alone.takeError();
    if (alone->helps)
      d.kept.push_back(w);
    else
      d.dropped.push_back(droppedEntry(w, "alone it gives " + alone->description));
  }
  if (!d.kept.empty() && d.kept.size() < winners.size()) {
    d.finalTag = "pruned";
    Expected<Trial> rest = measure(d.kept, d.finalTag);
    if (!rest)
      return rest.takeError();
    if (rest->helps) {
      d.text = formatv("the tuned model was not faster; dropped {0} of {1} "
                       "winners",
                       d.dropped.size(), winners.size())
                   .str();
      return d;
    }
    together = std::move(rest);
  }
  // Every winner helps alone yet not together, or what is left still does not.
  for (const Winner &w : d.kept)
    d.dropped.push_back(droppedEntry(
        w, "together the remaining winners give " + together->description));
  d.kept.clear();
  d.text = "no combination of winners made the model faster; the spec is empty";
  return d;
}

Expected<InModelChoice> chooseInModel(ArrayRef<DispatchOptions> dispatches,
                                      MeasureWinners measure) {
  InModelChoice choice;
  for (const DispatchOptions &d : dispatches) {
    std::optional<Winner> best;
    std::string closest = "failed";
    for (auto [k, option] : enumerate(d.options)) {
      Expected<Trial> trial =
          measure({option}, formatv("option-{0}-{1}", d.dispatch, k).str());
      if (!trial)
        return trial.takeError();
      json::Object entry{{"dispatch", d.dispatch}, {"spec", option.spec}};
      if (trial->ratio > 0) {
        entry["model_ratio"] = trial->ratio;
        // The verdict with its evidence (a bound, the runs, the margin).
        entry["measured"] = trial->description;
      } else
        entry["failed"] = trial->description;
      choice.trials.push_back(std::move(entry));
      if (k == 0 || trial->ratio > 0)
        closest = trial->description;
      // The first option that helps is kept: the options come fastest
      // first, and each further one costs a whole-model compile and timing
      // (on the ViT 14 trials took 17 of its 25 minutes).
      if (trial->helps && trial->ratio > 0 && trial->ratio < 1) {
        best = option;
        break;
      }
    }
    if (best)
      choice.chosen.push_back(*best);
    else
      choice.dropped.push_back(droppedEntry(
          {d.dispatch, ""},
          d.options.size() == 1
              ? "alone it gives " + closest
              : formatv("alone in the model none of its {0} fastest "
                        "candidates helps (last: {1})",
                        d.options.size(), closest)
                    .str()));
  }
  return choice;
}

namespace {

/// A dispatch waiting for its next option to be profiled in the model.
struct PendingDispatch {
  const DispatchOptions *options;
  InModelTime baseline;
  size_t next = 0;
  /// The last option's outcome, for the reason it is dropped.
  std::string last;
};

/// Whether a build whose untouched dispatches ran `drift` times their
/// baseline time is steady enough for that measure to judge (kSteadyDrift).
bool steadyDrift(double drift) {
  return drift > 0 && drift <= kSteadyDrift && drift >= 1 / kSteadyDrift;
}

/// Judges `option` of `p` by `build` (the model it was profiled in with
/// `others` more options; `untouched`: how the build ran apart from them,
/// profileDrift): records the trial, and returns whether it is chosen.
bool judgeProfiled(PendingDispatch &p, const Winner &option,
                   const ProfiledBuild &build, size_t others,
                   const std::optional<InModelTime> &untouched,
                   InModelChoice &choice) {
  StringRef id = p.options->dispatch;
  json::Object entry{{"dispatch", id.str()}, {"spec", option.spec}};
  auto tuned = build.inModel.find(id);
  if (!build.failure.empty() || tuned == build.inModel.end()) {
    p.last = !build.failure.empty()
                 ? build.failure
                 : std::string("the dispatch is not in the model's profile");
    entry["failed"] = p.last;
    choice.trials.push_back(std::move(entry));
    return false;
  }
  InModelTime drift = untouched.value_or(InModelTime{1, 1});
  const InModelTime &t = tuned->second;
  double median = t.medianUs / p.baseline.medianUs / drift.medianUs;
  double fastest = p.baseline.fastestUs > 0
                       ? t.fastestUs / p.baseline.fastestUs / drift.fastestUs
                       : median;
  std::string against =
      untouched ? formatv("over the {0:f3}x and {1:f3}x the untouched "
                          "dispatches ran in that build",
                          drift.medianUs, drift.fastestUs)
                      .str()
                : std::string("too few untouched dispatches to correct for "
                              "how that build ran");
  p.last = formatv("{0:f3}x its time in the model without a spec by its "
                   "median call, {1:f3}x at its fastest calls ({2:f1} -> "
                   "{3:f1} us a run under IREE's profiler, {4}; built with "
                   "{5} other option(s))",
                   median, fastest, p.baseline.medianUs, t.medianUs, against,
                   others)
               .str();
  double bar = 1 - kProfiledDispatchMargin;
  bool medianSteady = steadyDrift(drift.medianUs),
       fastestSteady = steadyDrift(drift.fastestUs);
  bool chosen;
  if (medianSteady != fastestSteady) {
    chosen = (medianSteady ? median : fastest) < bar;
    p.last += formatv("; judged by its {0} alone: the untouched dispatches' "
                      "{1} drifted beyond {2:f1}x, which says more of the "
                      "machine than of the option",
                      medianSteady ? "median calls" : "fastest calls",
                      medianSteady ? "fastest calls" : "median calls", kSteadyDrift)
                  .str();
  } else {
    chosen = median < bar && fastest < bar;
    if (!chosen && std::min(median, fastest) < 1)
      p.last +=
          formatv("; an option must run it in less than {0:f2}x by both", bar)
              .str();
  }
  entry["dispatch_in_model_ratio"] = median;
  entry["dispatch_in_model_fastest_ratio"] = fastest;
  entry["measured"] = p.last;
  choice.trials.push_back(std::move(entry));
  if (chosen)
    choice.savedUs[id] = p.baseline.medianUs * (1 - median);
  return chosen;
}

} // namespace

std::optional<InModelTime> profileDrift(const ProfiledBuild &build,
                                        const StringMap<InModelTime> &baseline,
                                        ArrayRef<Winner> round) {
  InModelTime inBuild, inBaseline;
  size_t untouched = 0;
  for (const auto &[id, t] : build.inModel) {
    auto base = baseline.find(id);
    if (base == baseline.end() || base->second.medianUs <= 0 ||
        base->second.fastestUs <= 0 ||
        llvm::any_of(round, [&](const Winner &w) { return w.dispatch == id; }))
      continue;
    inBuild.medianUs += t.medianUs;
    inBuild.fastestUs += t.fastestUs;
    inBaseline.medianUs += base->second.medianUs;
    inBaseline.fastestUs += base->second.fastestUs;
    ++untouched;
  }
  constexpr size_t kFewestUntouched = 3;
  if (untouched < kFewestUntouched)
    return std::nullopt;
  return InModelTime{inBuild.medianUs / inBaseline.medianUs,
                     inBuild.fastestUs / inBaseline.fastestUs};
}

Expected<InModelChoice>
chooseInModelByProfile(ArrayRef<DispatchOptions> dispatches,
                       const StringMap<InModelTime> &baseline,
                       ProfileWinners profile, MeasureWinners measure) {
  InModelChoice choice;
  std::vector<DispatchOptions> unprofiled;
  std::vector<PendingDispatch> pending;
  for (const DispatchOptions &d : dispatches) {
    auto base = baseline.find(d.dispatch);
    if (base != baseline.end() && base->second.medianUs > 0 &&
        !d.options.empty())
      pending.push_back({&d, base->second});
    else
      unprofiled.push_back(d);
  }
  StringMap<Winner> chosen;
  for (unsigned k = 0; !pending.empty(); ++k) {
    std::vector<Winner> round;
    for (const PendingDispatch &p : pending)
      round.push_back(p.options->options[p.next]);
    std::string tag = formatv("round-{0}", k).str();
    Expected<ProfiledBuild> together = profile(round, tag);
    if (!together)
      return together.takeError();
    std::optional<InModelTime> togetherDrift =
        profileDrift(*together, baseline, round);
    std::vector<PendingDispatch> undecided;
    for (auto [p, option] : llvm::zip(pending, round)) {
      ProfiledBuild alone;
      const ProfiledBuild *build = &*together;
      size_t others = round.size() - 1;
      std::optional<InModelTime> drift = togetherDrift;
      // A round that fails says nothing of each option: each gets a build
      // of its own.
      if (!together->failure.empty() && round.size() > 1) {
        Expected<ProfiledBuild> own =
            profile({option}, tag + "-" + p.options->dispatch);
        if (!own)
          return own.takeError();
        alone = std::move(*own);
        build = &alone;
        others = 0;
        drift = profileDrift(alone, baseline, option);
      }
      if (judgeProfiled(p, option, *build, others, drift, choice)) {
        chosen[p.options->dispatch] = option;
        continue;
      }
      if (++p.next < p.options->options.size()) {
        undecided.push_back(p);
        continue;
      }
      choice.dropped.push_back(droppedEntry(
          {p.options->dispatch, ""},
          p.options->options.size() == 1
              ? "in the model it runs " + p.last
              : formatv("in the model none of its {0} fastest candidates "
                        "helps (last: {1})",
                        p.options->options.size(), p.last)
                    .str()));
    }
    pending = std::move(undecided);
  }
  Expected<InModelChoice> rest = chooseInModel(unprofiled, measure);
  if (!rest)
    return rest.takeError();
  // In the order of the dispatches, as chooseInModel's.
  for (const DispatchOptions &d : dispatches) {
    if (auto c = chosen.find(d.dispatch); c != chosen.end())
      choice.chosen.push_back(c->second);
    for (const Winner &w : rest->chosen)
      if (w.dispatch == d.dispatch)
        choice.chosen.push_back(w);
  }
  for (json::Value &t : rest->trials)
    choice.trials.push_back(std::move(t));
  for (json::Value &t : rest->dropped)
    choice.dropped.push_back(std::move(t));
  return choice;
}

} // namespace retune
