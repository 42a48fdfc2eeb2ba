//===- CachedStep.h - The flow every cached stage step follows -*- C++ -*-===//
//
// A compile or a measurement of any backend runs the same protocol around
// its own work:
//   1. this build already holds exactly this step's final outcome (a run
//      killed after the record was written, before Ninja logged it): done;
//   2. the content-addressed cache holds it: restore it into this build's
//      files (an unusable entry is skipped, and the step runs);
//   3. otherwise, holding the device's lock when the step measures (and
//      consulting the cache again: another run may have done it while this
//      one waited), run the work; the work writes a record for every
//      outcome, failures included;
//   4. store what the outcome says may be reused (not timeouts, not a
//      disturbed measurement).
// The steps say only what differs: their key, how to check, restore, run
// and pack an outcome.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CACHE_CACHEDSTEP_H
#define RETUNE_CACHE_CACHEDSTEP_H

#include "cache/ContentCache.h"
#include "stages/core/Records.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace retune {

/// Named blobs of one cache entry ("record.json", "artifact.so", ...).
using CacheEntry = std::map<std::string, std::string>;

struct CachedStep {
  /// The content key of the step; empty: not cacheable (an injected fault).
  std::string key;
  /// Taken around the work when not empty (DeviceLock name).
  std::string deviceLock;
  /// Whether this build already holds this step's final outcome; unset for
  /// steps whose files do not say which inputs made them (always consult).
  std::function<bool(llvm::StringRef key)> alreadyDone;
  /// Writes a cached outcome into this build's files.
  std::function<llvm::Error(const CacheEntry &entry, llvm::StringRef key)>
      restore;
  /// Does the work; its failures are records, an Error a broken invocation.
  std::function<llvm::Error(llvm::StringRef key)> run;
  /// What of the outcome may be reused; none for outcomes that may differ
  /// next time.
  std::function<std::optional<CacheEntry>()> outcome;
};

/// The record stored as "record.json" in a cache entry, marked as replayed
/// by this build: cached, under `key`, started now, no time spent on it.
template <typename Record>
llvm::Expected<Record>
replayedRecord(const CacheEntry &entry, llvm::StringRef key,
               llvm::Expected<Record> (*parse)(const llvm::json::Value &)) {
  auto text = entry.find("record.json");
  if (text == entry.end())
    return makeError("cache entry without a record");
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text->second);
  if (!value)
    return value.takeError();
  llvm::Expected<Record> record = parse(*value);
  if (!record)
    return record.takeError();
  record->cached = true;
  record->key = key.str();
  record->startedAt = unixSeconds();
  record->seconds = 0;
  return record;
}

/// Where a compile step of any backend keeps its outcome: the compile
/// record, the artifact it describes, and the artifact's blob name in a
/// cache entry ("artifact.so", "artifact.vmfb").
struct CompileFiles {
  std::string recordPath;
  std::string artifactPath;
  std::string blobName;
};

/// Whether `files` already hold the final outcome of the compile keyed
/// `key` (a timeout or a crash may pass next time; an ok record needs its
/// artifact, byte for byte).
bool compileAlreadyDone(const CompileFiles &files, llvm::StringRef key);

/// Writes a cached compile into `files`; an ok record without its artifact
/// is an unusable entry. The replay took no time in this build (`seconds`
/// 0), unless `keepCompileSeconds`: then `seconds` stays what the compile
/// took when it ran (what a build costs, for callers that compare builds).
llvm::Error restoreCompile(const CompileFiles &files, const CacheEntry &entry,
                           llvm::StringRef key, bool keepCompileSeconds = false);

/// The cache entry of the compile in `files`, when `reusable` says its
/// status may be replayed (and, if ok, its artifact reads).
std::optional<CacheEntry>
compileOutcome(const CompileFiles &files,
               llvm::function_ref<bool(Status)> reusable);

/// Runs `step` through the protocol above against `cache`.
llvm::Error runCachedStep(const ContentCache &cache, const CachedStep &step);

} // namespace retune

#endif // RETUNE_CACHE_CACHEDSTEP_H
