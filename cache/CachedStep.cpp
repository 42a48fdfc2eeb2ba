//===- CachedStep.cpp - The flow every cached stage step follows ----------===//
#include "cache/CachedStep.h"

#include "stages/support/DeviceLock.h"

using namespace llvm;

namespace retune {
namespace {

/// Restores a cache hit; false on a miss or an unusable entry.
bool replayed(const ContentCache &cache, const CachedStep &step) {
  if (!cache.enabled() || step.key.empty())
    return false;
  std::optional<CacheEntry> entry = cache.lookup(step.key);
  if (!entry)
    return false;
  if (Error err = step.restore(*entry, step.key)) {
    consumeError(std::move(err)); // a bad entry: do the work instead
    return false;
  }
  return true;
}

} // namespace

Error runCachedStep(const ContentCache &cache, const CachedStep &step) {
  if (!step.key.empty() && step.alreadyDone(step.key))
    return Error::success();
  if (replayed(cache, step))
    return Error::success();
  std::optional<DeviceLock> lock;
  if (!step.deviceLock.empty()) {
    Expected<DeviceLock> acquired = DeviceLock::acquire(step.deviceLock);
    if (!acquired)
      return acquired.takeError();
    lock.emplace(std::move(*acquired));
    if (replayed(cache, step))
      return Error::success();
  }
  if (Error err = step.run(step.key))
    return err;
  if (!cache.enabled() || step.key.empty())
    return Error::success();
  if (std::optional<CacheEntry> entry = step.outcome())
    // A full disk must not fail the build: the cache is an optimization.
    consumeError(cache.store(step.key, *entry));
  return Error::success();
}

} // namespace retune
