//===- Hash.cpp - Stable content hashes -----------------------------------===//
#include "stages/support/Hash.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace retune {

FieldHasher &FieldHasher::add(StringRef tag, StringRef value) {
  std::string header = (tag + ":" + Twine(value.size()) + ":").str();
  hasher.update(header);
  hasher.update(value);
  return *this;
}

FieldHasher &FieldHasher::add(StringRef tag, int64_t value) {
  return add(tag, std::to_string(value));
}

std::string FieldHasher::hex(size_t bytes) {
  BLAKE3Result<32> digest = hasher.final();
  return toHex(ArrayRef<uint8_t>(digest.data(), std::min<size_t>(bytes, 32)),
               /*LowerCase=*/true);
}

std::string blake3Hex(StringRef data, size_t bytes) {
  BLAKE3Result<32> digest = BLAKE3::hash<32>(arrayRefFromStringRef(data));
  return toHex(ArrayRef<uint8_t>(digest.data(), std::min<size_t>(bytes, 32)),
               /*LowerCase=*/true);
}

} // namespace retune
