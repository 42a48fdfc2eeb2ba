//===- Selection.cpp - Pick a dispatch's winner, noise aware --------------===//
#include "stages/core/Selection.h"

#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

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

SelectRecord toRecord(const Selection &selection, StringRef dispatch,
                      StringRef specPath) {
  SelectRecord record;
  record.dispatch = dispatch.str();
  record.winner = selection.winner;
  record.spec = selection.winner ? specPath.str() : "";
  record.ratio = selection.ratio;
  record.requiredMargin = selection.requiredMargin;
  record.reason = selection.reason;
  record.statusCounts = selection.statusCounts;
  return record;
}

Reverification reverification(const SelectRecord &verified) {
  auto count = [&](StringRef status) {
    auto it = verified.statusCounts.find(status.str());
    return it == verified.statusCounts.end() ? 0u : it->second;
  };
  if (verified.winner)
    return {true, llvm::formatv("{0:f3}x the new compiler's baseline "
                                "(needed below {1:f3})",
                                verified.ratio, 1 - verified.requiredMargin)
                      .str()};
  if (count("not_applied"))
    return {false, "no longer applies: with the new compiler its spec leaves "
                   "the dispatch's code as the baseline's"};
  if (count("ok"))
    return {false, "regressed: " + verified.reason};
  for (const auto &[status, n] : verified.statusCounts)
    if (n)
      return {false, "fails with the new compiler (" + status + ")"};
  return {false, "was not measured: " + verified.reason};
}

Expected<bool> keepVerifiedWinner(StringRef verifiedPath, StringRef outputDir,
                                  CandidateIndex &index) {
  if (verifiedPath.empty())
    return false;
  Expected<SelectRecord> verified = readRecord<SelectRecord>(
      verifiedPath, schema::kSelect, selectRecordFromJson);
  if (!verified)
    return verified.takeError();
  Reverification decision = reverification(*verified);
  index.reverify = decision.kept ? "kept" : "re-searched";
  index.reverifyWhy = decision.why;
  if (!decision.kept)
    return false;
  Expected<std::string> spec = readFile(verified->spec);
  if (!spec)
    return spec.takeError();
  // Its config and cost, as the verify round's index recorded them.
  llvm::SmallString<256> verifyIndex(
      llvm::sys::path::parent_path(verified->spec));
  llvm::sys::path::append(verifyIndex, "index.json");
  Expected<CandidateIndex> previous = readRecord<CandidateIndex>(
      verifyIndex, schema::kCandidates, candidateIndexFromJson);
  if (!previous)
    return previous.takeError();
  CandidateEntry entry;
  for (const CandidateEntry &c : previous->candidates)
    if (c.index == *verified->winner)
      entry = c;
  entry.index = 0;
  entry.file = "0.spec.mlir";
  entry.specHash = blake3Hex(*spec);
  if (Error err =
          writeFileIfChanged((outputDir + "/" + entry.file).str(), *spec))
    return std::move(err);
  index.candidates.push_back(std::move(entry));
  index.note = "the previous compiler's winner, kept: " + decision.why;
  return true;
}

} // namespace retune::select
