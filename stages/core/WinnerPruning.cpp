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
                                       ArrayRef<std::string> untriedAlone) {
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

} // namespace retune
