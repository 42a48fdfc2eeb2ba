//===- TransformText.h - Reading transform-dialect statements as text -*- C++ -*-===//
//
// Tuning specs mix upstream transform ops with IREE's `transform.iree.*`
// extensions, which upstream MLIR cannot parse. These helpers read the parts
// of `transform.named_sequence` and `transform.foreach_match` statements that
// IREE's tuning-spec rules and its linker look at, from the focused reader's
// statement tree.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_TRANSFORMTEXT_H
#define RETUNE_IREE_TRANSFORMTEXT_H

#include "stages/backends/iree/MlirText.h"

namespace retune::iree {

inline constexpr llvm::StringLiteral kEntrypointAttr =
    "iree_codegen.tuning_spec_entrypoint";
inline constexpr llvm::StringLiteral kDefaultEntrypointAttr =
    "iree_codegen.tuning_spec_with_default_entrypoint";
inline constexpr llvm::StringLiteral kWithNamedSequenceAttr =
    "transform.with_named_sequence";
inline constexpr llvm::StringLiteral kKernelConfig = "__kernel_config";
inline constexpr llvm::StringLiteral kAnyOp = "!transform.any_op";

struct SequenceArg {
  std::string name;
  std::string type;
  /// Argument attribute dictionary text, e.g. "{transform.readonly}".
  std::string attrs;
  bool consumed() const;
  bool readonly() const;
};

/// The signature of a `transform.named_sequence`.
struct NamedSequence {
  std::string name;
  SmallVector<SequenceArg> args;
  SmallVector<std::string> resultTypes;
  bool hasBody = false;
};

/// Reads the signature of `op` (a transform.named_sequence).
NamedSequence readNamedSequence(const TextFile &file, const OpNode &op);

/// A `transform.foreach_match`.
struct ForeachMatch {
  bool restrictRoot = false;
  bool flattenResults = false;
  SmallVector<std::string> operands;
  SmallVector<std::pair<std::string, std::string>> pairs;
  SmallVector<std::string> operandTypes;
  SmallVector<std::string> resultTypes;
};

ForeachMatch readForeachMatch(const TextFile &file, const OpNode &op);

/// True for `module` / `builtin.module` statements.
inline bool isModule(const OpNode &op) {
  return op.name == "module" || op.name == "builtin.module";
}

} // namespace retune::iree

#endif // RETUNE_IREE_TRANSFORMTEXT_H
