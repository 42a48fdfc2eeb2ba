//===- CacheKeys.h - What identifies a compile and a measurement -*- C++ -*-===//
#ifndef RETUNE_CACHE_CACHEKEYS_H
#define RETUNE_CACHE_CACHEKEYS_H

#include "stages/support/Hash.h"

#include <string>

namespace retune {

/// Content hash of the running tool: a rebuilt tool gets new keys, so a
/// changed compiler or harness never replays stale results.
std::string toolIdentity(const char *argv0);

/// Starts a key with the tool identity, the LLVM version and the host (the
/// target of the mlir-cpu backend and the device its timings belong to).
FieldHasher hostKey(llvm::StringRef stage, const char *argv0);

} // namespace retune

#endif // RETUNE_CACHE_CACHEKEYS_H
