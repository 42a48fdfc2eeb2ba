//===- IreeSpec.h - Tuning specs in IREE's format ---------------*- C++ -*-===//
//
// Emits the tuning-spec modules IREE loads with
// `--iree-codegen-tuning-spec-path` (the shape amdsharktuner writes:
// structural `transform.iree.match.*` matchers checked with `dims_equal`, an
// action that annotates `compilation_info`, and one `@__kernel_config` with a
// single `foreach_match`), and checks any spec against IREE's tuning-spec
// rules before we write it.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_IREESPEC_H
#define RETUNE_IREE_IREESPEC_H

#include "stages/support/LLVM.h"
#include "stages/core/Problem.h"

#include <string>

namespace retune::iree {

/// One dispatch to configure.
struct SpecEntry {
  Problem problem;
  /// The `#iree_codegen.compilation_info<...>` attribute text.
  std::string compilationInfo;
  /// The matcher is named `match_<symbolSuffix>` (sanitized); empty: derived
  /// from the problem's readable name and stable id.
  std::string symbolSuffix;
  /// Attention only: the `decomposition_config` dictionary text
  /// (`{qk_attrs = {...}, pv_attrs = {...}}`); empty: not annotated.
  std::string decompositionConfig = {};
};

class IreeIrLibrary;

/// A spec module with one matcher per entry, in order.
std::string emitTuningSpec(llvm::ArrayRef<SpecEntry> entries);

/// The baseline spec (amdsharktuner's candidate 0): an entry point that only
/// yields, without the default-entrypoint attribute, so that the compiler's
/// own heuristics configure every dispatch.
std::string emitEmptySpec();

/// Checks IREE's tuning-spec rules (IREECodegenDialect's attribute verifier:
/// entry-point signature, `@__kernel_config` shape, the single
/// `foreach_match`), then what loading needs (`transform.with_named_sequence`,
/// an entry point, resolvable matcher/action names, readonly/consumed entry
/// arguments). With IREE's library (IreeIr.h) IREE itself parses and
/// verifies; without it the text verifier reproduces IREE's rules. Errors are
/// "<file>:<line>: <IREE's message>", one per line.
llvm::Error verifyTuningSpec(llvm::StringRef specText, llvm::StringRef fileName,
                             const IreeIrLibrary *library = nullptr);

/// Verifies `specText` and writes it to `path` (atomically, only when the
/// bytes change). Every spec the backend writes goes through this.
llvm::Error writeTuningSpec(llvm::StringRef path, llvm::StringRef specText,
                            const IreeIrLibrary *library = nullptr);

/// Tile sizes of IREE's llvm-cpu lowering config, one entry per loop
/// (0 = not tiled at that level). Empty levels are left out.
struct CpuTileSizes {
  llvm::SmallVector<int64_t> distribution;
  llvm::SmallVector<int64_t> cacheParallel;
  llvm::SmallVector<int64_t> cacheReduction;
  llvm::SmallVector<int64_t> vectorCommonParallel;
  llvm::SmallVector<int64_t> vectorReduction;
  llvm::SmallVector<int64_t> vectorInnerParallel;
  /// Loops whose vector tile is scalable (printed `[n]`); empty: none.
  llvm::SmallVector<bool> scalableVector;
};

/// `#iree_cpu.lowering_config<distribution = [...], ...>`.
std::string cpuLoweringConfig(const CpuTileSizes &tiles);

/// `#iree_codegen.compilation_info<lowering_config = <cpu config>,
/// translation_info = #iree_codegen.translation_info<pipeline = P>>`, where
/// `pipeline` is already spelled for the IREE version (see IreeTools.h).
std::string cpuCompilationInfo(const CpuTileSizes &tiles,
                               llvm::StringRef pipeline);

/// Matcher symbol used for `entry` (without the `@`).
std::string matcherName(const SpecEntry &entry);

/// Convolution strides and dilations read from the input indexing map
/// (`d_o * stride + d_r * dilation`), in output-image / filter loop order.
struct ConvGeometry {
  llvm::SmallVector<int64_t> strides, dilations;
};
ConvGeometry convGeometry(const Problem &problem);

} // namespace retune::iree

#endif // RETUNE_IREE_IREESPEC_H
