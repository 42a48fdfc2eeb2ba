//===- ContentCache.cpp - Content-addressed store of stage results --------===//
#include "cache/ContentCache.h"

#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"
#include "stages/support/Records.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace llvm;

namespace retune {

static constexpr StringLiteral kManifest = "manifest.json";

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

std::optional<std::map<std::string, std::string>>
ContentCache::lookup(StringRef key) const {
  if (!enabled())
    return std::nullopt;
  std::string dir = entryDir(key);
  Expected<std::string> manifestText = readFile(dir + "/" + kManifest.str());
  if (!manifestText) {
    consumeError(manifestText.takeError());
    return std::nullopt;
  }
  Expected<json::Value> manifest = json::parse(*manifestText);
  const json::Object *blobs = manifest ? manifest->getAsObject() : nullptr;
  if (!blobs) {
    if (!manifest)
      consumeError(manifest.takeError());
    return std::nullopt;
  }
  std::map<std::string, std::string> result;
  for (const auto &[name, hash] : *blobs) {
    Expected<std::string> bytes = readFile(dir + "/" + name.str());
    if (!bytes) {
      consumeError(bytes.takeError());
      return std::nullopt;
    }
    // A damaged blob is a miss, never wrong data.
    if (hash.getAsString() != StringRef(blake3Hex(*bytes)))
      return std::nullopt;
    result[name.str()] = std::move(*bytes);
  }
  return result;
}

Error ContentCache::store(StringRef key,
                          const std::map<std::string, std::string> &blobs) const {
  if (!enabled())
    return Error::success();
  std::string dir = entryDir(key);
  if (sys::fs::exists(dir))
    return Error::success();
  // Build the entry beside its final place, then publish it with one rename.
  std::string staging = dir + ".tmp-" + std::to_string(sys::Process::getProcessId());
  json::Object manifest;
  for (const auto &[name, bytes] : blobs) {
    if (Error err = writeFileAtomic(staging + "/" + name, bytes))
      return err;
    manifest[name] = blake3Hex(bytes);
  }
  if (Error err = writeJsonFile(staging + "/" + kManifest.str(),
                                json::Value(std::move(manifest))))
    return err;
  if (sys::fs::rename(staging, dir))
    sys::fs::remove_directories(staging); // another run published it first
  return Error::success();
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
