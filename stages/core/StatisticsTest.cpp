#include "stages/core/Statistics.h"
#include "stages/core/Selection.h"
#include "stages/core/Testing.h"

#include "gtest/gtest.h"

using namespace retune;
using namespace retune::stats;

TEST(StatisticsTest, Quantiles) {
  EXPECT_DOUBLE_EQ(quantile({3, 1, 2}, 0.5), 2);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.25), 2);
  EXPECT_DOUBLE_EQ(quantile({}, 0.5), 0);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
}

TEST(StatisticsTest, RatioIsTheMedianOverEveryPairAndNoiseHalfItsIqr) {
  // Candidate 2 and 4 against baseline 4 and 8: ratios 0.25, 0.5, 0.5, 1.
  RatioEstimate e = estimateRatio({2, 4}, {4, 8});
  EXPECT_DOUBLE_EQ(e.ratio, 0.5);
  EXPECT_DOUBLE_EQ(e.noise, (quantile({0.25, 0.5, 0.5, 1}, 0.75) -
                             quantile({0.25, 0.5, 0.5, 1}, 0.25)) /
                                2);
  // Identical samples: ratio 1, no noise. Nothing usable: {1, 0}.
  EXPECT_DOUBLE_EQ(estimateRatio({5, 5}, {5, 5}).ratio, 1);
  EXPECT_DOUBLE_EQ(estimateRatio({5, 5}, {5, 5}).noise, 0);
  EXPECT_DOUBLE_EQ(estimateRatio({}, {5}).ratio, 1);
  EXPECT_DOUBLE_EQ(estimateRatio({0, -1}, {5}).ratio, 1);
}

TEST(StatisticsTest, NoisySamplesRaiseTheBarSelectionApplies) {
  BenchRecord steady, noisy;
  steady.samples = {9.0, 9.1, 8.9, 9.0};
  steady.baselineSamples = {10.0, 10.1, 9.9, 10.0};
  noisy.samples = {6, 12, 7, 11};
  noisy.baselineSamples = {10, 10.5, 9.5, 10};
  summarizeSamples(steady);
  summarizeSamples(noisy);
  EXPECT_NEAR(steady.ratio, 0.9, 0.01);
  EXPECT_LT(steady.noise, 0.02);
  EXPECT_GT(noisy.noise, 0.15);
  select::Selection s = select::selectWinner({{0, noisy}, {1, steady}}, 0.02);
  ASSERT_TRUE(s.winner.has_value());
  EXPECT_EQ(*s.winner, 1u);
}

TEST(StatisticsTest, TheUpperBoundTightensAsSamplesAreAddedAndNoiseDoesNot) {
  // A steady 5% gain under +-10% sample scatter: one sample's stray (the
  // noise) stays near 7% however many are taken, while the confidence
  // bound on the ratio falls below 1 once there are enough of them.
  auto estimate = [&](unsigned perSide) {
    return estimateRatio(test::scatteredSamples(perSide, 95, 2.3, 1),
                         test::scatteredSamples(perSide, 100, 1.7, 0));
  };
  RatioEstimate few = estimate(15), many = estimate(30);
  EXPECT_NEAR(few.ratio, 0.95, 0.01);
  EXPECT_NEAR(many.ratio, 0.95, 0.01);
  EXPECT_GT(few.noise, 0.05);
  EXPECT_GT(many.noise, 0.05);
  EXPECT_GT(few.upper, 1);
  EXPECT_LT(many.upper, 1);
  EXPECT_GT(many.upper, many.ratio);
  // Under four samples a side the bound is the largest pairwise ratio.
  EXPECT_DOUBLE_EQ(estimateRatio({2, 4}, {4, 8}).upper, 1);
  EXPECT_DOUBLE_EQ(estimateRatio({9, 9, 9}, {10, 10, 10}).upper, 0.9);
}

TEST(StatisticsTest, PairedRunsCancelADriftOfTheMachinesSpeed) {
  // A steady 5% gain while the machine's speed drifts by up to 40% from
  // round to round (as this project's 2-core VM does): each round's two
  // runs share the drift. Unpaired, the drift is noise and the gain is not
  // established; paired, it is.
  std::vector<double> baseline, tuned;
  for (unsigned round = 0; round < 18; ++round) {
    double speed = 1 + 0.4 * ((round * 7) % 11) / 10.0;
    double jitter = 1 + 0.01 * ((round * 3) % 5);
    baseline.push_back(100 * speed * jitter);
    tuned.push_back(95 * speed * (2.04 - jitter));
  }
  RatioEstimate unpaired = estimateRatio(tuned, baseline);
  RatioEstimate paired = estimatePairedRatio(tuned, baseline);
  EXPECT_GT(unpaired.upper, 1);
  EXPECT_LT(paired.upper, 1);
  EXPECT_NEAR(paired.ratio, 0.95, 0.02);
  EXPECT_GT(paired.upper, paired.ratio);
  // Under six pairs the bound is the largest pair's ratio.
  EXPECT_DOUBLE_EQ(estimatePairedRatio({9, 9, 9}, {10, 10, 10}).upper, 0.9);
  EXPECT_NEAR(estimatePairedRatio({9, 18, 9, 9, 9}, {10, 10, 10, 10, 10}).upper,
              1.8, 1e-9);
  // No usable pair: no estimate.
  EXPECT_DOUBLE_EQ(estimatePairedRatio({}, {}).ratio, 1);
  EXPECT_DOUBLE_EQ(estimatePairedRatio({0, 9}, {10, 0}).upper, 1);
}

TEST(StatisticsTest, ARunIsSlowedWhenFarAboveItsSidesFastest) {
  // 1.25x over the fastest run: a phase, not the +-10% a side scatters.
  EXPECT_EQ(slowedRuns({100, 175, 103, 99, 172}, 1.25),
            (std::vector<bool>{false, true, false, false, true}));
  EXPECT_EQ(slowedRuns({90, 110, 100}, 1.25),
            (std::vector<bool>{false, false, false}));
  // A phase over most runs: the one quiet run is the reference.
  EXPECT_EQ(slowedRuns({114, 115, 88}, 1.25),
            (std::vector<bool>{true, true, false}));
  EXPECT_TRUE(slowedRuns({}, 1.25).empty());
}
