//===- IreeDefaultConfig.h - IREE's own config, read and varied -*- C++ -*-===//
//
// Dispatches outside the CPU knob space (convolutions IREE emits as
// linalg.generic in any layout, data-tiled convolutions, matvecs, ...) still
// get candidates: IREE picks a lowering config and pipeline for every root
// op it can compile, so the candidates start from that config (read from
// `iree-compile --compile-to=executable-configurations`) and vary its
// `distribution` level, the workgroup tile, keeping IREE's vector levels and
// pipeline. IREE's default itself is the baseline (the empty spec).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_BACKENDS_IREE_IREEDEFAULTCONFIG_H
#define RETUNE_BACKENDS_IREE_IREEDEFAULTCONFIG_H

#include "stages/core/Problem.h"
#include "stages/search/gpu/CompilerChoice.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace retune::iree {

/// The root op's config as IREE chose it.
struct IreeRootConfig {
  /// `#iree_cpu.lowering_config<...>`, verbatim.
  std::string loweringConfig;
  /// `#iree_codegen.translation_info<...>`, verbatim.
  std::string translationInfo;
  /// The `distribution` level, one tile per loop (0: the whole loop).
  llvm::SmallVector<int64_t> distribution;
  /// The `vector_common_parallel` level (empty when IREE set none).
  llvm::SmallVector<int64_t> vectorParallel;
  /// The `vector_reduction` level (empty when IREE set none).
  llvm::SmallVector<int64_t> vectorReduction;
  /// Whether the config has a cache level (IREE then vectorises the fused
  /// fill at the whole distribution tile; see kMaxVectorBytes).
  bool hasCacheLevel = false;
  /// The order, outermost first, in which the dispatch stores the root's
  /// loops when the root's result goes through a `linalg.pack` that
  /// reorders them (its `outer_dims_perm`); empty when none does.
  llvm::SmallVector<unsigned> storeOrder;
  /// Per loop, the inner tile of the data-tiled layouts the root reads
  /// (a `linalg.unpack`'s result) and writes (a `linalg.pack`'s source), 1
  /// where none tiles it; empty when the dispatch unpacks nothing.
  llvm::SmallVector<int64_t> dataTiles;
};

/// Reads the root op's config from iree-compile's output at the
/// executable-configurations phase: the op whose lowering_config has a
/// `distribution` level, and the function's translation_info.
llvm::Expected<IreeRootConfig> readRootConfig(llvm::StringRef configuredText,
                                              llvm::StringRef fileName);

/// IREE's own GPU config for the root op (the op whose lowering_config names
/// an `mma_kind`), with the translation_info's prefetch stages: the centre
/// of the GPU search's NearCompiler ordering.
llvm::Expected<gpu::CompilerChoice>
readGpuCompilerChoice(llvm::StringRef configuredText, llvm::StringRef fileName);

/// One variant of IREE's config: its workgroup tiles (`distribution`) and
/// its register tiles (`vector_common_parallel`; empty: IREE's).
/// Workgroups IREE launches for a root op tiled by `distribution`: over
/// its parallel loops, ceil(range / tile), a tile of 0 taking the loop
/// whole.
int64_t workgroupCount(const Problem &problem,
                       llvm::ArrayRef<int64_t> distribution);

/// The fraction of `workers` x the dispatch's time spent working when
/// `workgroups` workgroups of equal work run on IREE's task executor. Its
/// workers reserve workgroups from the grid one at a time when there are
/// fewer than 8 a worker, and 8 at a time otherwise
/// (IREE_TASK_DISPATCH_MAX_TILES_PER_SHARD_RESERVATION), so the busiest
/// worker can hold a whole reservation more than the others: 3 workgroups on
/// 2 workers 0.75, 25 on 2 0.78 (16 against 9), 50 on 2 0.96. Measured on
/// the CRNN's mmt4d 2x25x4096 (IREE 3.13, 2 workers, this Zen 4): IREE's 50
/// workgroups 0.559 ms, 25 0.757 ms (1.35x), 5 0.672 ms (1.20x; 3 against 2).
double workerBalance(int64_t workgroups, unsigned workers);

/// Workers kept this busy (workerBalance) lose little of their time: a
/// variant that does keeps its place even where IREE's own workgroups keep
/// them busier. The ViT's pack of its attention probabilities at 2
/// workers: IREE's 771 workgroups 0.996, whole rows' 102 0.944 and 8x
/// faster alone.
inline constexpr double kBusyEnough = 0.9;

