//===- ModelSignature.h - A model's entry function and its inputs -*- C++ -*-===//
//
// What the whole-model benchmark needs when tune.toml does not say: which
// public function to time and an `--input=` per argument, read from the
// function's signature. Works on linalg models (`tensor<256x1024xf32>`) and
// on ONNX models imported by iree-import-onnx
// (`!torch.vtensor<[1,128],si64>`), textually: the imported file holds
// dialects upstream MLIR cannot parse, and weights that make it large.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_MODELSIGNATURE_H
#define RETUNE_IREE_MODELSIGNATURE_H

#include "stages/support/LLVM.h"

#include <string>
#include <vector>

namespace retune::iree {

struct EntryFunction {
  std::string name;
  /// One iree-benchmark-module `--input=` value per argument, e.g.
  /// "256x1024xf32" or "1x128xi64".
  std::vector<std::string> inputs;
};

/// The public function `entry` of `modelText` (or the only public function
/// when `entry` is empty) and its arguments as benchmark inputs. Errors name
/// `fileName` and the fix: no such function, several and no entry, or an
/// argument with a dynamic or non-tensor type.
Expected<EntryFunction> readEntryFunction(llvm::StringRef modelText,
                                          llvm::StringRef entry,
                                          llvm::StringRef fileName);

/// What a whole-model benchmark runs: the function and the
/// iree-benchmark-module flags (the user's, with one `--input=` per argument
/// added when they give none).
struct ModelInvocation {
  std::string function;
  std::vector<std::string> flags;
};

/// `entry` and `benchFlags` as given, completed from the model's signature
/// when the entry is empty or the flags hold no `--input`.
Expected<ModelInvocation>
resolveModelInvocation(llvm::StringRef modelPath, llvm::StringRef entry,
                       llvm::ArrayRef<std::string> benchFlags);

} // namespace retune::iree

#endif // RETUNE_IREE_MODELSIGNATURE_H
