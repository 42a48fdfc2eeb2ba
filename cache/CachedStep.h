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
  /// Whether this build already holds this step's final outcome.
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

/// Runs `step` through the protocol above against `cache`.
llvm::Error runCachedStep(const ContentCache &cache, const CachedStep &step);

} // namespace retune

#endif // RETUNE_CACHE_CACHEDSTEP_H
