//===- Reverify.h - After a compiler change, verify the winners first -*- C++
//-*-===//
//
// A new compiler identity would redo every step. Most winners still win:
// so when compiler.id is about to change, each dispatch's winner under the
// old compiler becomes a verify round (verify/<id>/candidates/: an index
// listing that one spec). The round compiles it and the baseline with the
// new compiler and measures them; the candidates step then keeps the
// winner alone when it still wins by the margin, and searches the whole
// space again when it regressed, failed, or no longer applies (its code is
// the baseline's). docs/user-guide.md tells the user's side.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_PIPELINE_REVERIFY_H
#define RETUNE_PIPELINE_REVERIFY_H

#include "stages/support/LLVM.h"

#include <string>

namespace retune::pipeline {

/// Whether `buildDir` holds a compiler.id other than `identity` (a first
/// plan, with none yet, is no change).
bool compilerChanges(StringRef buildDir, StringRef identity);

/// Files a candidates step writes beside its numbered specs that a round's
/// compiles read: the iree backend compiles its baseline with an empty
/// spec. A verify round carries copies of those that exist.
inline constexpr llvm::StringLiteral kRoundSharedFiles[] = {
    "baseline.spec.mlir"};

/// Turns the winners in best/ into verify rounds, replacing any earlier
/// ones (they verified against a compiler that is gone). A damaged select
/// record or winner spec is skipped with a note: that dispatch is searched.
/// Returns how many winners will be verified.
Expected<unsigned> snapshotWinners(StringRef buildDir);

} // namespace retune::pipeline

#endif // RETUNE_PIPELINE_REVERIFY_H
