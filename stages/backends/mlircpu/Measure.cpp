//===- Measure.cpp - Interleaved, checked timing of two kernels -----------===//
#include "stages/backends/mlircpu/Measure.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace retune::bench {

double quantile(std::vector<double> values, double q) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  double position = q * (values.size() - 1);
  size_t lower = static_cast<size_t>(std::floor(position));
  size_t upper = std::min(lower + 1, values.size() - 1);
  double fraction = position - lower;
  return values[lower] * (1 - fraction) + values[upper] * fraction;
}

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
  std::vector<Values> expected = baseline.call(/*readResults=*/true);
  std::vector<Values> actual = candidate.call(/*readResults=*/true);
  record.maxError = maxRelativeError(actual, expected);
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
  std::vector<double> ratios;
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
    ratios.push_back(cand / base);
  }
  record.median = quantile(record.samples, 0.5);
  record.baselineMedian = quantile(record.baselineSamples, 0.5);
  record.ratio = quantile(ratios, 0.5);
  // Half the interquartile range of the paired ratios: how far the ratio
  // moves between repetitions.
  record.noise = (quantile(ratios, 0.75) - quantile(ratios, 0.25)) / 2;
  record.status = Status::Ok;
  record.message = llvm::formatv("{0} calls per sample", calls).str();
  return record;
}

} // namespace retune::bench
