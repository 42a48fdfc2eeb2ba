//===- Statistics.cpp - One definition of a candidate's ratio and noise ---===//
#include "stages/core/Statistics.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>

namespace retune::stats {
namespace {

/// The standard normal quantile of a two-sided 95% interval.
constexpr double kConfidenceZ = 1.959964;

} // namespace

double quantile(std::vector<double> values, double q) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  double pos = std::clamp(q, 0.0, 1.0) * (values.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (pos - lo) * (values[hi] - values[lo]);
}

double median(std::vector<double> values) {
  return quantile(std::move(values), 0.5);
}

RatioEstimate estimateRatio(llvm::ArrayRef<double> candidate,
                            llvm::ArrayRef<double> baseline) {
  std::vector<double> ratios;
  ratios.reserve(candidate.size() * baseline.size());
  for (double c : candidate)
    for (double b : baseline)
      if (c > 0 && b > 0)
        ratios.push_back(c / b);
  if (ratios.empty())
    return {};
  std::sort(ratios.begin(), ratios.end());
  RatioEstimate estimate{quantile(ratios, 0.5),
                         (quantile(ratios, 0.75) - quantile(ratios, 0.25)) / 2,
                         ratios.back()};
  auto positive = [](llvm::ArrayRef<double> samples) {
    return static_cast<double>(
        llvm::count_if(samples, [](double v) { return v > 0; }));
  };
  double m = positive(candidate), n = positive(baseline), pairs = m * n;
  double spread = std::sqrt(m * n * (m + n + 1) / 12);
  double rank = std::floor(pairs / 2 - kConfidenceZ * spread);
  if (rank >= 1)
    estimate.upper = ratios[ratios.size() - static_cast<size_t>(rank)];
  return estimate;
}

RatioEstimate estimatePairedRatio(llvm::ArrayRef<double> candidate,
                                  llvm::ArrayRef<double> baseline) {
  std::vector<double> logs;
  for (size_t i = 0, e = std::min(candidate.size(), baseline.size()); i < e;
       ++i)
    if (candidate[i] > 0 && baseline[i] > 0)
      logs.push_back(std::log(candidate[i] / baseline[i]));
  if (logs.empty())
    return {};
  std::vector<double> walsh;
  for (size_t i = 0; i < logs.size(); ++i)
    for (size_t j = i; j < logs.size(); ++j)
      walsh.push_back((logs[i] + logs[j]) / 2);
  std::sort(walsh.begin(), walsh.end());
  std::vector<double> ratios;
  for (double l : logs)
    ratios.push_back(std::exp(l));
  RatioEstimate estimate{
      std::exp(quantile(walsh, 0.5)),
      (quantile(ratios, 0.75) - quantile(ratios, 0.25)) / 2,
      std::exp(walsh.back())};
  double n = static_cast<double>(logs.size());
  double spread = std::sqrt(n * (n + 1) * (2 * n + 1) / 24);
  double rank = std::floor(n * (n + 1) / 4 - kConfidenceZ * spread);
  if (rank >= 1)
    estimate.upper = std::exp(walsh[walsh.size() - static_cast<size_t>(rank)]);
  return estimate;
}

std::vector<bool> slowedRuns(llvm::ArrayRef<double> runTimes, double factor) {
  std::vector<bool> slowed(runTimes.size(), false);
  if (runTimes.empty())
    return slowed;
  double fastest = *std::min_element(runTimes.begin(), runTimes.end());
  for (size_t i = 0; i < runTimes.size(); ++i)
    slowed[i] = runTimes[i] > fastest * factor;
  return slowed;
}

void summarizeSamples(BenchRecord &record) {
  record.median = median(record.samples);
  record.baselineMedian = median(record.baselineSamples);
  RatioEstimate estimate =
      estimateRatio(record.samples, record.baselineSamples);
  record.ratio = estimate.ratio;
  record.noise = estimate.noise;
}

} // namespace retune::stats
