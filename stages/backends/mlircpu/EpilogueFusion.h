//===- EpilogueFusion.h - Elementwise consumers join their root -*- C++ -*-===//
//
// Dispatch formation as IREE does it: a dispatch is a root op (contraction or
// convolution) together with the elementwise ops that consume its result —
// bias, activation, the gate of a gated product. A consumer joins when it
// is a parallel `linalg.generic` of the root's type whose only use of the
// root result is one input at the identity map, and that result has no
// other use. It is rewritten to compute in place: the root's result becomes
// its destination (the init it overwrites) instead of an input, so fill,
// root and epilogue all write one buffer, and the spec's action can tile
// the last epilogue op and fuse the rest into its tiles. Joined ops carry
// `retune.epilogue`, the root `retune.root`. Dump and compile both run it,
// so dispatches and the model agree.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CPU_EPILOGUEFUSION_H
#define RETUNE_CPU_EPILOGUEFUSION_H

#include "stages/backends/mlircpu/CpuSpec.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"

namespace retune::cpu {

/// Longest chain joined to one root.
constexpr unsigned kMaxEpilogueOps = 4;

/// Rewrites the elementwise consumers of every root op of `module` to
/// compute in place on its result; returns how many ops joined. Running it
/// again changes nothing.
unsigned fuseEpilogues(mlir::ModuleOp module);

/// The ops `fuseEpilogues` joined to `root`, in order (empty: none).
llvm::SmallVector<mlir::linalg::GenericOp>
epilogueOf(mlir::linalg::LinalgOp root);

} // namespace retune::cpu

#endif // RETUNE_CPU_EPILOGUEFUSION_H
