//===- DumpStage.h - Model -> dispatches, cached ----------------*- C++ -*-===//
//
// The work of retune-dump, callable from a unit: its main
// (stages/tools/mlircpu/DumpMain.cpp) only parses the command line. This
// half links no MLIR: the dispatches of a model are looked up in the
// content cache by the model's bytes, and only a miss runs
// retune-dump-worker (DispatchFormation.h) as a child.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_MLIRCPU_DUMPSTAGE_H
#define RETUNE_STAGES_BACKENDS_MLIRCPU_DUMPSTAGE_H

#include "stages/core/Subprocess.h"
#include "stages/support/LLVM.h"

#include <string>

namespace retune::mlircpu {

struct DumpOptions {
  /// Linalg-on-tensors model (.mlir)
  std::string modelPath{};
  /// Directory for index.json and <id>/{dispatch.mlir,problem.json}
  std::string outputDir{};
  /// Content-addressed cache (default: $RETUNE_CACHE_DIR, else
  /// ~/.cache/retune; 'off' disables it)
  std::string cacheDir{};
};

/// Writes the dispatches of `options.modelPath` (unchanged files keep their
/// mtime); `argv0` finds retune-dump-worker beside this binary, which starts
/// through `processes`.
Error runDumpStage(const DumpOptions &options, const char *argv0,
                   ProcessRunner &processes = systemProcessRunner());

} // namespace retune::mlircpu

#endif // RETUNE_STAGES_BACKENDS_MLIRCPU_DUMPSTAGE_H
