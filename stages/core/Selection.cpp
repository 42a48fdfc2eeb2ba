//===- Selection.cpp - Pick a dispatch's winner, noise aware --------------===//
#include "stages/core/Selection.h"

#include "llvm/Support/FormatVariadic.h"

namespace retune::select {

Selection selectWinner(const std::vector<Measured> &measured, double margin) {
  Selection selection;
  std::optional<double> bestSeen;
  for (const Measured &m : measured) {
    ++selection.statusCounts[toString(m.record.status).str()];
    if (m.record.status != Status::Ok)
      continue;
    double required = std::max(margin, m.record.noise);
    if (!bestSeen || m.record.ratio < *bestSeen)
      bestSeen = m.record.ratio;
    if (m.record.ratio >= 1 - required)
      continue;
    if (!selection.winner || m.record.ratio < selection.ratio) {
      selection.winner = m.candidate;
      selection.ratio = m.record.ratio;
      selection.requiredMargin = required;
    }
  }
  if (selection.winner)
    selection.reason =
        llvm::formatv("candidate {0} runs in {1:f3}x the baseline time "
                      "(needed below {2:f3})",
                      *selection.winner, selection.ratio,
                      1 - selection.requiredMargin)
            .str();
  else if (bestSeen)
    selection.reason = llvm::formatv("no candidate beats the baseline by more "
                                     "than the margin and the noise (best "
                                     "ratio {0:f3})",
                                     *bestSeen)
                           .str();
  else
    selection.reason = "no candidate was measured successfully";
  return selection;
}

llvm::json::Value toJson(const Selection &selection, StringRef dispatch,
                         StringRef specPath) {
  llvm::json::Object counts;
  for (const auto &[status, n] : selection.statusCounts)
    counts[status] = n;
  llvm::json::Object object{{"schema", schema::kSelect},
                            {"dispatch", dispatch.str()},
                            {"ratio", selection.ratio},
                            {"required_margin", selection.requiredMargin},
                            {"reason", selection.reason},
                            {"status_counts", std::move(counts)}};
  if (selection.winner) {
    object["winner"] = *selection.winner;
    object["spec"] = specPath.str();
  } else {
    object["winner"] = nullptr;
    object["spec"] = "";
  }
  return object;
}

} // namespace retune::select
