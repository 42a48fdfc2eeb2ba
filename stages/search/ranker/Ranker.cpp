//===- Ranker.cpp - A learned order of a dispatch's candidates ------------===//
#include "stages/search/ranker/Ranker.h"

#include "stages/core/Records.h"
#include "stages/search/ranker/Features.h"
#include "stages/support/FileUtil.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace llvm;

namespace retune::ranker {

/// Trees of the model: on a few thousand rows this trains in well under a
/// second, and more rounds did not order the corpus of
/// bench/search-efficiency.sh better.
static constexpr unsigned kRounds = 60;

/// Appends one dispatch's measured candidates as a group; false when fewer
/// than two were measured (nothing to order).
static bool addGroup(const MeasuredDispatch &d, const cpu::CpuHost &host,
                     TrainingRows &rows) {
  double best = HUGE_VAL;
  unsigned measured = 0;
  for (const MeasuredCandidate &c : d.candidates)
    if (c.time && *c.time > 0) {
      best = std::min(best, *c.time);
      ++measured;
    }
  if (measured < 2)
    return false;
  std::vector<cpu::CpuConfig> configs;
  for (const MeasuredCandidate &c : d.candidates)
    if (c.time && *c.time > 0)
      configs.push_back(c.config);
  std::vector<float> f = extractGroupFeatures(d.problem, configs, host);
  rows.features.insert(rows.features.end(), f.begin(), f.end());
  for (const MeasuredCandidate &c : d.candidates) {
    if (!c.time || *c.time <= 0)
      continue;
    // Relative to the dispatch's best: 0 for the best, negative for slower.
    rows.labels.push_back(static_cast<float>(-std::log(*c.time / best)));
  }
  rows.groups.push_back(measured);
  return true;
}

Expected<RankerModel> trainRanker(ArrayRef<MeasuredDispatch> dispatches,
                                  const cpu::CpuHost &host) {
  TrainingRows rows;
  rows.columns = featureNames().size();
  std::map<std::string, unsigned> perKind;
  unsigned used = 0;
  for (const MeasuredDispatch &d : dispatches)
    if (addGroup(d, host, rows)) {
      ++perKind[toString(d.problem.kind).str()];
      ++used;
    }
  if (used == 0)
    return makeError("ranker: no dispatch with two or more measured "
                     "candidates to learn from");
  Expected<Booster> booster = Booster::train(rows, kRounds);
  if (!booster)
    return booster.takeError();
  return RankerModel{std::move(perKind), used, std::move(*booster)};
}

Error writeRankerModel(const RankerModel &model, StringRef path) {
  Expected<std::string> booster = model.booster.save();
  if (!booster)
    return booster.takeError();
  json::Object perKind;
  for (const auto &[kind, count] : model.dispatchesPerKind)
    perKind[kind] = count;
  json::Array names;
  for (const std::string &name : featureNames())
    names.push_back(name);
  return writeJsonFile(path, json::Object{
                                 {"schema", kRankerSchema},
                                 {"feature_version", kFeatureVersion},
                                 {"features", std::move(names)},
                                 {"dispatches", model.dispatches},
                                 {"dispatches_per_kind", std::move(perKind)},
                                 {"booster", std::move(*booster)},
                             });
}

/// The feature set a model file was trained with must be this one's.
static Error checkFeatures(const json::Object &root, StringRef path) {
  std::optional<int64_t> version = root.getInteger("feature_version");
  const json::Array *names = root.getArray("features");
  std::vector<std::string> theirs;
  if (names)
    for (const json::Value &name : *names)
      theirs.push_back(name.getAsString().value_or("").str());
  if (version && *version == kFeatureVersion && theirs == featureNames())
    return Error::success();
  return makeError(formatv("{0}: the ranker model was trained on feature set "
                           "version {1} ({2} features), this retune computes "
                           "version {3} ({4} features); retrain it with "
                           "`retune-ranker train`",
                           path, version ? std::to_string(*version) : "?",
                           theirs.size(), kFeatureVersion,
                           featureNames().size())
                       .str());
}

Expected<RankerModel> readRankerModel(StringRef path) {
  Expected<std::string> text = readFile(path);
  if (!text)
    return text.takeError();
  Expected<json::Value> value = json::parse(*text);
  if (!value)
    return makeError(path +
                     ": not a ranker model: " + toString(value.takeError()));
  const json::Object *root = value->getAsObject();
  if (!root || root->getString("schema") != kRankerSchema)
    return makeError(path + ": not a ranker model (schema \"" + kRankerSchema +
                     "\" expected); train one with `retune-ranker train`");
  if (Error err = checkFeatures(*root, path))
    return std::move(err);
  std::optional<int64_t> dispatches = root->getInteger("dispatches");
  const json::Object *perKind = root->getObject("dispatches_per_kind");
  std::optional<StringRef> booster = root->getString("booster");
  if (!dispatches || *dispatches < 0 || !perKind || !booster)
    return makeError(path + ": damaged ranker model (dispatches, "
                            "dispatches_per_kind or booster missing)");
  Expected<Booster> loaded = Booster::load(*booster);
  if (!loaded)
    return makeError(path + ": " + toString(loaded.takeError()));
  RankerModel model{{}, static_cast<unsigned>(*dispatches), std::move(*loaded)};
  for (const auto &[kind, count] : *perKind)
    model.dispatchesPerKind[kind.str()] =
        static_cast<unsigned>(count.getAsInteger().value_or(0));
  return model;
}

/// Why `model` may not order `problem`'s candidates; empty when it may.
static std::string thinData(const RankerModel *model, const Problem &problem) {
  if (!model)
    return "no ranker model";
  if (model->dispatches < kMinDispatches)
    return formatv("the model learned from {0} dispatches (fewer than {1})",
                   model->dispatches, kMinDispatches)
        .str();
  std::string kind = toString(problem.kind).str();
  auto it = model->dispatchesPerKind.find(kind);
  unsigned same = it == model->dispatchesPerKind.end() ? 0 : it->second;
  if (same < kMinSameKind)
    return formatv("the model learned from {0} {1} dispatches (fewer than {2})",
                   same, kind, kMinSameKind)
        .str();
  return "";
}

Expected<RankedOrder> rankConfigs(const RankerModel *model,
                                  const Problem &problem,
                                  const cpu::CpuHost &host,
                                  ArrayRef<cpu::CpuConfig> configs) {
  RankedOrder ranked;
  ranked.permutation.resize(configs.size());
  std::iota(ranked.permutation.begin(), ranked.permutation.end(), 0);
  ranked.why = thinData(model, problem);
  if (!ranked.why.empty()) {
    ranked.order = "heuristic";
    return ranked;
  }
  std::vector<float> features = extractGroupFeatures(problem, configs, host);
  Expected<std::vector<float>> scores =
      model->booster.predict(features, featureNames().size());
  if (!scores)
    return scores.takeError();
  // Stable: equal scores keep the heuristic's order.
  llvm::stable_sort(ranked.permutation, [&](size_t a, size_t b) {
    return (*scores)[a] > (*scores)[b];
  });
  ranked.order = "learned";
  ranked.why =
      formatv("the model learned from {0} dispatches", model->dispatches).str();
  return ranked;
}

} // namespace retune::ranker
