//===- CompileStage.h - A payload + a spec -> shared object ----*- C++ -*-===//
//
// The work of the stage tool, callable from a unit: its main
// (stages/tools/mlircpu/CompileMain.cpp) only parses the command line into
// CompileOptions.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_MLIRCPU_COMPILESTAGE_H
#define RETUNE_STAGES_BACKENDS_MLIRCPU_COMPILESTAGE_H

#include "stages/core/Subprocess.h"
#include "stages/support/LLVM.h"

#include <cstdint>
#include <string>
#include <vector>

namespace retune::mlircpu {

struct CompileOptions {
  /// MLIR module to compile
  std::string payloadPath{};
  /// Tuning spec (omit for the baseline)
  std::string specPath{};
  /// Shared object to write
  std::string outputPath{};
  /// Compile record to write
  std::string recordPath{};
  /// Threads of the generated code
  unsigned threads = 1;
  /// Seconds before the compile is killed
  unsigned timeoutSeconds = 120;
  /// Memory limit of the compile (MiB)
  unsigned memoryMB = 8192;
  /// Options of the compiler itself (its own --retune-* codegen options and
  /// LLVM's), from [mlir-cpu] compile_flags; part of the cache key
  std::vector<std::string> compilerFlags{};
  /// Content-addressed cache (default: $RETUNE_CACHE_DIR, else
  /// ~/.cache/retune; 'off' disables it)
  std::string cacheDir{};
};

/// Runs the stage with `options`; `argv0` finds retune-compile-worker beside
/// this binary for the child process the compile runs in, started through
/// `processes`.
Error runCompileStage(const CompileOptions &options, const char *argv0,
                      ProcessRunner &processes = systemProcessRunner());

} // namespace retune::mlircpu

#endif // RETUNE_STAGES_BACKENDS_MLIRCPU_COMPILESTAGE_H
