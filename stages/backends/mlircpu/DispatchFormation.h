//===- DispatchFormation.h - A model's tunable dispatches -------*- C++ -*-===//
//
// One dispatch per root op (contraction or convolution) of the model's
// public functions: the root op outlined into its own function together with
// the fill that initializes its result and the elementwise ops that joined
// it (EpilogueFusion.h: bias, activation, gate). The fill's `tensor.empty`
// becomes a destination argument, so the dispatch computes in place into a
// caller buffer. Identical dispatches (same Problem) are formed once and
// counted.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_DUMP_DISPATCHFORMATION_H
#define RETUNE_DUMP_DISPATCHFORMATION_H

#include "stages/core/Records.h"

#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <string>

namespace retune::dump {

struct FormedDispatches {
  DispatchIndex index;
  /// Dispatch id -> text of dispatches/<id>/dispatch.mlir.
  std::map<std::string, std::string> modules;
};

/// Forms the dispatches of `model` for `target`. `modelName` is recorded in
/// the index. Fails with a message when the model has no root op.
Expected<FormedDispatches> formDispatches(mlir::ModuleOp model,
                                          StringRef modelName,
                                          StringRef target);

} // namespace retune::dump

#endif // RETUNE_DUMP_DISPATCHFORMATION_H
