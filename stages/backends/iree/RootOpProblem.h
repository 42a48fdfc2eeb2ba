//===- RootOpProblem.h - A root op's Problem from its maps -----*- C++ -*-===//
//
// Both readers of IREE's dumps (IREE's own library, IreeReader.cpp; the text
// reader the fakes use, IreeTextReader.cpp) find a root op's maps, operand
// types and iterator types their own way, then build its Problem here: its
// kind and loop roles (as IREE's infer*Dims give them), its loop ranges, the
// refusal of dynamic shapes. MLIR 22 parses the pieces (types, maps,
// iterator types) in a context where IREE's dialects stay unregistered.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_ROOTOPPROBLEM_H
#define RETUNE_IREE_ROOTOPPROBLEM_H

#include "stages/core/Problem.h"
#include "stages/support/LLVM.h"

#include "llvm/ADT/SmallVector.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <memory>
#include <string>

namespace retune::iree {

inline constexpr llvm::StringLiteral kNoRootOp =
    ": no op carries 'root_op'; dump with "
    "--iree-codegen-add-tuner-attributes (v3.11+) or "
    "--iree-config-add-tuner-attributes (v3.10 and older)";
inline constexpr llvm::StringLiteral kNotABenchmark =
    ": no hal.executable.variant; is this a file from "
    "--iree-hal-dump-executable-benchmarks-to?";

/// A context with MLIR 22's func and linalg dialects, IREE's unregistered.
std::unique_ptr<mlir::MLIRContext> makeReaderContext();

/// Collects an error diagnostic's text while parsing pieces.
struct DiagnosticCapture {
  explicit DiagnosticCapture(mlir::MLIRContext &context)
      : handler(&context, [this](mlir::Diagnostic &diag) {
          if (message.empty())
            message = diag.str();
          return mlir::success();
        }) {}
  std::string message;
  mlir::ScopedDiagnosticHandler handler;
};

/// Parses an operand's type into `types` and records its element type.
Error addOperandType(Problem &problem, llvm::SmallVectorImpl<mlir::Type> &types,
                     StringRef text, mlir::MLIRContext &context,
                     const DiagnosticCapture &diagnostics, const Twine &where);

/// The loop ranges of an op from its maps and its operands' static shapes:
/// each loop takes the size of the first operand dim it indexes alone.
SmallVector<int64_t> loopRangesFromShapes(ArrayRef<mlir::AffineMap> maps,
                                          ArrayRef<mlir::Type> operandTypes);

/// Sets the kind and roles of a linalg op's problem (its loops, iterator
/// types and inputs already read); `yieldsAnInput`: its body only yields an
/// input's element (data movement); `matchesBody`: the caller can match a
/// computing body (IREE's library: Problem::rootDag), so a CPU generic that
/// is not a contraction or convolution is tuned as Elementwise.
Error classifyLinalgOp(Problem &problem, ArrayRef<mlir::AffineMap> maps,
                       bool yieldsAnInput, bool matchesBody,
                       const Twine &where);

/// Sets the kind, roles and iterator types of an attention problem.
Error classifyAttention(Problem &problem, ArrayRef<mlir::AffineMap> maps,
                        const Twine &where);

/// Refuses dynamic loops and records the maps as text.
Expected<Problem> sealProblem(Problem problem, ArrayRef<mlir::AffineMap> maps,
                              const Twine &where);

} // namespace retune::iree

#endif // RETUNE_IREE_ROOTOPPROBLEM_H
