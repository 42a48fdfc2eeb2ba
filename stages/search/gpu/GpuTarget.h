//===- GpuTarget.h - What the search needs to know about a GPU --*- C++ -*-===//
//
// Read from a dispatch's `#iree_gpu.target<...>` attribute (the source of
// truth: it is what the compiler will target), or from
// configs/targets/<arch>.toml when a file carries none. Nothing per
// architecture lives in C++.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_GPU_GPUTARGET_H
#define RETUNE_GPU_GPUTARGET_H

#include "stages/support/LLVM.h"

#include <cstdint>
#include <optional>
#include <string>

namespace retune::gpu {

struct GpuTarget {
  std::string arch;
  /// Chip SKU ("mi300x") when known; empty for an arch-only target.
  std::string sku;
  SmallVector<int64_t> subgroupSizeChoices;
  /// Intrinsic names as the target lists them (`mma = [...]`).
  SmallVector<std::string> mmaIntrinsics;
  SmallVector<int64_t> maxWorkgroupSizes;
  int64_t maxThreadsPerWorkgroup = 0;
  int64_t maxWorkgroupMemoryBytes = 0;
  int64_t maxLoadInstructionBits = 128;
  int64_t simdsPerWgp = 0;
  int64_t vgprSpaceBits = 0;
  /// `chip = <wgp_count = N>`; 0 when the target names no SKU.
  int64_t wgpCount = 0;

  /// The reference uses the smallest subgroup size (64 on CDNA, 32 on RDNA).
  int64_t minSubgroupSize() const;
  bool hasIntrinsic(StringRef name) const;
  /// An NVIDIA target (`sm_*`, IREE's CUDA target).
  bool isNvidia() const { return StringRef(arch).starts_with("sm_"); }
};

/// Returns the balanced `#iree_gpu.target<...>` text inside `text`, if any.
std::optional<StringRef> findGpuTargetAttr(StringRef text);

/// Parses the text of an `#iree_gpu.target<...>` attribute (aliases and
/// line breaks allowed). Errors name the missing or malformed field.
Expected<GpuTarget> parseGpuTargetAttr(StringRef text);

/// Reads a target description file (configs/targets/*.toml). `sku` picks a
/// `[sku.<name>]` table; empty means the file's `default_sku` if it has one.
Expected<GpuTarget> loadTargetFile(StringRef path, StringRef sku = "");

/// Finds the description of `name` (an arch like "gfx942" or a SKU like
/// "mi300x") in `dir`.
Expected<GpuTarget> loadKnownTarget(StringRef name, StringRef dir = RETUNE_TARGETS_DIR);

/// The target of a dispatch: its own attribute when `dispatchText` has one,
/// else the description of `fallbackName` (usually Problem::target).
Expected<GpuTarget> resolveTarget(StringRef dispatchText, StringRef fallbackName,
                                  StringRef dir = RETUNE_TARGETS_DIR);

} // namespace retune::gpu

#endif // RETUNE_GPU_GPUTARGET_H
