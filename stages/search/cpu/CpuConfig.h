//===- CpuConfig.h - One point of the CPU knob space ------------*- C++ -*-===//
//
// A CPU configuration for a contraction or convolution root op. Tile vectors
// have one entry per loop of the op (0 = that level does not tile the loop).
// The action a spec applies is, in order: outer tiling (scf.forall when
// `threads > 1`, else scf.for in `outerInterchange` order), reduction
// (cache) tiling, register tiling in `registerInterchange` order,
// `decompose` (convolutions to 1-D), vectorization, and unrolling of the
// innermost register loop by `kUnroll`.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CPU_CPUCONFIG_H
#define RETUNE_CPU_CPUCONFIG_H

#include "stages/support/LLVM.h"

#include "llvm/Support/JSON.h"

#include <cstdint>

namespace retune::cpu {

struct CpuConfig {
  SmallVector<int64_t> outerTiles;
  /// Loop order of the outer scf.for loops (empty: identity).
  SmallVector<int64_t> outerInterchange;
  /// Threads that share the outer tiles via scf.forall + OpenMP (1: none).
  unsigned threads = 1;
  SmallVector<int64_t> reductionTiles;
  SmallVector<int64_t> registerTiles;
  /// Loop order of the register-tile loops (empty: identity).
  SmallVector<int64_t> registerInterchange;
  /// Unroll factor of the innermost register loop (1: none).
  unsigned kUnroll = 1;
  /// Decompose 2-D convolutions into 1-D ones before vectorizing.
  bool decompose = false;

  bool operator==(const CpuConfig &other) const = default;
};

llvm::json::Object toJson(const CpuConfig &config);
Expected<CpuConfig> cpuConfigFromJson(const llvm::json::Object &object);

} // namespace retune::cpu

#endif // RETUNE_CPU_CPUCONFIG_H
