//===- DispatchOutlining.h - A dispatch as a function of its own -*- C++ -*-===//
//
// A dispatch is a root op (contraction or convolution) with the operand
// packs in front of it (LayoutNormalization.h), the fill that initializes
// its result and the elementwise ops that joined it (EpilogueFusion.h).
// Outlined, it is a function that computes in place into a destination
// argument. The dump writes each as dispatch.mlir; the compiler outlines
// every dispatch of a model into a private function called where it was, as
// IREE forms executables: a config's action then sees its dispatch and
// nothing else (tiling with fusion pulls in the producers of its tiles; in
// one function those were other dispatches, already configured, whose loops
// it cloned into its own).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CPU_DISPATCHOUTLINING_H
#define RETUNE_CPU_DISPATCHOUTLINING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace retune::cpu {

struct OutlinedDispatch {
  mlir::func::FuncOp func;
  /// The values the function takes before its destination, in order.
  llvm::SmallVector<mlir::Value> arguments;
  /// The root's init in the caller: the destination's value, unless a fill
  /// of a fresh tensor (then the fill's tensor) initializes it.
  mlir::Value init;
  /// The dispatch's last op (the root or its last epilogue op).
  mlir::Operation *last;
  /// The dispatch's ops in the caller, consumers before their producers:
  /// epilogue, root, fill, packs and the fresh tensors they write.
  llvm::SmallVector<mlir::Operation *> members;
};

/// Outlines the dispatch of `root` into `func @<name>` at `builder`'s
/// insertion point; the original ops stay.
OutlinedDispatch outlineDispatch(mlir::OpBuilder &builder,
                                 mlir::linalg::LinalgOp root,
                                 llvm::StringRef name);

/// Replaces every dispatch of the public functions of `module` by a call to
/// a private function holding it; returns how many.
unsigned outlineDispatches(mlir::ModuleOp module);

} // namespace retune::cpu

#endif // RETUNE_CPU_DISPATCHOUTLINING_H
