//===- Hash.h - Stable content hashes ---------------------------*- C++ -*-===//
#ifndef RETUNE_SUPPORT_HASH_H
#define RETUNE_SUPPORT_HASH_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/BLAKE3.h"

#include <string>

namespace retune {

/// Incremental BLAKE3 over tagged fields: each field is preceded by its tag
/// and length, so ("ab","c") and ("a","bc") never collide (ccache's
/// hash_delimiter idea).
class FieldHasher {
public:
  FieldHasher &add(llvm::StringRef tag, llvm::StringRef value);
  FieldHasher &add(llvm::StringRef tag, int64_t value);
  /// Lower-case hex of the first `bytes` bytes of the digest.
  std::string hex(size_t bytes = 8);

private:
  llvm::BLAKE3 hasher;
};

/// BLAKE3 hex digest of `data` (first `bytes` bytes).
std::string blake3Hex(llvm::StringRef data, size_t bytes = 16);

} // namespace retune

#endif // RETUNE_SUPPORT_HASH_H
