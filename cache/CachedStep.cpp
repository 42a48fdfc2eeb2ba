//===- CachedStep.cpp - The flow every cached stage step follows ----------===//
#include "cache/CachedStep.h"

#include "stages/support/DeviceLock.h"
#include "stages/support/Hash.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

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
  if (!step.key.empty() && step.alreadyDone && step.alreadyDone(step.key))
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

bool compileAlreadyDone(const CompileFiles &files, StringRef key) {
  if (!sys::fs::exists(files.recordPath))
    return false;
  Expected<CompileRecord> record = readRecord<CompileRecord>(
      files.recordPath, schema::kCompile, compileRecordFromJson);
  if (!record) {
    consumeError(record.takeError());
    return false;
  }
  if (record->key != key || record->status == Status::Timeout ||
      record->status == Status::Crash)
    return false;
  if (record->status != Status::Ok)
    return true;
  Expected<std::string> artifact = readFile(files.artifactPath);
  if (!artifact) {
    consumeError(artifact.takeError());
    return false;
  }
  return blake3Hex(*artifact) == record->artifactHash;
}

Error restoreCompile(const CompileFiles &files, const CacheEntry &entry,
                     StringRef key, bool keepCompileSeconds) {
  Expected<CompileRecord> record =
      replayedRecord<CompileRecord>(entry, key, compileRecordFromJson);
  if (!record)
    return record.takeError();
  if (keepCompileSeconds) {
    Expected<json::Value> original = json::parse(entry.at("record.json"));
    if (!original)
      return original.takeError();
    if (const json::Object *object = original->getAsObject())
      record->seconds = object->getNumber("seconds").value_or(0);
  }
  if (record->status == Status::Ok) {
    auto artifact = entry.find(files.blobName);
    if (artifact == entry.end() ||
        blake3Hex(artifact->second) != record->artifactHash)
      return makeError("cache entry without its artifact");
    record->artifact = files.artifactPath;
    if (Error err = writeFileAtomic(files.artifactPath, artifact->second))
      return err;
  }
  return writeJsonFile(files.recordPath, toJson(*record));
}

std::optional<CacheEntry> compileOutcome(const CompileFiles &files,
                                         function_ref<bool(Status)> reusable) {
  Expected<CompileRecord> record = readRecord<CompileRecord>(
      files.recordPath, schema::kCompile, compileRecordFromJson);
  if (!record) {
    consumeError(record.takeError());
    return std::nullopt;
  }
  if (!reusable(record->status))
    return std::nullopt;
  CacheEntry entry{{"record.json", formatv("{0}", toJson(*record)).str()}};
  if (record->status == Status::Ok) {
    Expected<std::string> artifact = readFile(files.artifactPath);
    if (!artifact) {
      consumeError(artifact.takeError());
      return std::nullopt;
    }
    entry[files.blobName] = std::move(*artifact);
  }
  return entry;
}

} // namespace retune
