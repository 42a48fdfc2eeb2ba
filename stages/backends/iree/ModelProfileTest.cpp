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
