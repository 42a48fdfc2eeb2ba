//===- HashedFile.h - Outputs that carry their own hash ---------*- C++ -*-===//
//
// A file a user takes away, or one the graph's correctness hangs on, is
// written with its BLAKE3 beside it (`.<name>.blake3`). `retune verify`, the
// first step of every `ninja tune`, checks each against its hash, so that a
// garbled or truncated one is found and redone instead of shipped or reused.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SUPPORT_HASHEDFILE_H
#define RETUNE_SUPPORT_HASHEDFILE_H

#include "stages/support/LLVM.h"

#include "llvm/Support/Error.h"

#include <string>

namespace retune {

/// Where the hash of `path` lives: `.<name>.blake3` in the same directory.
std::string hashPathOf(llvm::StringRef path);

/// writeFileIfChanged, then the hash of `bytes` beside it (each only when
/// changed, so Ninja's restat still sees an unchanged output). A kill
/// between the two leaves a file that does not match its hash: found and
/// redone, never trusted.
llvm::Error writeHashedFile(llvm::StringRef path, llvm::StringRef bytes,
                            bool *changed = nullptr);

/// What is wrong with `path` against its hash: "" when it holds what its
/// writer wrote, else a phrase ("is missing", "does not match the hash its
/// step wrote"). A file with no hash beside it was written before hashes
/// were kept (an older retune): it is taken as written and its hash is
/// recorded now, so that an upgrade redoes nothing.
std::string verifyHashedFile(llvm::StringRef path);

/// Removes `path` and its hash, so that the step that writes it runs again.
void removeHashedFile(llvm::StringRef path);

/// Whether `path`, an input of `tool`'s step, is damaged: missing, or not
/// what the hash beside it says (one without a hash is taken as written).
/// Says so on stderr. Such a step leaves its outputs as they are and exits
/// 0: the verify step of the same build removes the record the input came
/// from, and the plan redoes the step that writes it, then this one.
bool isDamagedInput(llvm::StringRef path, llvm::StringRef tool);

} // namespace retune

#endif // RETUNE_SUPPORT_HASHEDFILE_H
