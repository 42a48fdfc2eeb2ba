//===- BuildState.cpp - What a build directory holds, checked -------------===//
#include "pipeline/BuildState.h"

#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"
#include "stages/support/HashedFile.h"
#include "stages/support/RunBudget.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace retune::pipeline {
namespace {

/// `dir`/`name`; a relative name alone when `dir` is "." (messages then
/// name files as the user sees them from the build directory).
std::string joinPath(StringRef dir, StringRef name) {
  if (dir.empty() || dir == ".")
    return name.str();
  SmallString<256> path(dir);
  sys::path::append(path, name);
  return path.str().str();
}

/// Removes a damaged file (and its hash), so that the step that writes it
/// runs again; Ninja would otherwise keep building on garbled files.
void redo(StringRef file, const Twine &why) {
  errs() << "retune: note: " << file << ": " << why
         << "; removed it, the step that writes it runs again\n";
  removeHashedFile(file);
}

/// Whether `path` exists but is not what its step wrote; such a file is
/// removed (redo).
bool removeIfDamaged(StringRef path) {
  if (!sys::fs::exists(path))
    return false;
  std::string problem = verifyHashedFile(path);
  if (problem.empty())
    return false;
  redo(path, problem);
  return true;
}

/// A record of the build directory that exists, matches the hash its step
/// wrote and parses; nullopt otherwise (a damaged one is removed).
template <typename T>
std::optional<T> readChecked(StringRef path, StringRef schema,
                             Expected<T> (*parse)(const json::Value &)) {
  if (!sys::fs::exists(path) || removeIfDamaged(path))
    return std::nullopt;
  Expected<T> record = readRecord<T>(path, schema, parse);
  if (!record) {
    // Damaged: readRecord removed it.
    errs() << "retune: note: " << toString(record.takeError()) << "\n";
    removeHashedFile(path);
    return std::nullopt;
  }
  return std::move(*record);
}

/// Whether `path` holds the bytes hashed to `hash` (an empty hash: none
/// recorded, taken as a match).
bool matchesHash(StringRef path, StringRef hash) {
  if (hash.empty())
    return true;
  Expected<std::string> bytes = readFile(path);
  if (!bytes) {
    consumeError(bytes.takeError());
    return false;
  }
  return blake3Hex(*bytes) == hash;
}

/// Why the dump's files of `d` are not what the dump wrote ("" if they are).
std::string dispatchFilesProblem(StringRef buildDir, const DispatchEntry &d) {
  std::string dir = joinPath(buildDir, "dispatches/" + d.id);
  for (StringRef file : {"problem.json", "dispatch.mlir"})
    if (std::string problem = verifyHashedFile(joinPath(dir, file));
        !problem.empty())
      return ("dispatches/" + d.id + "/" + file + " " + problem).str();
  Expected<DispatchEntry> problem =
      readDispatchProblem(joinPath(dir, "problem.json"));
  if (!problem)
    return toString(problem.takeError());
  if (problem->id != d.id)
    return "dispatches/" + d.id + "/problem.json belongs to dispatch " +
           problem->id;
  return "";
}

/// The configured executables the iree model step wrote beside the spec
/// (`executables[]` of model/result.json, each with its BLAKE3): when one
/// is missing or damaged, the model step's outputs go, so that it runs
/// again; whether it did.
bool removeIfExecutablesDamaged(StringRef buildDir) {
  std::string resultPath = joinPath(buildDir, "model/result.json");
  if (!sys::fs::exists(resultPath))
    return false;
  Expected<ModelRecord> result = readRecord<ModelRecord>(
      resultPath, schema::kModel, modelRecordFromJson);
  if (!result) {
    consumeError(result.takeError());
    return false;
  }
  for (const json::Value &entry : result->executables) {
    const json::Object *e = entry.getAsObject();
    if (!e)
      continue;
    std::string file = joinPath(buildDir, e->getString("file").value_or(""));
    if (sys::fs::exists(file) &&
        matchesHash(file, e->getString("blake3").value_or("")))
      continue;
    redo(joinPath(buildDir, "tuning_spec.mlir"),
         "goes with " + file + ", which is missing or not what the model "
                               "step wrote");
    removeHashedFile(resultPath);
    return true;
  }
  return false;
}

} // namespace

Expected<std::optional<DispatchIndex>> readDispatches(StringRef buildDir) {
  std::string path = joinPath(buildDir, "dispatches/index.json");
  std::optional<DispatchIndex> index = readChecked<DispatchIndex>(
      path, schema::kDispatches, dispatchIndexFromJson);
  if (!index)
    return std::nullopt;
  if (index->dispatches.empty()) {
    removeHashedFile(path);
    return makeError(path + ": " + index->model +
                     " has no dispatch retune can tune; nothing to tune "
                     "(check [model] path; the index was removed)");
  }
  for (const DispatchEntry &d : index->dispatches)
    if (std::string problem = dispatchFilesProblem(buildDir, d);
        !problem.empty()) {
      redo(path, problem);
      return std::nullopt;
    }
  return index;
}

