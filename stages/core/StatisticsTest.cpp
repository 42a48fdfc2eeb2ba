#include "stages/core/Statistics.h"
#include "stages/core/Selection.h"

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
