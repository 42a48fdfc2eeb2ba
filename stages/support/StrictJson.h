//===- StrictJson.h - JSON exactly as RFC 8259 writes it -------*- C++ -*-===//
//
// llvm::json::parse is lenient where a record must not be: it takes the
// last of two equal keys (a duplicate "ratio" silently wins), and it
// recurses once per nesting level (50,000 levels overflow the stack). Every
// record Retune reads goes through parseStrictJson: nesting is bounded,
// duplicate keys and numbers that are not JSON (`.5`, `+0.5`, `01`) are
// refused with the line they are on, and only then does llvm::json parse.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SUPPORT_STRICTJSON_H
#define RETUNE_SUPPORT_STRICTJSON_H

#include "stages/support/LLVM.h"

#include "llvm/Support/JSON.h"

namespace retune {

/// Deeper nesting than any record has.
inline constexpr unsigned kMaxJsonDepth = 64;

/// Parses `text` as strict JSON (see above); errors say what and on which
/// line.
Expected<llvm::json::Value> parseStrictJson(StringRef text,
                                            unsigned maxDepth = kMaxJsonDepth);

} // namespace retune

#endif // RETUNE_SUPPORT_STRICTJSON_H
