//===- Statistics.cpp - One definition of a candidate's ratio and noise ---===//
#include "stages/core/Statistics.h"

#include <algorithm>
#include <cmath>

namespace retune::stats {

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
  return {quantile(ratios, 0.5),
          (quantile(ratios, 0.75) - quantile(ratios, 0.25)) / 2};
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
