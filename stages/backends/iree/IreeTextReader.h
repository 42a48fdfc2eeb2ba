//===- IreeTextReader.h - IREE's files read as text ------------*- C++ -*-===//
//
// IREE's own library (IreeIr.h) reads IREE's files wherever it is installed.
// This reader does the same as text, for where it is not: the fake tools of
// the tests (shell scripts, tests/fakes) and installations without the
// library. It knows MLIR's lexical structure (MlirText.h), not IREE's
// syntax; the root op itself, when it is an upstream linalg op, is cut out
// and parsed by MLIR 22's linalg dialect. IreeIrTest checks it against IREE's
// library on every recorded real dump. `readIreeTarget` reads one target
// attribute as IREE prints it, for both readers (IREE's C API has no
// accessor for HAL attributes).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_IREETEXTREADER_H
#define RETUNE_IREE_IREETEXTREADER_H

#include "stages/backends/iree/IreeDispatch.h"
#include "stages/support/LLVM.h"

#include <string>
#include <vector>

namespace retune::iree {

/// Reads a target attribute's text (`#hal.executable.target<...>` or the
/// short `<"rocm", "rocm-hsaco-fb", {...}>` form).
Expected<IreeTarget> readIreeTarget(llvm::StringRef text,
                                    llvm::StringRef where);

/// readIreeDispatch without IREE's library.
Expected<IreeDispatch> readDispatchAsText(llvm::StringRef text,
                                          llvm::StringRef fileName);

/// readIreeTargets without IREE's library.
Expected<std::vector<IreeTarget>> readTargetsAsText(llvm::StringRef text,
                                                    llvm::StringRef fileName);

/// Builds the Problem of one root op given its text (a linalg op or
/// `iree_linalg_ext.attention`, attributes included) and its target.
Expected<Problem> problemFromRootOp(llvm::StringRef opText,
                                    llvm::StringRef target,
                                    llvm::StringRef where);

/// Removes every `root_op` attribute (either form) from `text`, as the
/// tuner must before compiling a dumped benchmark with a spec.
Expected<std::string> dropRootOp(llvm::StringRef text,
                                 llvm::StringRef fileName);

/// Removes every `lowering_config` attribute left after IREE's strip pass
/// (data tiling's linalg.unpack keeps one), so that IREE configures the
/// dispatch itself.
Expected<std::string> dropLoweringConfigs(llvm::StringRef text,
                                          llvm::StringRef fileName);

} // namespace retune::iree

#endif // RETUNE_IREE_IREETEXTREADER_H
