//===- ContentCache.cpp - Content-addressed store of stage results --------===//
#include "cache/ContentCache.h"

#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"
#include "stages/core/Records.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <cerrno>
#include <csignal>

using namespace llvm;

namespace retune {

static constexpr StringLiteral kManifest = "manifest.json";
static constexpr StringLiteral kEntrySchema = "retune.cache-entry/2";

std::string ContentCache::defaultRoot() {
  if (std::optional<std::string> dir = sys::Process::GetEnv("RETUNE_CACHE_DIR"))
    return *dir == "off" ? "" : *dir;
  SmallString<256> path;
  if (std::optional<std::string> xdg = sys::Process::GetEnv("XDG_CACHE_HOME"))
    path = *xdg;
  else if (!sys::path::home_directory(path))
    return "";
  else
    sys::path::append(path, ".cache");
  sys::path::append(path, "retune");
  return path.str().str();
}

std::string ContentCache::entryDir(StringRef key) const {
  SmallString<256> dir(root);
  sys::path::append(dir, key.take_front(2), key);
  return dir.str().str();
}

namespace {

using Blobs = std::map<std::string, std::string>;

/// The manifest's own hash: over the key and every (name, blob hash), so
/// that an edited manifest (a blob struck out, a hash replaced) does not
/// verify.
std::string manifestHash(StringRef key, const json::Object &blobs) {
  FieldHasher hasher;
  hasher.add("key", key);
  std::vector<std::string> names;
  for (const auto &entry : blobs)
    names.push_back(entry.first.str());
  llvm::sort(names);
  for (const std::string &name : names)
    hasher.add(name, blobs.getString(name).value_or("").str());
  return hasher.hex(16);
}

/// The blobs of the entry in `dir`, or why it is damaged.
Expected<Blobs> readEntry(StringRef dir, StringRef key) {
  Expected<std::string> text = readFile((dir + "/" + kManifest).str());
  if (!text)
    return text.takeError();
  Expected<json::Value> manifest = json::parse(*text);
  if (!manifest)
    return makeError("manifest: " + toString(manifest.takeError()));
  const json::Object *object = manifest->getAsObject();
  const json::Object *blobs = object ? object->getObject("blobs") : nullptr;
  if (!blobs || object->getString("schema") != kEntrySchema ||
      object->getString("key") != key ||
      object->getString("hash") != manifestHash(key, *blobs))
    return makeError("manifest does not verify");
  Blobs result;
  for (const auto &[name, hash] : *blobs) {
    if (StringRef(name).contains('/') || StringRef(name) == kManifest)
      return makeError("manifest names '" + name.str() + "'");
    Expected<std::string> bytes = readFile((dir + "/" + name.str()).str());
    if (!bytes)
      return bytes.takeError();
    if (hash.getAsString() != StringRef(blake3Hex(*bytes)))
      return makeError(name.str() + " does not match its hash");
    result[name.str()] = std::move(*bytes);
  }
  return result;
}

/// Removes a damaged entry: renamed aside first, so that a concurrent
/// reader never sees half of it and a concurrent store can publish.
void removeEntry(StringRef dir) {
  std::string aside =
      (dir + ".damaged-" + Twine(sys::Process::getProcessId())).str();
  if (!sys::fs::rename(dir, aside))
    sys::fs::remove_directories(aside);
}

/// The pid in "<key>.tmp-<pid>" / "<key>.damaged-<pid>", if `name` is one.
std::optional<int> stagingOwner(StringRef name) {
  for (StringRef marker : {".tmp-", ".damaged-"}) {
    size_t at = name.find(marker);
    int pid = 0;
    if (at != StringRef::npos &&
        !name.drop_front(at + marker.size()).getAsInteger(10, pid))
      return pid;
  }
  return std::nullopt;
}

bool processRuns(int pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

} // namespace

std::optional<Blobs> ContentCache::lookup(StringRef key) const {
  if (!enabled())
    return std::nullopt;
  std::string dir = entryDir(key);
  if (!sys::fs::exists(dir))
    return std::nullopt;
  Expected<Blobs> blobs = readEntry(dir, key);
  if (!blobs) {
    // A damaged entry is a miss, never wrong data; the store after the
    // miss writes a good one.
    consumeError(blobs.takeError());
    removeEntry(dir);
    return std::nullopt;
  }
  return std::move(*blobs);
}

Error ContentCache::store(StringRef key, const Blobs &blobs) const {
  if (!enabled())
    return Error::success();
  std::string dir = entryDir(key);
  if (sys::fs::exists(dir)) {
    Expected<Blobs> existing = readEntry(dir, key);
    if (existing)
      return Error::success();
    consumeError(existing.takeError());
    removeEntry(dir);
  }
  // Build the entry beside its final place, then publish it with one rename.
  std::string staging = dir + ".tmp-" + std::to_string(sys::Process::getProcessId());
  json::Object hashes;
  auto stage = [&]() -> Error {
    for (const auto &[name, bytes] : blobs) {
      if (Error err = writeFileAtomic(staging + "/" + name, bytes))
        return err;
      hashes[name] = blake3Hex(bytes);
    }
    std::string hash = manifestHash(key, hashes);
    return writeJsonFile(staging + "/" + kManifest.str(),
                         json::Object{{"schema", kEntrySchema},
                                      {"key", key},
                                      {"blobs", std::move(hashes)},
                                      {"hash", hash}});
  };
  if (Error err = stage()) {
    // A full disk must not leave staging behind forever.
    sys::fs::remove_directories(staging);
    return err;
  }
  if (sys::fs::rename(staging, dir))
    sys::fs::remove_directories(staging); // another run published it first
  return Error::success();
}

ContentCache::Health ContentCache::verify(bool repair) const {
  Health health;
  if (!enabled() || !sys::fs::is_directory(root))
    return health;
  std::error_code ec;
  for (sys::fs::directory_iterator shard(root, ec), end; shard != end && !ec;
       shard.increment(ec)) {
    if (!sys::fs::is_directory(shard->path()))
      continue;
    for (sys::fs::directory_iterator it(shard->path(), ec); it != end && !ec;
         it.increment(ec)) {
      std::string path = it->path();
      StringRef name = sys::path::filename(path);
      if (std::optional<int> owner = stagingOwner(name)) {
        if (processRuns(*owner))
          continue;
        health.staleStaging.push_back(path);
        if (repair)
          sys::fs::remove_directories(path);
        continue;
      }
      ++health.entries;
      Expected<Blobs> blobs = readEntry(path, name);
      if (blobs)
        continue;
      health.damaged.push_back(path + ": " + toString(blobs.takeError()));
      if (repair)
        removeEntry(path);
    }
  }
  return health;
}

std::pair<uint64_t, uint64_t> ContentCache::stats() const {
  uint64_t entries = 0, bytes = 0;
  if (!enabled())
    return {0, 0};
  std::error_code ec;
  for (sys::fs::recursive_directory_iterator it(root, ec), end;
       it != end && !ec; it.increment(ec)) {
    if (sys::path::filename(it->path()) == kManifest)
      ++entries;
    sys::fs::file_status status;
    if (!sys::fs::status(it->path(), status) &&
        status.type() == sys::fs::file_type::regular_file)
      bytes += status.getSize();
  }
  return {entries, bytes};
}

Error ContentCache::clear() const {
  if (!enabled() || !sys::fs::exists(root))
    return Error::success();
  if (std::error_code ec = sys::fs::remove_directories(root))
    return makeError(root + ": cannot remove: " + ec.message());
  return Error::success();
}

} // namespace retune
