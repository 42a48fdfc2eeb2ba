//===- LayoutNormalization.h - Transposed-B contractions to NN -*- C++ -*-===//
//
// A contraction whose B operand holds a reduction dim innermost (x · Wᵀ, the
// layout of linear-layer weights and of q · kᵀ) vectorizes badly: the
// register tile needs consecutive n values at one k, which are a row stride
// apart; an A with m innermost (TN) likewise. Transposing the whole operand
// into the NN layout costs one pass over it (O(N·K)) against the
// contraction's O(M·N·K), so when the other side has rows enough to reuse
// it the contraction is rewritten as a `linalg.transpose` of the operand
// followed by the same op in the NN layout. B's transpose joins the
// dispatch as its prologue (`retune.prologue`, the contraction becomes its
// `retune.root`): the config's action fuses it into the outer tiles, so
// each tile transposes (packs) just the panel it reads while it is in
// cache, as a BLAS packs its panels. A's transpose stays outside the
// dispatch (packing A per tile would stream B once per A panel). Dump and
// compile both run it, so dispatches and the model agree on the problem.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CPU_LAYOUTNORMALIZATION_H
#define RETUNE_CPU_LAYOUTNORMALIZATION_H

#include "mlir/IR/BuiltinOps.h"

namespace retune::cpu {

/// Fewest rows (m dims, for B; n dims, for A) for which a transpose pays.
constexpr int64_t kMinRowsToTransposeB = 32;

/// Rewrites every static contraction of `module` with a transposed A or B
/// into transposes + the NN contraction; returns how many operands it
/// transposed.
unsigned normalizeOperandLayouts(mlir::ModuleOp module,
                                 int64_t minRows = kMinRowsToTransposeB);

} // namespace retune::cpu

#endif // RETUNE_CPU_LAYOUTNORMALIZATION_H
