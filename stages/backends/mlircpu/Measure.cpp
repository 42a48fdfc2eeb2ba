//===- Measure.cpp - Interleaved, checked timing of two kernels -----------===//
#include "stages/backends/mlircpu/Measure.h"

#include "stages/core/Statistics.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace retune::bench {

/// Seconds per call, averaged over `calls` back-to-back calls.
static double timeCalls(Kernel &kernel, unsigned calls) {
  auto start = std::chrono::steady_clock::now();
  for (unsigned i = 0; i < calls; ++i)
    kernel.call(/*readResults=*/false);
  auto end = std::chrono::steady_clock::now();
  // Never 0: a ratio of two samples must stay finite.
  return std::max(1e-12,
                  std::chrono::duration<double>(end - start).count() / calls);
}

BenchRecord compareKernels(Kernel &baseline, Kernel &candidate,
                           const MeasureOptions &options) {
  BenchRecord record;
  std::vector<Buffer> inputs = makeInputs(baseline.signature(), options.seed);
  baseline.setInputs(inputs);
  candidate.setInputs(inputs);
  // The first and the second call must both agree: compiled code keeps its
  // buffers from call to call, so a result that depends on what an earlier
  // call left behind (a skipped fill) shows only in the steady state.
  record.maxError = 0;
  for (int call = 0; call < 2; ++call) {
    std::vector<Values> expected = baseline.call(/*readResults=*/true);
    std::vector<Values> actual = candidate.call(/*readResults=*/true);
    record.maxError =
        std::max(record.maxError, maxRelativeError(actual, expected));
  }
  bool mismatched = !std::isfinite(record.maxError);
  // Records hold finite numbers only: "the outputs do not even match in
  // shape or NaNs" is the largest error there is.
  if (mismatched)
    record.maxError = std::numeric_limits<double>::max();
  std::string type = baseline.signature().results.empty()
                         ? "f32"
                         : baseline.signature().results.front().elementType;
  double tolerance = toleranceFor(type);
  if (mismatched || !(record.maxError <= tolerance)) {
    record.status = Status::WrongResult;
    record.message = llvm::formatv("max relative error {0:e} exceeds the {1} "
                                   "tolerance {2:e}",
                                   record.maxError, type, tolerance)
                         .str();
    return record;
  }

  for (unsigned i = 0; i < options.warmup; ++i) {
    baseline.call(false);
    candidate.call(false);
  }
  // Enough calls per sample that timer resolution and call overhead vanish.
  double single = std::max(1e-9, timeCalls(baseline, 1));
  unsigned calls = static_cast<unsigned>(
      std::clamp(std::ceil(options.minSampleSeconds / single), 1.0, 1e6));
  for (unsigned r = 0; r < options.repetitions; ++r) {
    double base, cand;
    if (r % 2 == 0) {
      base = timeCalls(baseline, calls);
      cand = timeCalls(candidate, calls);
    } else {
      cand = timeCalls(candidate, calls);
      base = timeCalls(baseline, calls);
    }
    record.baselineSamples.push_back(base);
    record.samples.push_back(cand);
  }
  stats::summarizeSamples(record);
  record.status = Status::Ok;
  record.message = llvm::formatv("{0} calls per sample", calls).str();
  return record;
}

} // namespace retune::bench
