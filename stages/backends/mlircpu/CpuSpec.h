//===- CpuSpec.h - Transform-dialect specs for CPU configs ------*- C++ -*-===//
//
// A spec is a transform library module: per entry one matcher sequence
// (op name, loop ranges, element types, operand layout) and one action
// sequence (the CpuConfig), plus the entry point `@__retune_config` holding
// one `transform.foreach_match` over all pairs, first matcher wins.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CPU_CPUSPEC_H
#define RETUNE_CPU_CPUSPEC_H

#include "stages/search/cpu/CpuConfig.h"
#include "stages/core/Problem.h"

#include <string>

namespace retune::cpu {

/// Marks dispatch formation leaves on the payload for the actions to find:
/// the elementwise ops joined to a root (EpilogueFusion.h), the operand
/// transposes in front of it (LayoutNormalization.h), and that root.
inline constexpr llvm::StringLiteral kEpilogueAttr = "retune.epilogue";
inline constexpr llvm::StringLiteral kPrologueAttr = "retune.prologue";
inline constexpr llvm::StringLiteral kRootAttr = "retune.root";

/// Name of the entry sequence every retune CPU spec defines.
inline constexpr llvm::StringLiteral kSpecEntryPoint = "__retune_config";

struct SpecEntry {
  /// Unique suffix of the entry's symbols: @match_<symbol>, @apply_<symbol>.
  std::string symbol;
  Problem problem;
  CpuConfig config;
};

/// The matcher sequence of `entry`.
std::string emitMatcher(const SpecEntry &entry);
/// The action sequence of `entry`.
std::string emitAction(const SpecEntry &entry);
/// For a dispatch with an epilogue: @claim_<symbol>, a matcher of its root
/// (the root's result is its first epilogue op's init), and @hold_<symbol>,
/// an action that leaves it alone. foreach_match reaches a root before the
/// last epilogue op its dispatch's matcher anchors at; put first, the claim
/// keeps a matcher of a root without an epilogue (same shape) from taking
/// it, so the dispatch's own action finds it there.
std::string emitClaim(const SpecEntry &entry);
/// A complete spec module for `entries` (matchers first in foreach_match
/// order, then the entry point).
std::string emitSpecModule(ArrayRef<SpecEntry> entries,
                           StringRef headerComment = {});
/// The `@__retune_config` entry over already-emitted (matcher, action) pairs.
std::string emitEntryPoint(ArrayRef<std::pair<std::string, std::string>> pairs);

} // namespace retune::cpu

#endif // RETUNE_CPU_CPUSPEC_H
