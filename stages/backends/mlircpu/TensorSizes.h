//===- TensorSizes.h - Tensors no machine can hold --------------*- C++ -*-===//
//
// A model whose tensors overflow 64-bit element counts, or need more bytes
// than this machine has, passes parsing but crashes every benchmark (a
// segfault per candidate) and then the model step. The plan refuses it
// first, naming the tensor, its line and the limit.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_MLIRCPU_TENSORSIZES_H
#define RETUNE_MLIRCPU_TENSORSIZES_H

#include "stages/support/LLVM.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>

namespace retune::cpu {

/// This machine's physical memory in bytes (0 where unknown).
uint64_t physicalMemoryBytes();

/// The first ranked tensor in `module` (an operand, result or block
/// argument) whose element count overflows 64 bits or whose bytes exceed
/// `limitBytes` (0: no byte limit), as an error that names `path`, the
/// line and column, the type, and what to do.
Error checkTensorSizes(mlir::ModuleOp module, StringRef path,
                       uint64_t limitBytes);

} // namespace retune::cpu

#endif // RETUNE_MLIRCPU_TENSORSIZES_H
