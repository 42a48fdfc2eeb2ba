//===- Problem.h - What a dispatch computes, independent of IR --*- C++ -*-===//
//
// A Problem is everything the search needs to know about a dispatch's root
// op: its kind, loop ranges, iterator types, indexing maps, element types and
// target. The stable id hashes exactly these fields, so the same dispatch in
// two models (or before and after a compiler upgrade that left it alone) has
// the same id.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SUPPORT_PROBLEM_H
#define RETUNE_SUPPORT_PROBLEM_H

#include "llvm/ADT/SmallVector.h"
#include "stages/support/LLVM.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>

namespace retune {

/// Elementwise: parallel loops only (fills, transposes, bias, activations);
/// never a tuned root, but what the mlir-cpu compiler vectorizes by default.
enum class OpKind { Contraction, Convolution, Attention, Elementwise };

llvm::StringRef toString(OpKind kind);
std::optional<OpKind> parseOpKind(llvm::StringRef text);

/// An elementwise op fused after a root (bias, activation, gated product):
/// it computes in place on the root's result, reading `inputMaps.size()`
/// other operands (see docs/cpu-backend.md, "Dispatch formation").
struct EpilogueOp {
  /// Canonical printed indexing maps of its other inputs.
  llvm::SmallVector<std::string> inputMaps;
  /// Payload op names in order, comma-separated ("arith.addf,arith.maximumf").
  std::string body;

  bool operator==(const EpilogueOp &other) const = default;
};

/// An operand transpose the dispatch carries in front of its root: layout
/// normalization turns an NT or TN contraction into a `linalg.transpose` of
/// one operand plus the NN contraction, and the root's action fuses the
/// transpose into its outer tiles, so each tile packs the panel it reads
/// (see docs/cpu-backend.md, "Operand packing").
struct PrologueOp {
  /// The root input the transpose produces.
  unsigned input = 0;
  /// Canonical printed indexing map of the transpose's input.
  std::string map;

  bool operator==(const PrologueOp &other) const = default;
};

/// Role letters, one per loop dimension, in `Problem::dimRoles`:
///   contraction: 'b' batch, 'm' LHS-only parallel, 'n' RHS-only parallel,
///                'k' reduction;
///   convolution: 'b' batch, 'o' output image, 'f' output channel,
///                'r' filter window, 'c' input channel, 'd' depth (grouped);
///   attention:   'b' batch, 'm' query, 'k' head (K1), 'l' key (K2),
///                'n' value head;
///   elementwise: 'v' innermost dim of the output or of an input (vector
///                lanes go there), 'p' other parallel dims, 'k' reduction
///                (a reduction that is not a contraction: softmax's sum).
struct Problem {
  OpKind kind = OpKind::Contraction;
  /// Root op name, e.g. "linalg.matmul" or "linalg.generic".
  std::string opName;
  llvm::SmallVector<int64_t> loopRanges;
  /// "parallel" or "reduction" per loop.
  llvm::SmallVector<std::string> iteratorTypes;
  /// Canonical printed affine maps, inputs first then inits.
  llvm::SmallVector<std::string> indexingMaps;
  /// Element types ("f32", "f16", "i8", ...), inputs first then inits.
  llvm::SmallVector<std::string> elementTypes;
  unsigned numInputs = 0;
  std::string dimRoles;
  /// "cpu:<host cpu name>" or a GPU arch such as "gfx942".
  std::string target;
  /// Ops fused after the root, in order (mlir-cpu; empty elsewhere).
  llvm::SmallVector<EpilogueOp> epilogue;
  /// Operand transposes fused before the root (mlir-cpu; empty elsewhere).
  llvm::SmallVector<PrologueOp> prologue;
  /// For a root IREE has no named matcher for and whose body computes (a
  /// reduction such as softmax's sum): the transform IR that matches it —
  /// a `transform.iree.match.cast_compatible_dag_from_root` as IREE's
  /// library printed it, or, when the body reads values from outside it,
  /// checks of its name, loops and operand types with its body's ops named
  /// (iree; empty elsewhere). Part of the id: two such roots differ by their
  /// bodies.
  std::string rootDag;

  /// Loop indices whose role is `role`, in loop order.
  llvm::SmallVector<unsigned> dimsWithRole(char role) const;
  /// Product of the loop ranges with role `role` (1 when none).
  int64_t extentOf(char role) const;
  /// Multiply-accumulate count times two.
  double flops() const;
  /// Hex digest of exactly the identifying fields.
  std::string stableId() const;
  /// e.g. "matmul_1024x1024x1024_f32", plus "_addf_maximumf" for an
  /// epilogue and "_packed1" for a transposed input 1.
  std::string readableName() const;
};

llvm::json::Value toJson(const Problem &problem);
llvm::Expected<Problem> problemFromJson(const llvm::json::Value &value);

} // namespace retune

#endif // RETUNE_SUPPORT_PROBLEM_H
