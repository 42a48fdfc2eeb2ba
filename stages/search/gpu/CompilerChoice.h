//===- CompilerChoice.h - The compiler's own GPU config ---------*- C++ -*-===//
//
// Kept apart from Candidates.h so that a backend that reads the compiler's
// config needs no part of the search to say what it read.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_GPU_COMPILERCHOICE_H
#define RETUNE_GPU_COMPILERCHOICE_H

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace retune::gpu {

/// The compiler's own config for the op (IREE's, read from its
/// executable-configurations output): the centre of the NearCompiler
/// ordering. Lists are the lowering config's, one entry per loop.
struct CompilerChoice {
  llvm::SmallVector<int64_t> workgroup, reduction, subgroup;
  /// The intrinsic's name, e.g. `NV_MMA_SYNC_F32_16x8x16_F16`.
  std::string mma;
  int64_t prefetchStages = 2;
  bool convertAccGemm = false;
  /// From the translation_info: "TileAndFuse", the threads, the subgroup
  /// size, and `use_igemm_convolution` where set.
  std::string pipeline;
  llvm::SmallVector<int64_t> workgroupSize;
  int64_t subgroupSize = 0;
  std::optional<bool> useIgemm;
};

} // namespace retune::gpu

#endif // RETUNE_GPU_COMPILERCHOICE_H
