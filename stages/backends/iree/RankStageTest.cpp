//===- RankStageTest.cpp - The iree rank stage's decision -----------------===//
#include "stages/backends/iree/RankStage.h"
#include "stages/backends/iree/TestUtil.h"

#include "stages/core/Statistics.h"
#include "stages/support/FileUtil.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;
using namespace retune::iree::testing;

namespace {

BenchRecord measuredSamples(std::vector<double> samples) {
  BenchRecord record;
  record.samples = std::move(samples);
  record.median = stats::median(record.samples);
  return record;
}

RankOptions twoDevices() {
  RankOptions options;
  options.measureDir = "measure/abc";
  options.devices = {"hip://0", "hip://1"};
  return options;
}

bool endsWith(const std::string &text, const std::string &suffix) {
  return llvm::StringRef(text).ends_with(suffix);
}

TEST(IreeRankStage, ACandidateIsRankedAgainstItsOwnDevicesBaseline) {
  std::vector<DeviceBaseline> baselines = {{{200, 200}, {200, 200}},
                                           {{100, 100}, {100, 100}}};
  // Candidate 3 of 2 devices ran on device 1.
  BenchRecord record =
      rankCandidate(measuredSamples({80, 80}), 3, baselines, twoDevices());
  EXPECT_EQ(record.status, Status::Ok);
  EXPECT_DOUBLE_EQ(record.ratio, 0.8);
  EXPECT_EQ(record.baselineSamples, (std::vector<double>{100, 100, 100, 100}));
  EXPECT_EQ(record.message, "device hip://1");
  // Candidate 2 ran on device 0, twice as slow as hip://1's baseline.
  EXPECT_DOUBLE_EQ(
      rankCandidate(measuredSamples({80, 80}), 2, baselines, twoDevices())
          .ratio,
      0.4);
}

TEST(IreeRankStage, TheRatioIsTheSharedEstimator) {
  std::vector<double> candidate = {1, 10, 10}, before = {5, 10}, after = {8};
  BenchRecord record = rankCandidate(measuredSamples(candidate), 0,
                                     {{before, after}}, {"", "", "", {"cpu"}});
  stats::RatioEstimate expected =
      stats::estimateRatio(candidate, std::vector<double>{5, 10, 8});
  EXPECT_DOUBLE_EQ(record.ratio, expected.ratio);
  EXPECT_DOUBLE_EQ(record.noise, expected.noise);
}

TEST(IreeRankStage, AnIncompleteBaselineFallsBackToEveryDevices) {
  std::vector<DeviceBaseline> baselines = {{{100, 100}, {100, 100}},
                                           {{90}, {}}};
  BenchRecord record =
      rankCandidate(measuredSamples({50}), 1, baselines, twoDevices());
  EXPECT_EQ(record.status, Status::Ok);
  // hip://1 has samples of its own (before only): those are its baseline.
  EXPECT_EQ(record.baselineSamples, (std::vector<double>{90}));
  EXPECT_EQ(record.message, "baseline of hip://1 incomplete; ranked against "
                            "all devices' baselines; device hip://1");

  baselines[1] = {};
  record = rankCandidate(measuredSamples({50}), 1, baselines, twoDevices());
  EXPECT_EQ(record.status, Status::Ok);
  EXPECT_EQ(record.baselineSamples.size(), 4u);
  EXPECT_DOUBLE_EQ(record.ratio, 0.5);
}

TEST(IreeRankStage, NoBaselineAnywhereIsABenchError) {
  std::vector<DeviceBaseline> baselines(2);
  BenchRecord record =
      rankCandidate(measuredSamples({50}), 0, baselines, twoDevices());
  EXPECT_EQ(record.status, Status::BenchError);
  EXPECT_EQ(record.message, "the baseline failed on every device; see "
                            "measure/abc/baseline.*.json; device hip://0");
}

TEST(IreeRankStage, AFailedMeasurementStaysFailed) {
  BenchRecord crashed;
  crashed.status = Status::Crash;
  crashed.message = "Aborted";
  std::vector<DeviceBaseline> baselines = {{{100}, {100}}, {{100}, {100}}};
  BenchRecord record = rankCandidate(crashed, 0, baselines, twoDevices());
  EXPECT_EQ(record.status, Status::Crash);
  EXPECT_TRUE(endsWith(record.message, "Aborted; device hip://0"))
      << record.message;
}

TEST(IreeRankStage, WritesEachCandidatesResults) {
  std::string dir = scratchDir("rank-stage");
  RankOptions options;
  options.candidatesPath = dir + "/candidates/abc/index.json";
  options.measureDir = dir + "/measure/abc";
  options.outputDir = dir + "/results/abc";
  options.devices = {"local-task"};
  CandidateIndex index;
  index.dispatch = "abc";
  index.candidates = {{0, "0.spec.mlir"}, {1, "1.spec.mlir"}};
  llvm::cantFail(writeJsonFile(options.candidatesPath, toJson(index)));
  auto measure = [&](const std::string &name, std::vector<double> samples) {
    llvm::cantFail(writeJsonFile(options.measureDir + "/" + name + ".json",
                                 toJson(measuredSamples(std::move(samples)))));
  };
  measure("baseline.before.0", {2e-4, 2e-4});
  measure("baseline.after.0", {2e-4, 2e-4});
  measure("0", {1e-4, 1e-4});
  measure("1", {3e-4, 3e-4});

  ASSERT_FALSE(static_cast<bool>(runRankStage(options)));
  std::vector<double> ratios;
  for (int n : {0, 1}) {
    llvm::Expected<BenchRecord> result = readRecord<BenchRecord>(
        llvm::formatv("{0}/{1}.json", options.outputDir, n).str(),
        retune::schema::kBench, benchRecordFromJson);
    ASSERT_TRUE(static_cast<bool>(result))
        << llvm::toString(result.takeError());
    EXPECT_EQ(result->message, "device local-task");
    ratios.push_back(result->ratio);
  }
  EXPECT_DOUBLE_EQ(ratios[0], 0.5);
  EXPECT_DOUBLE_EQ(ratios[1], 1.5);
}

TEST(IreeRankStage, AMissingMeasurementIsAnError) {
  std::string dir = scratchDir("rank-missing");
  RankOptions options;
  options.candidatesPath = dir + "/index.json";
  options.measureDir = dir;
  options.outputDir = dir + "/results";
  options.devices = {"hip://0"};
  CandidateIndex index;
  index.dispatch = "abc";
  index.candidates = {{0, "0.spec.mlir"}};
  llvm::cantFail(writeJsonFile(options.candidatesPath, toJson(index)));
  llvm::Error err = runRankStage(options);
  ASSERT_TRUE(static_cast<bool>(err));
  std::string message = llvm::toString(std::move(err));
  EXPECT_NE(message.find("baseline.before.0.json"), std::string::npos)
      << message;
}

} // namespace
