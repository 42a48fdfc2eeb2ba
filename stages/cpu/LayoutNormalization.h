//===- LayoutNormalization.h - Transposed-B contractions to NN -*- C++ -*-===//
//
// A contraction whose B operand holds a reduction dim innermost (x · Wᵀ, the
// layout of linear-layer weights and of q · kᵀ) vectorizes badly: the
// register tile needs consecutive n values at one k, which are a row stride
// apart. Packing the whole of B into the (k, n) layout costs one pass over
// B (O(N·K)) against the contraction's O(M·N·K), so for enough rows the
// contraction is rewritten as a `linalg.transpose` of B followed by the
// same op with B in the NN layout. The transpose stays outside the
// dispatch; the tuned config applies to the NN contraction. Dump and
// compile both run it, so dispatches and the model agree on the problem.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CPU_LAYOUTNORMALIZATION_H
#define RETUNE_CPU_LAYOUTNORMALIZATION_H

#include "mlir/IR/BuiltinOps.h"

namespace retune::cpu {

/// Fewest rows (product of the m dims) for which transposing B pays off.
constexpr int64_t kMinRowsToTransposeB = 32;

/// Rewrites every static transposed-B contraction of `module` with at least
/// `minRows` rows into transpose + NN contraction; returns how many.
unsigned normalizeOperandLayouts(mlir::ModuleOp module,
                                 int64_t minRows = kMinRowsToTransposeB);

} // namespace retune::cpu

#endif // RETUNE_CPU_LAYOUTNORMALIZATION_H
