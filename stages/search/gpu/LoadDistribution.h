//===- LoadDistribution.h - Can the threads load a promoted tile? -*- C++ -*-===//
//
// VectorDistribute copies each promoted operand tile from global to shared
// memory with one `vector.transfer_read` distributed over the whole
// workgroup. IREE derives the per-thread layout of that read
// (GPUVectorAlloc.cpp, materializeSharedMemoryPromotion) from
// `deriveThreadTileSizes` (DerivedConfigUtils.cpp,
// getVectorTileSizesFromLoopRanges: 128-bit element tiles) and
// `getDerivedThreadLayout` (GPUNestedLayoutUtils.cpp: threads innermost
// first, each dim either a divisor or a multiple of the threads left); when
// either fails the compile stops with "failed to derive layout for promoted
// read-like op". This file restates that rule twice: literally over a tile
// shape (for the checker and tests), and as a Model formula over a 2-D tile
// [outer, inner] (for the search spaces).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_GPU_LOADDISTRIBUTION_H
#define RETUNE_GPU_LOADDISTRIBUTION_H

#include "stages/core/IndexingMap.h"
#include "stages/search/solver/Model.h"

namespace retune::gpu {

/// The bits IREE loads per thread and instruction for promoted copies
/// (DerivedConfigUtils.cpp, kPreferredCopyNumBits).
constexpr int64_t kPreferredCopyNumBits = 128;

/// IREE's element tile of a copy of `shape` by `threads` threads
/// (getVectorTileSizesFromLoopRanges with multi-dim collapse).
SmallVector<int64_t> deriveElementTile(ArrayRef<int64_t> shape, int64_t threads,
                                       int64_t elementBits);

/// Whether IREE can lay out a read of `shape` over `threads` threads with
/// the element tile above (getDerivedThreadLayout succeeds).
bool promotedReadDistributes(ArrayRef<int64_t> shape, int64_t threads, int64_t elementBits);

/// The same rule as a Model formula for a tile whose dims are all 1 except
/// `outer` and the innermost `inner` (either may be a constant).
Expr promotedReadDistributes(Model &model, Expr outer, Expr inner, Expr threads,
                             int64_t elementBits);

/// The extent of an operand tile per result of its indexing map
/// (stages/core/IndexingMap.h, every result a sum of loop terms):
/// 1 + sum(coeff * (tile - 1)).
SmallVector<int64_t> operandTileShape(ArrayRef<MapResult> results, ArrayRef<int64_t> loopTiles);

} // namespace retune::gpu

#endif // RETUNE_GPU_LOADDISTRIBUTION_H
