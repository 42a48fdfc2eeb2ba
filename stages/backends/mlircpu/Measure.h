//===- Measure.h - Interleaved, checked timing of two kernels ---*- C++ -*-===//
#ifndef RETUNE_BENCH_MEASURE_H
#define RETUNE_BENCH_MEASURE_H

#include "stages/backends/mlircpu/KernelRunner.h"
#include "stages/core/Records.h"

namespace retune::bench {

struct MeasureOptions {
  /// Untimed calls of each kernel before sampling.
  unsigned warmup = 2;
  /// Timed samples of each kernel, alternating baseline and candidate.
  unsigned repetitions = 10;
  /// A sample repeats the call until it lasts at least this long.
  double minSampleSeconds = 0.002;
  /// Seed of the random inputs.
  uint64_t seed = 1;
};

/// Checks `candidate` against `baseline` on the same seeded inputs, then
/// times both interleaved (ABBA order). A wrong result is a WrongResult
/// record; otherwise an Ok record with every sample, the medians, the
/// median of the paired ratios and its spread (`noise`).
BenchRecord compareKernels(Kernel &baseline, Kernel &candidate,
                           const MeasureOptions &options);

/// Quantile `q` in [0, 1] of `values` (linear interpolation).
double quantile(std::vector<double> values, double q);

} // namespace retune::bench

#endif // RETUNE_BENCH_MEASURE_H
