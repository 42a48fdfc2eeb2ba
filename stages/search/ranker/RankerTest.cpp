//===- RankerTest.cpp - Features, training, fallback and model files ------===//
#include "stages/search/ranker/Ranker.h"
#include "stages/core/Testing.h"
#include "stages/search/ranker/Corpus.h"
#include "stages/search/ranker/Features.h"

#include "stages/search/ranker/RankerTesting.h"
#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include "gtest/gtest.h"

#include <cmath>
#include <numeric>

using namespace llvm;
using namespace retune;
using namespace retune::ranker;

namespace {

cpu::CpuHost testHost() {
  cpu::CpuHost host;
  host.cpuName = "test";
  return host;
}

std::vector<cpu::CpuConfig> configsOf(const MeasuredDispatch &d) {
  std::vector<cpu::CpuConfig> configs;
  for (const MeasuredCandidate &c : d.candidates)
    configs.push_back(c.config);
  return configs;
}

std::string tempPath(StringRef name) {
  return test::scratchDir("ranker-test") + "/" + name.str();
}

TEST(RankerTest, FeaturesAreDeterministicAndFinite) {
  Problem p = matmulProblem(384, 256, 512);
  cpu::CpuConfig c = test::registerTiled(6, 32, 2);
  c.outerTiles = {64, 128, 0};
  std::vector<float> a = extractFeatures(p, c, testHost());
  std::vector<float> b = extractFeatures(p, c, testHost());
  ASSERT_EQ(a.size(), featureNames().size());
  EXPECT_EQ(a, b);
  for (float v : a)
    EXPECT_TRUE(std::isfinite(v));
  // An empty config (nothing tiled) and a default problem stay finite too.
  for (float v : extractFeatures(Problem{}, cpu::CpuConfig{}, testHost()))
    EXPECT_TRUE(std::isfinite(v));
}

TEST(RankerTest, LearnsAnOrderFromOneFeature) {
  Expected<RankerModel> model =
      trainRanker(test::syntheticCorpus(10), testHost());
  ASSERT_TRUE(bool(model)) << toString(model.takeError());
  MeasuredDispatch unseen = test::syntheticDispatch(1000, 11);
  Expected<RankedOrder> ranked =
      rankConfigs(&*model, unseen.problem, testHost(), configsOf(unseen));
  ASSERT_TRUE(bool(ranked)) << toString(ranked.takeError());
  EXPECT_EQ(ranked->order, "learned");
  // The best rows (5) come first, the worst (1) after every closer one.
  EXPECT_EQ(unseen.candidates[ranked->permutation[0]].config.registerTiles[0],
            5);
  EXPECT_EQ(trialsToNearBest(unseen, ranked->permutation, 0.05), 1u);
  std::vector<size_t> heuristic(unseen.candidates.size());
  std::iota(heuristic.begin(), heuristic.end(), 0);
  EXPECT_EQ(trialsToNearBest(unseen, heuristic, 0.05), 22u);
}

TEST(RankerTest, ThinDataKeepsTheHeuristicOrder) {
  MeasuredDispatch unseen = test::syntheticDispatch(1000, 11);
  Expected<RankerModel> few = trainRanker(test::syntheticCorpus(5), testHost());
  ASSERT_TRUE(bool(few)) << toString(few.takeError());
  Expected<RankedOrder> ranked =
      rankConfigs(&*few, unseen.problem, testHost(), configsOf(unseen));
  ASSERT_TRUE(bool(ranked));
  EXPECT_EQ(ranked->order, "heuristic");
  EXPECT_NE(ranked->why.find("5 dispatches"), std::string::npos) << ranked->why;
  EXPECT_EQ(ranked->permutation[0], 0u);

  // Enough dispatches, but none of a convolution's kind.
  Expected<RankerModel> model =
      trainRanker(test::syntheticCorpus(10), testHost());
  ASSERT_TRUE(bool(model));
  Problem conv = unseen.problem;
  conv.kind = OpKind::Convolution;
  ranked = rankConfigs(&*model, conv, testHost(), configsOf(unseen));
  ASSERT_TRUE(bool(ranked));
  EXPECT_EQ(ranked->order, "heuristic");
  EXPECT_NE(ranked->why.find("0 convolution"), std::string::npos)
      << ranked->why;
}

TEST(RankerTest, ModelFileRoundTripsAndRefusesAnotherFeatureSet) {
  Expected<RankerModel> model =
      trainRanker(test::syntheticCorpus(8), testHost());
  ASSERT_TRUE(bool(model));
  std::string path = tempPath("ranker.json");
  ASSERT_FALSE(bool(writeRankerModel(*model, path)));
  Expected<RankerModel> read = readRankerModel(path);
  ASSERT_TRUE(bool(read)) << toString(read.takeError());
  EXPECT_EQ(read->dispatches, 8u);
  EXPECT_EQ(read->dispatchesPerKind.at("contraction"), 8u);
  MeasuredDispatch d = test::syntheticDispatch(500, 3);
  std::vector<float> rows;
  for (const MeasuredCandidate &c : d.candidates) {
    std::vector<float> f = extractFeatures(d.problem, c.config, testHost());
    rows.insert(rows.end(), f.begin(), f.end());
  }
  Expected<std::vector<float>> before =
      model->booster.predict(rows, featureNames().size());
  Expected<std::vector<float>> after =
      read->booster.predict(rows, featureNames().size());
  ASSERT_TRUE(before && after);
  EXPECT_EQ(*before, *after);

  Expected<std::string> text = readFile(path);
  ASSERT_TRUE(bool(text));
  Expected<json::Value> value = json::parse(*text);
  ASSERT_TRUE(bool(value));
  (*value->getAsObject())["feature_version"] = kFeatureVersion + 1;
  ASSERT_FALSE(bool(writeFileIfChanged(path, formatv("{0}", *value).str())));
  Expected<RankerModel> stale = readRankerModel(path);
  ASSERT_FALSE(bool(stale));
  std::string message = toString(stale.takeError());
  EXPECT_NE(message.find("feature set version"), std::string::npos) << message;
  EXPECT_NE(message.find("retune-ranker train"), std::string::npos) << message;
}

TEST(RankerTest, RandomTrialsAreTheExpectationOverOrders) {
  MeasuredDispatch d;
  // Four candidates, one within 5% of the best (itself): (4 + 1) / 2.
  for (double t : {1.0, 2.0, 3.0})
    d.candidates.push_back({cpu::CpuConfig{}, t});
  d.candidates.push_back({cpu::CpuConfig{}, std::nullopt});
  EXPECT_DOUBLE_EQ(randomTrialsToNearBest(d, 0.05), 2.5);
  EXPECT_EQ(trialsToNearBest(d, {3, 2, 1, 0}, 0.05), 4u);
}

} // namespace
