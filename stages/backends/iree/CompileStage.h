//===- CompileStage.h - A dispatch + a spec -> vmfb and record -*- C++ -*-===//
//
// The work of the stage tool, callable from a unit: its main
// (stages/tools/iree/IreeCompileMain.cpp) only parses the command line into
// CompileOptions.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_IREE_COMPILESTAGE_H
#define RETUNE_STAGES_BACKENDS_IREE_COMPILESTAGE_H

#include "stages/backends/iree/IreeTools.h"
#include "stages/support/LLVM.h"

#include <cstdint>
#include <string>

namespace retune::iree {

struct CompileOptions {
  /// IREE's tools, release and flags.
  IreeToolOptions iree;
  /// Dispatches/<id>/dispatch.mlir
  std::string inputPath{};
  /// Tuning spec
  std::string specPath{};
  /// Module to write
  std::string vmfbPath{};
  /// Compile record to write
  std::string recordPath{};
  /// Seconds before the compile  is killed
  unsigned timeoutSeconds = 16;
  /// Memory limit (MiB, 0: none)
  unsigned memoryMB = 0;
  /// Content-addressed cache (default: $RETUNE_CACHE_DIR, else
  /// ~/.cache/retune; 'off' disables it)
  std::string cacheDir{};
};

/// Compiles (or replays from the cache) one dispatch with one spec; `argv0`
/// identifies this tool in the cache key; `runner` starts IREE's tools.
Error runCompileStage(const CompileOptions &options, const char *argv0,
                      ProcessRunner &runner = systemProcessRunner());

} // namespace retune::iree

#endif // RETUNE_STAGES_BACKENDS_IREE_COMPILESTAGE_H
