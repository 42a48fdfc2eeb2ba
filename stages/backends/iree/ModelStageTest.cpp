//===- ModelStageTest.cpp - The iree model stage's trials and options -----===//
#include "stages/backends/iree/ModelStage.h"
#include "stages/backends/iree/TestUtil.h"

#include "stages/core/Statistics.h"
#include "stages/core/Testing.h"
#include "stages/support/FileUtil.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>


using namespace retune;
using namespace retune::iree;
using namespace retune::iree::testing;

namespace {

/// Timings of one sample per benchmark run.
InterleavedOutcome timed(std::vector<double> baselineUs,
                         std::vector<double> tunedUs) {
  InterleavedOutcome outcome;
  outcome.baseline.samplesUs = outcome.baseline.runMediansUs = baselineUs;
  outcome.tuned.samplesUs = outcome.tuned.runMediansUs = tunedUs;
  return outcome;
}

TEST(IreeModelTrial, TheRatioIsEveryBenchRecordsEstimator) {
  // The medians are equal (10 and 10), but most pairs of one tuned and one
  // baseline sample say the tuned model is faster: the model step ranks
  // as every bench record does (stats::estimateRatio), not by medians.
  std::vector<double> baseline = {5, 10, 100}, tuned = {1, 10, 10};
  InterleavedOutcome scattered = timed(baseline, tuned);
  // Its runs' medians: none slowed as a whole (a phase of the machine is
  // set aside, see below).
  scattered.baseline.runMediansUs = {5, 6, 6};
  scattered.tuned.runMediansUs = {8, 10, 10};
  Trial trial = modelTrial(scattered, 0.02);
  double expected = stats::estimateRatio(tuned, baseline).ratio;
  EXPECT_NEAR(expected, 0.2, 1e-12);
  EXPECT_DOUBLE_EQ(trial.ratio, expected);
  // Three runs a side that scatter 100x establish nothing.
  EXPECT_FALSE(trial.helps);
  EXPECT_EQ(trial.description,
            "0.200x the baseline time (not established beyond noise: the "
            "ratio is only below 2.000x with 97.5% confidence over 3 runs a "
            "side)");
}

TEST(IreeModelTrial, FasterWithinMarginOrNoiseDoesNotHelp) {
  // 0.5% faster, steady: inside the 2% margin.
  Trial withinMargin =
      modelTrial(timed({100, 100, 100, 100}, {99.5, 99.5, 99.5, 99.5}), 0.02);
  EXPECT_FALSE(withinMargin.helps);
  EXPECT_NEAR(withinMargin.ratio, 0.995, 1e-9);
  EXPECT_NE(withinMargin.description.find("within the margin"),
            std::string::npos);
  // 5% faster by the median, but the pairs scatter by more than that.
  Trial withinNoise =
      modelTrial(timed({100, 130, 80, 100}, {95, 120, 70, 110}), 0.02);
  EXPECT_FALSE(withinNoise.helps);
  // 5% faster, steady: beyond both.
  Trial steady = modelTrial(timed({100, 100, 100}, {95, 95, 95}), 0.02);
  EXPECT_TRUE(steady.helps);
  EXPECT_EQ(steady.description,
            "0.950x the baseline time (below 0.950x with 97.5% confidence "
            "over 3 runs a side)");
}

TEST(IreeModelTrial, AGainBeyondTheMarginButNotTheNoiseAsksForMoreSamples) {
  // 5% faster under +-10% scatter: 15 runs a side do not establish it, 30
  // do (the pooled runs of two timings).
  InterleavedOutcome few =
      timed(test::scatteredSamples(15, 100, 1.7, 0),
            test::scatteredSamples(15, 95, 2.3, 1));
  EXPECT_FALSE(modelTrial(few, 0.02).helps);
  EXPECT_TRUE(needsMoreSamples(few, 0.02));
  InterleavedOutcome many =
      timed(test::scatteredSamples(30, 100, 1.7, 0),
            test::scatteredSamples(30, 95, 2.3, 1));
  EXPECT_TRUE(modelTrial(many, 0.02).helps);
  EXPECT_FALSE(needsMoreSamples(many, 0.02));
  // Within the margin, or slower, no number of samples would keep it.
  EXPECT_FALSE(needsMoreSamples(few, 0.06));
  EXPECT_FALSE(needsMoreSamples(timed({100, 90, 110}, {105, 95, 115}), 0.02));
  // The bound is over runs: many steady samples in each of three runs do
  // not make a run that was slower than a baseline run go away.
  InterleavedOutcome clustered;
  clustered.baseline.samplesUs.assign(15, 100);
  clustered.baseline.runMediansUs = {100, 100, 100};
  clustered.tuned.samplesUs.assign(10, 95);
  clustered.tuned.samplesUs.insert(clustered.tuned.samplesUs.end(), 5, 101);
  clustered.tuned.runMediansUs = {95, 95, 101};
  EXPECT_NEAR(modelTrial(clustered, 0.02).ratio, 0.95, 1e-9);
  EXPECT_FALSE(modelTrial(clustered, 0.02).helps);
  EXPECT_TRUE(needsMoreSamples(clustered, 0.02));
  // A failure is decided.
  InterleavedOutcome failed = few;
  failed.tuned.status = Status::BenchError;
  EXPECT_FALSE(needsMoreSamples(failed, 0.02));
}

TEST(IreeModelTrial, RunsTheMachineSlowedAsAWholeAreSetAside) {
  // The ViT at 2 threads on this project's VM (run medians, ms): a phase
  // slowed two baseline runs and one tuned run 1.7x; without the two
  // rounds it touched, the four left establish the spec's 0.87x.
  InterleavedOutcome phase = timed({105.1, 174.8, 171.7, 98.9, 102.9, 100.0},
                                   {89.4, 164.0, 92.0, 89.5, 88.8, 88.4});
  EXPECT_EQ(runsSetAside(phase), 4u);
  Trial kept = modelTrial(phase, 0.02);
  EXPECT_TRUE(kept.helps);
  EXPECT_NEAR(kept.ratio, 0.88, 0.01);
  EXPECT_NE(kept.description.find("4 run(s) set aside that the machine ran "
                                  "more than 1.25x slower than their side's "
                                  "fastest run"),
            std::string::npos);
  // The phase caught the tuned side twice: all pairs say "not faster";
  // the steady rounds say 0.88x.
  InterleavedOutcome unlucky =
      timed({100, 101, 99, 100, 102, 100}, {88, 150, 152, 89, 87, 88});
  EXPECT_GT(stats::estimatePairedRatio(unlucky.tuned.runMediansUs,
                                       unlucky.baseline.runMediansUs)
                .upper,
            1);
  EXPECT_TRUE(modelTrial(unlucky, 0.02).helps);
}

TEST(IreeModelTrial, TooFewSteadyRunsAreTimedAgainWhicheverWayTheyPoint) {
  // The ViT at 2 threads: a phase over two of three tuned runs (114 ms
  // against 88) and one baseline run (128 against 99-100) read "1.018x".
  InterleavedOutcome phase = timed({100.0, 128.0, 98.9}, {114.4, 114.4, 88.3});
  EXPECT_EQ(runsSetAside(phase), 4u);
  EXPECT_TRUE(tooFewSteadyRuns(phase));
  EXPECT_FALSE(modelTrial(phase, 0.02).helps);
  EXPECT_TRUE(needsMoreSamples(phase, 0.02));
  // One tuned run slowed of three: two steady rounds could beat each
  // other by chance (1 in 6), so the gain is timed again, not kept.
  InterleavedOutcome short3 = timed({100, 101, 99}, {88, 150, 87});
  EXPECT_EQ(runsSetAside(short3), 2u);
  EXPECT_FALSE(modelTrial(short3, 0.02).helps);
  EXPECT_TRUE(needsMoreSamples(short3, 0.02));
  // Three more rounds, quiet: decided.
  InterleavedOutcome more = timed({100, 101, 99}, {88, 89, 87});
  appendTiming(short3, more);
  EXPECT_FALSE(tooFewSteadyRuns(short3));
  EXPECT_TRUE(modelTrial(short3, 0.02).helps);
  EXPECT_FALSE(needsMoreSamples(short3, 0.02));
}

TEST(IreeModelTrial, SlowerDoesNotHelp) {
  Trial trial = modelTrial(timed({100, 101, 99}, {110, 111, 109}), 0.02);
  EXPECT_FALSE(trial.helps);
  EXPECT_NEAR(trial.ratio, 1.1, 0.01);
}

TEST(IreeModelTrial, AFailureHasNoRatio) {
  InterleavedOutcome notApplied = timed({100}, {});
  notApplied.tuned.status = Status::NotApplied;
  notApplied.tuned.message = "the spec did not apply to the model";
  Trial trial = modelTrial(notApplied, 0.02);
  EXPECT_FALSE(trial.helps);
  EXPECT_EQ(trial.ratio, 0);
  EXPECT_EQ(trial.description, "the spec did not apply to the model");

  InterleavedOutcome baselineFailed = timed({}, {90});
  baselineFailed.baseline.status = Status::BenchError;
  baselineFailed.baseline.message = "device lost";
  EXPECT_EQ(modelTrial(baselineFailed, 0.02).description, "device lost");
  EXPECT_FALSE(modelTrial(timed({100}, {}), 0.02).helps);
}

/// A build directory with candidates/<id>/index.json and
/// results/<id>/<n>.json for the given ratios (0: failed).
/// A build directory whose dispatch `id` has a candidate per ratio (0: a
/// crash); `bytesIntoL2`, where given, are the data-tiled matmul grids'
/// bytes into the L2 beside IREE's own grid's `ireeBytes`.
std::string buildWithResults(llvm::StringRef id, std::vector<double> ratios,
                             std::vector<int64_t> bytesIntoL2 = {},
                             int64_t ireeBytes = 0) {
  std::string dir = scratchDir("model-options");
  CandidateIndex index;
  index.dispatch = id.str();
  for (auto [n, ratio] : llvm::enumerate(ratios)) {
    index.candidates.push_back(
        {static_cast<unsigned>(n), llvm::formatv("{0}.spec.mlir", n).str()});
    if (n < bytesIntoL2.size())
      index.candidates.back().config = llvm::json::Object{
          {"bytes_into_l2", bytesIntoL2[n]}, {"iree_bytes_into_l2", ireeBytes}};
    BenchRecord result;
    result.status = ratio > 0 ? Status::Ok : Status::Crash;
    result.ratio = ratio;
    llvm::cantFail(writeJsonFile(
        llvm::formatv("{0}/results/{1}/{2}.json", dir, id, n).str(),
        toJson(result)));
  }
  llvm::cantFail(writeJsonFile(
      llvm::formatv("{0}/candidates/{1}/index.json", dir, id).str(),
      toJson(index)));
  return dir;
}

/// The model step's options of the dispatch `id` in the build `dir`, at
/// most 3 a dispatch; an error reading them fails the test.
std::vector<DispatchOptions> inModelOptions(const std::string &dir,
                                            llvm::StringRef id) {
  auto options =
      readInModelOptions({dir + "/best/" + id.str() + ".json"}, 3);
  if (!options) {
    ADD_FAILURE() << llvm::toString(options.takeError());
    return {};
  }
  return std::move(*options);
}

std::vector<std::string> optionSpecs(const DispatchOptions &options) {
  std::vector<std::string> specs;
  for (const Winner &w : options.options)
    specs.push_back(w.spec);
  return specs;
}

TEST(IreeModelOptions, TheFastestFewThatBeatTheBaselineOnTheDispatch) {
  std::string dir = buildWithResults("abc", {0.9, 1.2, 0, 0.7, 0.8, 0.95});
  std::vector<DispatchOptions> options = inModelOptions(dir, "abc");
  ASSERT_EQ(options.size(), 1u);
  EXPECT_EQ(options[0].dispatch, "abc");
  EXPECT_EQ(optionSpecs(options[0]),
            (std::vector<std::string>{"candidates/abc/3.spec.mlir",
                                      "candidates/abc/4.spec.mlir",
                                      "candidates/abc/0.spec.mlir"}));
  EXPECT_DOUBLE_EQ(options[0].options[0].dispatchRatio, 0.7);
}

TEST(IreeModelOptions, ADispatchWithoutAFasterCandidateIsLeftOut) {
  std::string dir = buildWithResults("slow", {1.1, 0, 1.0});
  std::vector<DispatchOptions> options = inModelOptions(dir, "slow");
  EXPECT_TRUE(options.empty());
}

TEST(IreeModelOptions, AGridThatStreamsHalfTheBytesIsTriedInTheModelThoughSlowerAlone) {
  // The MLP's mmt4d at 2 threads: IREE's grid brings 68 MB into the L2,
  // the candidates 68, 34 and 5 MB; the one of 5 MB ran 1.08x alone (the
  // weights warm in the L2s there) and is tried in the model; one of 4 MB
  // that ran 1.2x is too slow alone to be.
  std::string dir = buildWithResults("mm", {1.0, 1.05, 1.08, 1.2},
                                     {68, 34, 5, 4}, 68);
  std::vector<DispatchOptions> options = inModelOptions(dir, "mm");
  ASSERT_EQ(options.size(), 1u);
  EXPECT_EQ(optionSpecs(options[0]),
            (std::vector<std::string>{"candidates/mm/2.spec.mlir"}));
  EXPECT_EQ(options[0].options[0].dispatchRatio, 0)
      << "its time alone does not predict it";
}

TEST(IreeModelOptions, AGridThatStreamsHalfTheBytesAndWonByAHairIsNotJudgedByItsRatio) {
  // The MLP's mmt4d 16x64x1024 at 2 threads (65% of the model): [16, 2]
  // (5 MB into the L2 against IREE's 68) ran 0.992x alone, a bound of
  // 0.5% of the model that kept it out; in the model it ran 0.88x.
  std::string dir = buildWithResults("mm", {1.042, 1.042, 1.028, 0.992},
                                     {68, 68, 34, 5}, 68);
  std::vector<DispatchOptions> options = inModelOptions(dir, "mm");
  ASSERT_EQ(options.size(), 1u);
  EXPECT_EQ(optionSpecs(options[0]),
            (std::vector<std::string>{"candidates/mm/3.spec.mlir"}));
  EXPECT_EQ(options[0].options[0].dispatchRatio, 0);
  llvm::StringMap<double> shares;
  shares["mm"] = 0.65;
  EXPECT_TRUE(keepPromisingOptions(options, shares, 0.02).empty());
  EXPECT_EQ(options.size(), 1u) << "no bound from the dispatch keeps it out";
}

TEST(IreeModelOptions, AColdGridThatWonKeepsItsPlaceAmongTheWinners) {
  std::string dir = buildWithResults("mm", {0.95, 0.9, 0.97}, {60, 5, 60}, 60);
  std::vector<DispatchOptions> options = inModelOptions(dir, "mm");
  ASSERT_EQ(options.size(), 1u);
  EXPECT_EQ(optionSpecs(options[0]),
            (std::vector<std::string>{"candidates/mm/1.spec.mlir",
                                      "candidates/mm/0.spec.mlir",
                                      "candidates/mm/2.spec.mlir"}));
  EXPECT_EQ(options[0].options[0].dispatchRatio, 0);
  EXPECT_DOUBLE_EQ(options[0].options[1].dispatchRatio, 0.95);
}

TEST(IreeModelOptions, TheGridThatStreamsLeastTakesTheLastPlaceOfTheWinners) {
  std::string dir = buildWithResults("mm", {0.9, 0.95, 0.97, 1.05},
                                     {60, 60, 60, 5}, 60);
  std::vector<DispatchOptions> options = inModelOptions(dir, "mm");
  ASSERT_EQ(options.size(), 1u);
  EXPECT_EQ(optionSpecs(options[0]),
            (std::vector<std::string>{"candidates/mm/0.spec.mlir",
                                      "candidates/mm/1.spec.mlir",
                                      "candidates/mm/3.spec.mlir"}));
}

TEST(IreeModelOptions, NoSlowerGridWhereAWinnerStreamsAsLittle) {
  std::string dir = buildWithResults("mm", {0.9, 1.05}, {5, 5}, 60);
  std::vector<DispatchOptions> options = inModelOptions(dir, "mm");
  ASSERT_EQ(options.size(), 1u);
  EXPECT_EQ(optionSpecs(options[0]),
            (std::vector<std::string>{"candidates/mm/0.spec.mlir"}));
}

TEST(IreeModelOptions, AGridNearIreesBytesIsNotTriedUnlessItWins) {
  std::string dir = buildWithResults("mm", {1.02}, {40}, 60);
  std::vector<DispatchOptions> options = inModelOptions(dir, "mm");
  EXPECT_TRUE(options.empty());
}

TEST(IreeModelOptions, AMissingResultIsAnError) {
  std::string dir = buildWithResults("abc", {0.9});
  auto options = readInModelOptions({dir + "/best/other.json"}, 3);
  ASSERT_FALSE(static_cast<bool>(options));
  EXPECT_NE(llvm::toString(options.takeError()).find("candidates/other"),
            std::string::npos);
}

DispatchEntry dumped(llvm::StringRef id, llvm::StringRef name,
                     double flopShare) {
  DispatchEntry d;
  d.id = id.str();
  d.name = name.str();
  d.share = flopShare;
  return d;
}

TEST(IreeModelShares, TheProfileWhereItSawTheDispatchElseTheFlops) {
  std::vector<DispatchEntry> dispatches = {dumped("mm", "f$dispatch_0", 0.9),
                                           dumped("sm", "f$dispatch_1", 0.05),
                                           dumped("ln", "f$dispatch_2", 0.05)};
  // 3 calls of 100 us, 10 of 50 us, and one the dump did not list: 1 ms.
  std::vector<DispatchTime> profile = {{"f$dispatch_0", 3, 100},
                                       {"f$dispatch_1", 10, 50},
                                       {"f$dispatch_9", 2, 100}};
  llvm::StringMap<double> shares = modelTimeShares(dispatches, profile);
  EXPECT_DOUBLE_EQ(shares["mm"], 0.3);
  EXPECT_DOUBLE_EQ(shares["sm"], 0.5);
  EXPECT_DOUBLE_EQ(shares["ln"], 0.05);
  EXPECT_DOUBLE_EQ(modelTimeShares(dispatches, {})["mm"], 0.9);
}

TEST(IreeModelProfiledChoice, ADispatchsTimeIsItsCallsAtTheirMedianAndFastestPerRun) {
  // Two functions of one dispatch (the dump dedupes identical bodies).
  std::vector<DispatchEntry> dispatches = {dumped("mm", "f$dispatch_0", 0.9),
                                           dumped("sm", "f$dispatch_1", 0.1)};
  dispatches.push_back(dumped("mm", "f$dispatch_4", 0.9));
  // Calls, mean, fastest and median microseconds; the softmax's profile
  // gave groups alone, no median: its mean stands in.
  std::vector<DispatchTime> profile = {{"f$dispatch_0", 20, 150, 100, 120},
                                       {"f$dispatch_4", 10, 80, 60, 70},
                                       {"f$dispatch_1", 30, 9, 8},
                                       {"f$dispatch_9", 10, 50, 40, 45}};
  llvm::StringMap<InModelTime> us = inModelTimes(dispatches, profile, 10);
  EXPECT_EQ(us.size(), 2u);
  EXPECT_DOUBLE_EQ(us["mm"].medianUs, 2 * 120 + 1 * 70);
  EXPECT_DOUBLE_EQ(us["mm"].fastestUs, 2 * 100 + 1 * 60);
  EXPECT_DOUBLE_EQ(us["sm"].medianUs, 3 * 9);
  EXPECT_DOUBLE_EQ(us["sm"].fastestUs, 3 * 8);
}

/// A model profiled over 10 runs that takes 1000 us a run on average.
std::vector<DispatchTime> modelOf1000UsARun() {
  return {{"f$dispatch_0", 10, 800, 700}, {"f$dispatch_1", 20, 100, 90}};
}

TEST(IreeModelProfiledChoice, SavingsTooSmallToShowInTheModelRideAlong) {
  // Margin 2%: a saving below 1% (10 us) is too small to try alone.
  std::vector<DispatchTime> baseline = modelOf1000UsARun();
  llvm::StringMap<double> saved;
  saved["big"] = 30;
  saved["small"] = 9.5;
  saved["tiny"] = 0.5;
  EXPECT_EQ(tooSmallAlone(saved, baseline, 10, 0.02),
            (std::vector<std::string>{"small", "tiny"}));
}

TEST(IreeModelProfiledChoice, TrialsTheProfilePredictsAGainForAreTimedLonger) {
  // Margin 2%: the options the profile chose must save 20 us a run
  // together to be timed longer.
  std::vector<DispatchTime> baseline = modelOf1000UsARun();
  llvm::StringMap<double> saved;
  saved["a"] = 12;
  saved["b"] = 9;
  Winner a{"a", "a.spec.mlir", 0.8}, b{"b", "b.spec.mlir", 0.9},
      rider{"rider", "r.spec.mlir", 0.5};
  EXPECT_EQ(moreTimingsFor({a, b}, saved, baseline, 10, 0.02),
            kMoreTimingsWhenPredicted);
  EXPECT_EQ(moreTimingsFor({a, rider}, saved, baseline, 10, 0.02),
            kMoreTimings);
  EXPECT_EQ(moreTimingsFor({a, b}, saved, baseline, 10, 0.05), kMoreTimings);
  // Without a profile nothing is predicted.
  EXPECT_EQ(moreTimingsFor({a, b}, saved, {}, 10, 0.02), kMoreTimings);
  EXPECT_EQ(moreTimingsFor({a, b}, {}, baseline, 10, 0.02), kMoreTimings);
}

TEST(IreeModelOptions, OnlyOptionsThatCanSaveEnoughOfTheModelAreTried) {
  // Margin 2%: an option is tried when share * (1 - ratio) >= 1%.
  std::vector<DispatchOptions> dispatches = {
      {"hot", {{"hot", "a", 0.9}, {"hot", "b", 0.98}}},
      {"cold", {{"cold", "c", 0.5}}},
      {"unranked", {{"unranked", "d", 0.99}}},
      {"unknown", {{"unknown", "e", 0}}}};
  llvm::StringMap<double> shares;
  shares["hot"] = 0.3;        // saves 3% and 0.6%
  shares["cold"] = 0.015;     // saves 0.75%
  shares["unknown"] = 0.3;    // no dispatch ratio: tried
  llvm::json::Array dropped = keepPromisingOptions(dispatches, shares, 0.02);
  ASSERT_EQ(dispatches.size(), 3u);
  EXPECT_EQ(dispatches[0].dispatch, "hot");
  ASSERT_EQ(dispatches[0].options.size(), 1u);
  EXPECT_EQ(dispatches[0].options[0].spec, "a");
  EXPECT_EQ(dispatches[1].dispatch, "unranked");
  EXPECT_EQ(dispatches[2].dispatch, "unknown");
  ASSERT_EQ(dropped.size(), 1u);
  const llvm::json::Object *entry = dropped[0].getAsObject();
  EXPECT_EQ(entry->getString("dispatch"), "cold");
  EXPECT_EQ(entry->getString("reason")->str(),
            "not tried in the model: it takes 1.5% of the model's time and "
            "its best candidate 0.500x of its time on the dispatch, so alone "
            "it can save at most 0.75% of the model's time; a spec must save "
            "2.0%");
}

TEST(IreeModelOptions, SmallWinnersJoinWhenTogetherTheyCanSaveEnough) {
  auto unpromising = [](std::vector<std::pair<const char *, double>> bounds) {
    llvm::json::Array entries;
    for (auto [id, bound] : bounds)
      entries.push_back(llvm::json::Object{
          {"dispatch", id}, {"bound", bound}, {"reason", "small"}});
    return entries;
  };
  std::vector<Winner> winners = {{"a", "a.spec"}, {"b", "b.spec"}};
  // 0.6% + 0.5%: together they can save the 1% half the margin asks.
  llvm::json::Array enough =
      unpromising({{"a", 0.006}, {"b", 0.005}, {"c", 0.004}});
  std::vector<Winner> joined = smallWinnersTogether(enough, winners, 0.02);
  ASSERT_EQ(joined.size(), 2u);
  EXPECT_EQ(joined[0].spec, "a.spec");
  EXPECT_EQ(joined[1].spec, "b.spec");
  // "c" has no winner (no candidate beat the baseline by the margin).
  ASSERT_EQ(enough.size(), 1u);
  EXPECT_EQ(*enough[0].getAsObject()->getString("dispatch"), "c");
  // 0.3% + 0.5%: not even together; all stay dropped.
  llvm::json::Array tooSmall = unpromising({{"a", 0.003}, {"b", 0.005}});
  EXPECT_TRUE(smallWinnersTogether(tooSmall, winners, 0.02).empty());
  EXPECT_EQ(tooSmall.size(), 2u);
}

} // namespace
