//===- Statistics.h - One definition of a candidate's ratio and noise -*- C++
//-*-===//
//
// Every backend's bench record states `ratio` and `noise` with the meaning
// defined here, so that one `[select] margin` means one threshold whatever
// measured the samples (docs/file-formats.md, retune.bench/2):
//
//   ratio = the median of candidate/baseline over every pair of one
//           candidate sample and one baseline sample;
//   noise = half the interquartile range of those ratios;
//   upper = the upper end of a distribution-free 95% confidence interval
//           of that median: an order statistic of the same ratios.
//
// Every pair, not adjacent ones: the mlir-cpu backend interleaves its
// samples, but IREE's benchmark tool times the baseline and a candidate in
// separate processes, so there is no adjacency to pair by. Over interleaved
// samples (both sides spread over the same span of time) the cross ratios
// still cancel slow drift, and the estimate is the same function of the
// samples for every backend.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CORE_STATISTICS_H
#define RETUNE_CORE_STATISTICS_H

#include "stages/core/Records.h"

#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace retune::stats {

/// Quantile `q` in [0, 1] of `values` (linear interpolation); 0 when empty.
double quantile(std::vector<double> values, double q);

/// The median of `values`; 0 when empty.
double median(std::vector<double> values);

struct RatioEstimate {
  /// Candidate time over baseline time: below 1 is faster.
  double ratio = 1;
  /// Half the interquartile range of the sample ratios: how far one
  /// sample strays, whatever the number of samples.
  double noise = 0;
  /// The ratio is below this with 97.5% confidence (the upper end of its
  /// two-sided 95% interval): how sure the estimate is, which tightens as
  /// samples are added. `ratio` is the Hodges-Lehmann estimate of the
  /// shift between the sides' log times, and its interval is Moser's:
  /// the k-th largest pairwise ratio, k from the Mann-Whitney statistic's
  /// normal approximation. With too few samples for k (under 4 a side)
  /// it is the largest ratio.
  double upper = 1;
};

/// The ratio and noise of `candidate` samples against `baseline` samples
/// (times in any one unit). Non-positive samples are ignored; with no
/// usable sample on a side the estimate is {1, 0}.
RatioEstimate estimateRatio(llvm::ArrayRef<double> candidate,
                            llvm::ArrayRef<double> baseline);

/// The ratio of paired times (`candidate[i]` measured right beside
/// `baseline[i]`): the Hodges-Lehmann estimate of the pairs' log ratios and
/// its Wilcoxon signed-rank bound (the k-th largest Walsh average, k from
/// the signed-rank statistic's normal approximation). A slow drift of the
/// machine's speed shifts both times of a pair and cancels in its ratio,
/// where the unpaired bound counts it as noise. Pairs with a non-positive
/// time are ignored; with too few pairs for k (under 6) `upper` is the
/// largest ratio; with none the estimate is {1, 0}.
RatioEstimate estimatePairedRatio(llvm::ArrayRef<double> candidate,
                                  llvm::ArrayRef<double> baseline);

/// Which of one side's runs the machine slowed as a whole: those whose
/// time exceeds the side's fastest run's by more than `factor`. A
/// process's time spreads a few percent around its build's on a quiet
/// machine; a shared one (a cloud VM, two workers on two cores) has
/// phases of seconds in which everything runs 1.3-1.7x slower, and a run
/// caught in one says nothing about its build. The fastest run, not the
/// median: a phase can last several runs, and the noise of a machine only
/// ever slows. Empty in, empty out.
std::vector<bool> slowedRuns(llvm::ArrayRef<double> runTimes, double factor);

/// Sets `record`'s medians, ratio and noise from its samples (the one way
/// every backend's bench fills them).
void summarizeSamples(BenchRecord &record);

} // namespace retune::stats

#endif // RETUNE_CORE_STATISTICS_H
