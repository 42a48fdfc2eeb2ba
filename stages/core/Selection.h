//===- Selection.h - Pick a dispatch's winner, noise aware ------*- C++ -*-===//
#ifndef RETUNE_SELECT_SELECTION_H
#define RETUNE_SELECT_SELECTION_H

#include "stages/core/Records.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace retune::select {

struct Measured {
  unsigned candidate = 0;
  BenchRecord record;
};

struct Selection {
  /// The winning candidate, if one beats the baseline convincingly.
  std::optional<unsigned> winner;
  double ratio = 1;
  /// The margin the winner had to beat: max(configured margin, noise).
  double requiredMargin = 0;
  std::string reason;
  /// Candidates per status name ("ok", "crash", ...).
  std::map<std::string, unsigned> statusCounts;
};

/// The candidate with the lowest ratio among those whose ratio is below
/// 1 - max(margin, their measured noise); none when no candidate does.
Selection selectWinner(const std::vector<Measured> &measured, double margin);

llvm::json::Value toJson(const Selection &selection, StringRef dispatch,
                         StringRef specPath);

} // namespace retune::select

#endif // RETUNE_SELECT_SELECTION_H
