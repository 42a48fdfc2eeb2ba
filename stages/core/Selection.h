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

/// The best/<id>.json record of `selection` (`specPath`: the winner's spec).
SelectRecord toRecord(const Selection &selection, StringRef dispatch,
                      StringRef specPath);

/// After a compiler change, what to do with the previous winner of a
/// dispatch, from its verify round's select record (the winner measured
/// alone against the new compiler's baseline).
struct Reverification {
  /// It still wins by the margin: it stays, and nothing is searched.
  bool kept = false;
  /// "0.612x the new baseline (needed below 0.980)", "regressed: ...",
  /// "no longer applies: ...", "fails with the new compiler: ...".
  std::string why;
};
Reverification reverification(const SelectRecord &verified);

/// The candidates step's side of a verify round: reads its select record
/// (`verifiedPath`; none: returns false), records the decision in `index`,
/// and when the previous winner is kept writes its spec as
/// `<outputDir>/0.spec.mlir` and lists it alone. Returns whether it did.
Expected<bool> keepVerifiedWinner(StringRef verifiedPath, StringRef outputDir,
                                  CandidateIndex &index);

} // namespace retune::select

#endif // RETUNE_SELECT_SELECTION_H
