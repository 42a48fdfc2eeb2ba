//===- Ranker.h - A learned order of a dispatch's candidates ----*- C++ -*-===//
//
// Trains a ranking model on measured candidates (one group per dispatch),
// stores it as a `retune.ranker/1` file, and orders new candidates with it
// when the model has seen enough: else the heuristic order stays, and the
// caller records why (docs/file-formats.md, "order" of a candidates index).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SEARCH_RANKER_RANKER_H
#define RETUNE_SEARCH_RANKER_RANKER_H

#include "stages/core/Problem.h"
#include "stages/search/cpu/CpuConfig.h"
#include "stages/search/cpu/CpuHost.h"
#include "stages/search/ranker/Booster.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace retune::ranker {

inline constexpr llvm::StringLiteral kRankerSchema = "retune.ranker/1";

/// Below these the model has not seen enough to beat the heuristic: fewer
/// training dispatches in all, or fewer of the ranked dispatch's op kind.
inline constexpr unsigned kMinDispatches = 8;
inline constexpr unsigned kMinSameKind = 3;

/// One candidate measured once: its time relative to the others of its
/// dispatch (a bench record's ratio to the baseline, or seconds), or none
/// when it failed.
struct MeasuredCandidate {
  cpu::CpuConfig config;
  std::optional<double> time;
};

/// A dispatch's candidates, in the heuristic's order.
struct MeasuredDispatch {
  std::string id;
  Problem problem;
  std::vector<MeasuredCandidate> candidates;
};

struct RankerModel {
  /// Training dispatches per op kind name ("contraction", ...).
  std::map<std::string, unsigned> dispatchesPerKind;
  unsigned dispatches = 0;
  Booster booster;
};

/// Trains on every dispatch with at least two measured candidates; an
/// error when none has.
Expected<RankerModel> trainRanker(ArrayRef<MeasuredDispatch> dispatches,
                                  const cpu::CpuHost &host);

/// Writes `model` as `retune.ranker/1` JSON (feature names and version,
/// training counts, XGBoost's model text).
Error writeRankerModel(const RankerModel &model, StringRef path);
/// Reads a model file; a model of another feature set is an error that says
/// to retrain it, never a silently misread model.
Expected<RankerModel> readRankerModel(StringRef path);

/// Which order a candidate set is in, and why.
struct RankedOrder {
  /// "learned" or "heuristic".
  std::string order;
  std::string why;
  /// Indices into the configs given, best first.
  std::vector<size_t> permutation;
};

/// Orders `configs` (given in the heuristic's order) by `model`, or keeps
/// the heuristic order when there is no model or it saw too few dispatches
/// like `problem`.
Expected<RankedOrder> rankConfigs(const RankerModel *model,
                                  const Problem &problem,
                                  const cpu::CpuHost &host,
                                  ArrayRef<cpu::CpuConfig> configs);

} // namespace retune::ranker

#endif // RETUNE_SEARCH_RANKER_RANKER_H
