//===- ContentCache.h - Content-addressed store of stage results -*- C++ -*-===//
//
// Stage tools look up expensive work here before doing it. A key is the hash
// of tagged fields (tool, compiler identity, target, inputs, flags, and for
// timings the device), built with FieldHasher. An entry is a directory
// <root>/<key[0:2]>/<key>/ holding named blobs and a manifest with each
// blob's hash and its own hash (so a stripped manifest is noticed too);
// entries are published with one rename, so concurrent runs never see half
// an entry. A damaged entry is a miss, and is removed so that the next
// store replaces it.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CACHE_CONTENTCACHE_H
#define RETUNE_CACHE_CONTENTCACHE_H

#include "stages/support/LLVM.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace retune {

class ContentCache {
public:
  /// The cache at `root`; an empty root gives a disabled cache.
  explicit ContentCache(std::string root) : root(std::move(root)) {}

  /// $RETUNE_CACHE_DIR, else $XDG_CACHE_HOME/retune, else ~/.cache/retune;
  /// "off" disables it.
  static std::string defaultRoot();

  /// The root a tool's --cache-dir option selects: empty means the default,
  /// "off" disables the cache.
  static std::string rootFor(StringRef option) {
    if (option.empty())
      return defaultRoot();
    return option == "off" ? "" : option.str();
  }

  bool enabled() const { return !root.empty(); }

  /// The blobs stored under `key`, verified; nullopt on a miss. A damaged
  /// entry is removed.
  std::optional<std::map<std::string, std::string>> lookup(StringRef key) const;

  /// Stores `blobs` under `key` (first writer wins; a later store of the
  /// same key is a no-op unless the stored entry is damaged, which is
  /// replaced). A failed store leaves no staging directory behind.
  Error store(StringRef key, const std::map<std::string, std::string> &blobs) const;

  /// What `retune cache verify` finds.
  struct Health {
    uint64_t entries = 0;
    /// "<dir>: <why>" per damaged entry.
    std::vector<std::string> damaged;
    /// Staging directories of processes that no longer run (a kill or a
    /// full disk in the middle of a store).
    std::vector<std::string> staleStaging;
  };
  /// Checks every entry and staging directory; with `repair`, removes the
  /// damaged entries (they are redone and stored again) and stale staging.
  Health verify(bool repair) const;

  /// Number of entries and their total size in bytes.
  std::pair<uint64_t, uint64_t> stats() const;

  /// Removes every entry.
  Error clear() const;

  const std::string &path() const { return root; }

private:
  std::string entryDir(StringRef key) const;
  std::string root;
};

} // namespace retune

#endif // RETUNE_CACHE_CONTENTCACHE_H
