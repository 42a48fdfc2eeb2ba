//===- BenchStage.h - A compiled module -> its measurement -----*- C++ -*-===//
//
// The work of the stage tool, callable from a unit: its main
// (stages/tools/iree/IreeBenchMain.cpp) only parses the command line into
// BenchOptions.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_IREE_BENCHSTAGE_H
#define RETUNE_STAGES_BACKENDS_IREE_BENCHSTAGE_H

#include "stages/backends/iree/IreeRun.h"
#include "stages/backends/iree/IreeTools.h"
#include "stages/core/Records.h"
#include "stages/support/LLVM.h"

#include <string>

namespace retune::iree {

struct BenchOptions {
  /// IREE's tools, release and flags.
  IreeToolOptions iree;
  /// The candidate's compile record (artifacts/<id>/<n>.json).
  std::string compileRecordPath{};
  /// Measurement record to write.
  std::string outputPath{};
  /// IREE device URI (hip://0, local-task, ...).
  std::string device{};
  /// `--benchmark_repetitions`.
  unsigned repetitions = 5;
  /// Seconds before the benchmark is killed.
  unsigned timeoutSeconds = 300;
  /// The baseline's compile record: a candidate whose module is identical
  /// is not_applied (empty: not compared).
  std::string baselineRecordPath{};
  /// Measurements by module hash and device (empty: none reused).
  std::string reuseDir{};
  /// The device's baseline measured before the candidates
  /// (measure/<id>/baseline.before.<k>.json; empty: none). A candidate whose
  /// first repetition takes over kHopelessRatio times its median is stopped
  /// there: it cannot win, and measuring it to the end can take minutes.
  std::string baselineMeasurePath{};
};

/// How many times the baseline's median a candidate's first repetition may
/// take before it is stopped: the same line past which the report says a
/// space is wrong (its best candidate over 2x IREE's own config).
inline constexpr double kHopelessRatio = 2.0;

/// The record of one benchmark run, without a baseline (the rank stage
/// relates it to the device's): its status, message and timing, the
/// samples in seconds and their median.
BenchRecord measuredRecord(const BenchOutcome &outcome);

/// Measures the module of `compileRecordPath` on `device` and writes its
/// record to `outputPath`. A module that did not compile, is identical to
/// the baseline's (not_applied) or was measured before on the device (with
/// `reuseDir`) is recorded without running IREE; crashes, hangs and errors
/// of the benchmark are records too. Errors are pipeline-level only.
/// `runner` starts IREE's tools.
Error runBenchStage(const BenchOptions &options,
                    ProcessRunner &runner = systemProcessRunner());

} // namespace retune::iree

#endif // RETUNE_STAGES_BACKENDS_IREE_BENCHSTAGE_H
