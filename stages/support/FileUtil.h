//===- FileUtil.h - Atomic, write-if-changed file output --------*- C++ -*-===//
//
// Every stage tool writes its outputs through these helpers so that a killed
// run never leaves a half-written file behind (temp file + rename) and an
// unchanged output keeps its mtime (Ninja's `restat = 1` early cutoff).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SUPPORT_FILEUTIL_H
#define RETUNE_SUPPORT_FILEUTIL_H

#include "stages/support/LLVM.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace retune {

/// Reads a whole file. The error names the path.
llvm::Expected<std::string> readFile(llvm::StringRef path);

/// Writes `bytes` to `path` atomically, creating parent directories. When the
/// file already holds exactly these bytes it is left untouched (mtime kept).
/// Returns true in `changed` when the file was (re)written.
llvm::Error writeFileIfChanged(llvm::StringRef path, llvm::StringRef bytes,
                               bool *changed = nullptr);

/// Writes `bytes` atomically, always (for binary artifacts whose mtime must
/// move, e.g. a freshly compiled shared object).
llvm::Error writeFileAtomic(llvm::StringRef path, llvm::StringRef bytes);

/// Creates the parent directory of `path` if needed.
llvm::Error createParentDirs(llvm::StringRef path);

/// The paths of the entries of `dir` whose name ends with `suffix` (""
/// every entry), sorted; an error names `dir` when it cannot be listed.
llvm::Expected<std::vector<std::string>> listFiles(llvm::StringRef dir,
                                                   llvm::StringRef suffix = "");

/// Removes `<n><suffix>` files in `dir` with n >= keep: the outputs of an
/// earlier, larger run (e.g. `7.spec.mlir` after the count went down).
void removeNumberedFiles(llvm::StringRef dir, llvm::StringRef suffix,
                         unsigned keep);

/// Moves `output`'s mtime to now if any of `inputs` is newer: a step that
/// finds its record already done (same key) must still leave Ninja an
/// output newer than its inputs, or Ninja would run it on every build.
void keepNewerThanInputs(llvm::StringRef output,
                         llvm::ArrayRef<std::string> inputs);

/// Makes an llvm::Error from a formatted message.
llvm::Error makeError(const llvm::Twine &message);

} // namespace retune

#endif // RETUNE_SUPPORT_FILEUTIL_H
