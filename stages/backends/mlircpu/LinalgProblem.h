//===- LinalgProblem.h - Problems from upstream linalg ops ------*- C++ -*-===//
#ifndef RETUNE_CPU_LINALGPROBLEM_H
#define RETUNE_CPU_LINALGPROBLEM_H

#include "stages/core/Problem.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace retune::cpu {

/// Root ops are the ones dispatch formation outlines and the search tunes:
/// contractions (any operand layout, batched, generic) and convolutions, with
/// static shapes. Everything else stays in the model.
bool isRootOp(mlir::linalg::LinalgOp op);

/// The packing op in front of input `input` of `root` that joins its
/// dispatch (LayoutNormalization.h: a `linalg.transpose` or `linalg.copy`
/// into a fresh tensor), or null.
mlir::linalg::LinalgOp prologueOf(mlir::linalg::LinalgOp root,
                                  unsigned input);

/// Describes a root op. `why` explains a failure.
mlir::FailureOr<Problem> problemFromOp(mlir::linalg::LinalgOp op,
                                       StringRef target, std::string *why);

/// Describes an op that is not a root but that the compiler vectorizes on
/// its own: static shapes on tensors, parallel loops only, one result
/// (fills, transposes, elementwise generics). Fails for anything else.
mlir::FailureOr<Problem> elementwiseProblemFromOp(mlir::linalg::LinalgOp op,
                                                  StringRef target);

/// "f32", "bf16", "i8", ...
std::string typeName(mlir::Type type);

} // namespace retune::cpu

#endif // RETUNE_CPU_LINALGPROBLEM_H
