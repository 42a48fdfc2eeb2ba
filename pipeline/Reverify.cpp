//===- Reverify.cpp - After a compiler change, verify the winners first ---===//
#include "pipeline/Reverify.h"

#include "stages/core/Records.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace retune::pipeline {
namespace {

std::string inDir(StringRef dir, StringRef name) {
  SmallString<256> path(dir);
  sys::path::append(path, name);
  return path.str().str();
}

/// The config and cost the candidates step recorded for the winner, so the
/// report can show what is verified (empty when its index is gone).
CandidateEntry winnerEntry(StringRef buildDir, const SelectRecord &best) {
  CandidateEntry entry;
  Expected<CandidateIndex> index = readRecord<CandidateIndex>(
      inDir(buildDir, "candidates/" + best.dispatch + "/index.json"),
      schema::kCandidates, candidateIndexFromJson);
  if (!index) {
    consumeError(index.takeError());
    return entry;
  }
  for (const CandidateEntry &c : index->candidates)
    if (c.index == *best.winner)
      entry = c;
  return entry;
}

/// verify/<id>/candidates/ for the winner of `best` (readable, with a
/// winner); false when its spec is missing.
Expected<bool> snapshotRound(StringRef buildDir, const SelectRecord &best) {
  Expected<std::string> spec = readFile(inDir(buildDir, best.spec));
  if (!spec) {
    errs() << "retune: note: " << best.dispatch << ": the winner's spec "
           << best.spec << " is unreadable (" << toString(spec.takeError())
           << "); the dispatch is searched again\n";
    return false;
  }
  std::string dir = inDir(buildDir, "verify/" + best.dispatch + "/candidates");
  if (std::error_code ec = sys::fs::create_directories(dir))
    return makeError(dir + ": cannot create: " + ec.message());
  for (StringRef shared : kRoundSharedFiles) {
    std::string from =
        inDir(buildDir, "candidates/" + best.dispatch + "/" + shared.str());
    if (!sys::fs::exists(from))
      continue;
    Expected<std::string> bytes = readFile(from);
    if (!bytes)
      return bytes.takeError();
    if (Error err = writeFileIfChanged(inDir(dir, shared), *bytes))
      return std::move(err);
  }
  CandidateEntry entry = winnerEntry(buildDir, best);
  entry.index = 0;
  entry.file = "0.spec.mlir";
  entry.specHash = blake3Hex(*spec);
  if (Error err = writeFileIfChanged(inDir(dir, entry.file), *spec))
    return std::move(err);
  CandidateIndex index;
  index.dispatch = best.dispatch;
  index.note = formatv("the winner under the previous compiler ({0:f3}x "
                       "its baseline)",
                       best.ratio);
  index.candidates.push_back(std::move(entry));
  if (Error err = writeHashedJsonFile(inDir(dir, "index.json"), toJson(index)))
    return std::move(err);
  return true;
}

} // namespace

bool compilerChanges(StringRef buildDir, StringRef identity) {
  Expected<std::string> old = readFile(inDir(buildDir, "compiler.id"));
  if (!old) {
    consumeError(old.takeError());
    return false;
  }
  return *old != identity;
}

Expected<unsigned> snapshotWinners(StringRef buildDir) {
  std::string verifyDir = inDir(buildDir, "verify");
  if (std::error_code ec = sys::fs::remove_directories(verifyDir))
    return makeError(verifyDir + ": cannot remove: " + ec.message());
  std::error_code ec;
  unsigned rounds = 0;
  for (sys::fs::directory_iterator it(inDir(buildDir, "best"), ec), end;
       it != end && !ec; it.increment(ec)) {
    if (!StringRef(it->path()).ends_with(".json"))
      continue;
    Expected<SelectRecord> best = readRecord<SelectRecord>(
        it->path(), schema::kSelect, selectRecordFromJson);
    if (!best) {
      errs() << "retune: note: " << toString(best.takeError())
             << "; its dispatch is searched again\n";
      continue;
    }
    if (!best->winner || best->spec.empty())
      continue;
    Expected<bool> written = snapshotRound(buildDir, *best);
    if (!written)
      return written.takeError();
    rounds += *written;
  }
  return rounds;
}

} // namespace retune::pipeline
