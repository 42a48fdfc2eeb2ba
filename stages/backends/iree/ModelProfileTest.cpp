//===- ModelProfileTest.cpp - Reading IREE's per-dispatch profile ---------===//
#include "stages/backends/iree/ModelProfile.h"
#include "stages/backends/iree/TestUtil.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;
using namespace retune::iree::testing;

namespace {

TEST(IreeModelProfile, EachDispatchGroupIsItsCallsAndMeanTimeSlowestFirst) {
  // Recorded: `iree-profile dispatch --format=jsonl` of MiniLM run 10 times
  // under --device_profiling_mode=host-execution (IREE 3.13, local-sync),
  // three of its groups kept, and a line of stderr as the log holds it.
  std::string text =
      readTestFile(testdata("fixtures/minilm-host-execution.jsonl")) +
      "note: something the tool said on stderr\n";
  Expected<std::vector<DispatchTime>> times =
      parseDispatchProfile(text, "model/baseline.profile.jsonl");
  ASSERT_TRUE(static_cast<bool>(times)) << toString(times.takeError());
  ASSERT_EQ(times->size(), 3u);
  EXPECT_EQ((*times)[0].function,
            "main_graph$async_dispatch_29_batch_mmt4d_1x8x24x1536x16x16x1_f32");
  EXPECT_EQ((*times)[0].calls, 30u);
  EXPECT_NEAR((*times)[0].averageUs, 1416.1, 0.1);
  EXPECT_NEAR((*times)[0].minUs, 1363.6, 0.1);
  // Called 4 times per run: more in total than one slower call per run.
  EXPECT_EQ((*times)[1].calls, 120u);
  EXPECT_EQ((*times)[2].calls, 10u);
}

TEST(IreeModelProfile, SingleCallsGiveTheMedianBesideTheMean) {
  // Recorded: `iree-profile dispatch --dispatch_events --format=jsonl` of
  // the zoo's MLP run 10 times under host-execution profiling (IREE 3.13,
  // local-task, 2 workers), the summary row and two functions' calls kept.
  // A few calls the machine held up (the slowest mmt4d call 4751 us) pull
  // the mean well above the median.
  Expected<std::vector<DispatchTime>> times = parseDispatchProfile(
      readTestFile(testdata("fixtures/mlp-host-execution-events.jsonl")),
      "model/baseline.profile.jsonl");
  ASSERT_TRUE(static_cast<bool>(times)) << toString(times.takeError());
  ASSERT_EQ(times->size(), 2u);
  const DispatchTime &mmt4d = (*times)[0];
  EXPECT_EQ(mmt4d.function, "mlp$async_dispatch_2_mmt4d_16x64x1024x16x16x1_f32");
  EXPECT_EQ(mmt4d.calls, 20u);
  EXPECT_NEAR(mmt4d.averageUs, 2776.3, 0.1);
  EXPECT_NEAR(mmt4d.medianUs, 2501.1, 0.1);
  EXPECT_NEAR(mmt4d.minUs, 2197.6, 0.1);
  const DispatchTime &pack = (*times)[1];
  EXPECT_EQ(pack.calls, 10u);
  EXPECT_NEAR(pack.averageUs, 124.5, 0.1);
  EXPECT_NEAR(pack.medianUs, 82.9, 0.1);
}

TEST(IreeModelProfile, AGroupWithoutSingleCallsHasItsMeanForMedian) {
  Expected<std::vector<DispatchTime>> times = parseDispatchProfile(
      readTestFile(testdata("fixtures/minilm-host-execution.jsonl")), "p");
  ASSERT_TRUE(static_cast<bool>(times)) << toString(times.takeError());
  EXPECT_DOUBLE_EQ((*times)[0].medianUs, (*times)[0].averageUs);
}

TEST(IreeModelProfile, AnEventWithoutADurationIsNamed) {
  Expected<std::vector<DispatchTime>> times = parseDispatchProfile(
      "\n{\"type\":\"host_dispatch_event\",\"key\":\"f\"}\n", "p.jsonl");
  ASSERT_FALSE(static_cast<bool>(times));
  EXPECT_NE(toString(times.takeError()).find("p.jsonl:2: a dispatch event"),
            std::string::npos);
}

TEST(IreeModelProfile, ADamagedLineIsNamed) {
  Expected<std::vector<DispatchTime>> times = parseDispatchProfile(
      "{\"type\":\"host_dispatch_group\",\"key\":\"f\"}\n", "p.jsonl");
  ASSERT_FALSE(static_cast<bool>(times));
  EXPECT_NE(toString(times.takeError()).find("p.jsonl:1: a dispatch group"),
            std::string::npos);
}

TEST(IreeModelProfile, TheModeTimesDispatchesOnEachDevice) {
  EXPECT_EQ(profilingModeFor("local-sync"), "host-execution");
  EXPECT_EQ(profilingModeFor("local-task"), "host-execution");
  EXPECT_EQ(profilingModeFor("hip://0"), "dispatch-events");
}

} // namespace
