//===- CpuKnobs.h - A point of the CPU knob space ----------------*- C++ -*-===//
//
// The CPU space in compact form (Knobs: the register tile, the k-unroll,
// the register loop order, outer and reduction tiles, threads), the tile
// domains it draws from, and the conversions to and from the CpuConfig a
// spec is written from.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CPU_CPUKNOBS_H
#define RETUNE_CPU_CPUKNOBS_H

#include "stages/search/cpu/CpuAnalysis.h"
#include "stages/search/cpu/CpuConfig.h"

namespace retune::cpu {

inline constexpr unsigned kUnrollChoices[] = {1, 2, 4, 8};
/// Smallest reduction (kc) tile worth a loop.
inline constexpr int64_t kMinReductionTile = 32;

/// The register-level choice Z3 enumerates.
struct RegisterChoice {
  int64_t mr = 1, nv = 1;
  unsigned unroll = 1;
  bool colsOuter = false;
};

/// A full point of the space in compact form.
struct Knobs {
  RegisterChoice reg;
  unsigned threads = 1;
  /// Per loop: scf.for cache tile (threads == 1) or scf.forall tile.
  SmallVector<int64_t, 8> outer;
  int64_t kc = 0;
};

/// Tile choices on a loop of `range` for a unit of `unit`: multiples of the
/// unit that divide the range, smaller than it, and either unit x 2^i or
/// range / 2^j (powers of two preferred, few choices per loop).
SmallVector<int64_t> tileChoices(int64_t range, int64_t unit,
                                 int64_t minimum = 1);

/// The register tile of loop `dim` (1 on loops without one).
int64_t registerTileOf(const Analysis &an, const RegisterChoice &r,
                       unsigned dim);
/// Extent of `dim` inside one outer tile (1 for no loop, -1).
int64_t blockExtent(const Analysis &an, const Knobs &k, int dim);
/// Loops that may carry outer tiles: scf.forall tiles with threads, else
/// cache tiles where the operands overflow L2, and the batch loops of a
/// packed panel.
SmallVector<unsigned> outerDims(const Analysis &an, unsigned threads);

/// Bytes of a packed operand's panel in one outer tile (0 without one).
int64_t packedPanelBytes(const Analysis &an, const Knobs &k);
/// Bytes of the mc x kc and kc x nc operand blocks one cache tile reads.
int64_t cacheBlockBytes(const Analysis &an, const Knobs &k);

CpuConfig toConfig(const Analysis &an, const Knobs &k);
/// The knobs of `config`, or the structural rule it breaks.
Expected<Knobs> fromConfig(const Analysis &an, const CpuConfig &config);

} // namespace retune::cpu

#endif // RETUNE_CPU_CPUKNOBS_H
