//===- BenchStage.h - Check and time a candidate --------------*- C++ -*-===//
//
// The work of the stage tool, callable from a unit: its main
// (stages/tools/mlircpu/BenchMain.cpp) only parses the command line into
// BenchOptions.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_MLIRCPU_BENCHSTAGE_H
#define RETUNE_STAGES_BACKENDS_MLIRCPU_BENCHSTAGE_H

#include "stages/core/Subprocess.h"
#include "stages/support/LLVM.h"

#include <cstdint>
#include <string>

namespace retune::mlircpu {

struct BenchOptions {
  /// Compile record of the baseline
  std::string baselinePath{};
  /// Compile record of the candidate
  std::string candidatePath{};
  /// Bench record to write
  std::string outputPath{};
  /// Measure a candidate even when its code is the baseline's (the model
  /// step reports the baseline's time whatever the spec changed); else it
  /// is not_applied and not measured
  bool measureIdentical = false;
  /// Function to time (default: the only one)
  std::string functionName{};
  /// Untimed calls before sampling
  unsigned warmup = 2;
  /// Timed samples per kernel
  unsigned repetitions = 10;
  /// Minimum duration of one sample
  double minSample = 0.002;
  /// Seed of the random inputs
  unsigned seed = 1;
  /// Seconds before the bench is killed
  unsigned timeoutSeconds = 300;
  /// Content-addressed cache (default: $RETUNE_CACHE_DIR, else
  /// ~/.cache/retune; 'off' disables it)
  std::string cacheDir{};
};

/// Runs the stage with `options`; `argv0` finds retune-bench-worker beside
/// this binary, the child process the measurement runs in, started through
/// `processes`.
Error runBenchStage(const BenchOptions &options, const char *argv0,
                    ProcessRunner &processes = systemProcessRunner());

} // namespace retune::mlircpu

#endif // RETUNE_STAGES_BACKENDS_MLIRCPU_BENCHSTAGE_H