std::optional<CandidateIndex> readCandidates(StringRef buildDir,
                                             const DispatchEntry &d,
                                             const DispatchRound &round) {
  std::string dir = joinPath(buildDir, round.candidatesDir);
  std::string path = joinPath(dir, "index.json");
  std::optional<CandidateIndex> index = readChecked<CandidateIndex>(
      path, schema::kCandidates, candidateIndexFromJson);
  if (!index)
    return std::nullopt;
  if (index->dispatch != d.id) {
    redo(path, "it belongs to dispatch " + index->dispatch);
    return std::nullopt;
  }
  for (const CandidateEntry &c : index->candidates)
    if (!matchesHash(joinPath(dir, c.file), c.specHash)) {
      redo(path, c.file + " is missing or not what the candidates step wrote");
      return std::nullopt;
    }
  return index;
}

/// Removes each record the ledger names that still says `skipped` (a later
/// run may have done the step since), then the ledger.
static unsigned removeSkippedRecords(StringRef buildDir) {
  std::string ledger = joinPath(buildDir, kSkippedLedger);
  Expected<std::string> text = readFile(ledger);
  if (!text) {
    consumeError(text.takeError());
    return 0;
  }
  unsigned removed = 0;
  SmallVector<StringRef> lines;
  StringRef(*text).split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines) {
    std::string path = joinPath(buildDir, line.trim());
    Expected<std::string> record = readFile(path);
    if (!record) {
      consumeError(record.takeError());
      continue;
    }
    Expected<json::Value> value = json::parse(*record);
    if (!value) {
      consumeError(value.takeError());
      continue;
    }
    // Only what the budget cut short: a skipped step, or a model step that
    // did the least it could (ModelRecord::budgetLimited).
    const json::Object *object = value->getAsObject();
    bool cutShort = object && (object->getString("status") == StringRef("skipped") ||
                               object->getBoolean("budget_limited").value_or(false));
    if (cutShort && !sys::fs::remove(path))
      ++removed;
  }
  sys::fs::remove(ledger);
  return removed;
}

BuildCheck verifyBuild(StringRef buildDir, ArrayRef<std::string> takeaways,
                       const StepBeforePlan &before) {
  BuildCheck check;
  auto removedWhenDamaged = [&](StringRef path) {
    bool removed = removeIfDamaged(path);
    check.removed += removed;
    return removed;
  };
  // The plan writes compiler.id again; a damaged one is not a compiler
  // change, so nothing is re-verified for it.
  check.replan |= removedWhenDamaged(joinPath(buildDir, "compiler.id"));
  std::string dispatchIndex = joinPath(buildDir, "dispatches/index.json");
  bool hadIndex = sys::fs::exists(dispatchIndex);
  Expected<std::optional<DispatchIndex>> dispatches = readDispatches(buildDir);
  if (!dispatches) {
    // An index listing nothing: the plan says so after the dump redoes it.
    consumeError(dispatches.takeError());
    check.replan = true;
  } else if (!*dispatches) {
    if (hadIndex) {
      ++check.removed;
      check.replan = true;
    }
  } else {
    for (const DispatchEntry &d : (*dispatches)->dispatches)
      for (const DispatchRound &round :
           {DispatchRound::search(d.id), DispatchRound::verify(d.id)}) {
        std::string path = joinPath(buildDir, round.candidatesDir + "/index.json");
        if (sys::fs::exists(path) && !readCandidates(buildDir, d, round)) {
          ++check.removed;
          check.replan = true;
        }
      }
  }
  // Without its record the plan has no dump edge until the step has run
  // again (its output, build.ninja's input): so it runs before the dump.
  bool stepRedone = false;
  for (const std::string &file : before.takeaways)
    stepRedone |= removedWhenDamaged(joinPath(buildDir, file));
  if (stepRedone && !before.record.empty()) {
    removeHashedFile(joinPath(buildDir, before.record));
    check.replan = true;
  }
  // A damaged take-away file is an output Ninja sees missing: its step runs
  // in this build without a re-plan.
  for (const std::string &file : takeaways)
    removedWhenDamaged(joinPath(buildDir, file));
  check.removed += removeIfExecutablesDamaged(buildDir);
  check.skipped = removeSkippedRecords(buildDir);
  return check;
}

} // namespace retune::pipeline
