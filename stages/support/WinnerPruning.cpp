//===- WinnerPruning.cpp - Which winners the whole model keeps ------------===//
#include "stages/support/WinnerPruning.h"

#include "stages/support/FileUtil.h"
#include "stages/support/Records.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace retune {

Expected<std::vector<Winner>> readWinners(ArrayRef<std::string> selectionFiles) {
  std::vector<Winner> winners;
  for (const std::string &path : selectionFiles) {
    Expected<json::Value> value = readJsonFile(path, schema::kSelect);
    if (!value)
      return value.takeError();
    const json::Object *object = value->getAsObject();
    std::optional<StringRef> spec = object->getString("spec");
    std::optional<StringRef> dispatch = object->getString("dispatch");
    if (!spec || !dispatch || dispatch->empty())
      return damagedRecord(path, "'spec' and 'dispatch' must be strings");
    if (!spec->empty())
      winners.push_back({dispatch->str(), spec->str()});
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
                                       MeasureWinners measure) {
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

} // namespace retune
