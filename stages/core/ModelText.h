//===- ModelText.h - A model's public functions, read as text ---*- C++ -*-===//
//
// The functions a whole-model benchmark may time, found without parsing the
// model: the planner runs on every re-plan and links no MLIR, and an
// imported ONNX model holds dialects upstream MLIR cannot parse.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CORE_MODELTEXT_H
#define RETUNE_CORE_MODELTEXT_H

#include "stages/support/LLVM.h"

#include <string>
#include <vector>

namespace retune {

/// A public function definition: its name, its argument list text and the
/// line it starts on.
struct FunctionHeader {
  std::string name;
  StringRef arguments;
  unsigned line = 0;
};

/// Every public `func.func`/`util.func` header of `text`, in file order
/// (private functions cannot be benchmark entries).
std::vector<FunctionHeader> publicFunctions(StringRef text);

} // namespace retune

#endif // RETUNE_CORE_MODELTEXT_H