struct DistributionVariant {
  llvm::SmallVector<int64_t> distribution;
  llvm::SmallVector<int64_t> vectorParallel;
  /// Distance from IREE's choice (sum of |log2| of the tile ratios): the
  /// variants closest to IREE's own config are tried first.
  double cost = 0;
  /// Whether the dispatch peels its loops' remainders
  /// (`enable_loop_peeling` in the translation_info; see peelingHelps).
  bool peel = false;
};

/// Variants of IREE's config for a root op with these loops, IREE's own
/// left out (it is the baseline), at most `count`:
/// - for an elementwise root between data-tiled layouts
///   (IreeRootConfig::dataTiles), first register tiles of whole data tiles,
///   with IREE's workgroups and then with workgroups of one row of tiles
///   (the ViT's GELU after data tiling: 3.98 -> 0.75 ms alone);
/// - for data movement stored through a pack that reorders its loops
///   (IreeRootConfig::storeOrder), first workgroups that store one
///   contiguous run: the loops stored outermost at one tile (a vectorized
///   one at its register tile), the rest whole, about 64 KB a workgroup
///   first, the first of them also with a register tile of the loops the
///   pack stores innermost taken whole (an im2col's window: 8 -> 72
///   elements a vector store, the detector's 96x3x3x160x160 31.4 -> 11.5-
///   17.9 ms alone). IREE tiles such an op in its own loop order, and each
///   store then lands far from the last: the ViT's decoder im2col (128x4x4x128x128
///   f32 into a pack [h, w/8, c, kh, kw, 8, 1]) ran 120-136 ms alone with
///   IREE's [32, 4, 4, 32, 32] and 38-40 ms with [128, 4, 4, 1, 8] (50 ms
///   in the model, 120 with IREE's; 1 thread);
/// - for a transpose (an elementwise problem with two 'v' loops), first
///   square register tiles on those loops, a 32-byte register of elements
///   a side, then half (x86's 8x8 f32 transpose: 27 -> 5.6 ms alone, on a
///   24x410881 transpose that IREE gave a 16x16 tile);
/// - register tiles first: on each parallel loop IREE vectorizes, a
///   divisor of its workgroup tile within 4x of IREE's register tile, with
///   IREE's workgroup tiles kept and the register tile's elements within
///   half to twice IREE's (more accumulators spill, fewer waste reuse);
///   ordered by distance from IREE's. Measured on this CPU (1 thread): a
///   VGG16 3x3 convolution (NCHW, 512 channels, 30x30) ran in 268 ms with
///   IREE's [f 16, ow 6] and in 161 ms with [16, 10], 91 ms with [8, 15];
/// - then workgroup tiles: each parallel loop's tile halved, kept, doubled
///   or quadrupled (within [vector tile, loop range], multiples of the
///   vector tile; reduction loops stay 0), ordered by distance (on one
///   thread they moved none of VGG16's convolutions beyond 2%). With a
///   cache level, the distributed result tile stays within `maxVectorBytes`.
///
/// Where the root's register tiles leave a remainder that IREE lowers with
/// masked vectors (peelingHelps), each variant comes first with the loops
/// peeled, then as IREE would lower it; IREE's own tiles peeled come third.
///
/// On more than one worker, the variants that keep the workers less busy
/// than IREE's own workgroups do (workerBalance) and less than 90% busy come
/// after the others, each group in its order: an idle worker's share of the
/// time is lost, but a few percent of it is less than a better tile gains.
std::vector<DistributionVariant>
distributionVariants(const IreeRootConfig &config, const Problem &problem,
                     unsigned count, int64_t maxVectorBytes,
                     unsigned workers = 1);

/// Whether peeling the root's loops would change how IREE lowers them: a
/// loop the root's register tiles (`vector_common_parallel` or
/// `vector_reduction`) do not divide, which IREE 3.13's llvm-cpu lowering
/// otherwise computes with masked vectors and, for a reduction, reduces in
/// order lane by lane, under a DoubleTilingExpert pipeline that does not
/// peel already. On the ViT's attention softmax (6x257x257 f32, register
/// tile 16 over 257; 1 thread, this Zen 4) the root's config alone ran
/// 0.94-0.99 ms and peeled 0.66-0.74 ms (IREE's 2.2 ms).
bool peelingHelps(const IreeRootConfig &config, const Problem &problem);

/// `#iree_codegen.compilation_info<...>` of IREE's config with the
/// variant's distribution and register tiles (and peeling).
std::string compilationInfoWith(const IreeRootConfig &config,
                                const DistributionVariant &variant);

} // namespace retune::iree

#endif // RETUNE_BACKENDS_IREE_IREEDEFAULTCONFIG_H
