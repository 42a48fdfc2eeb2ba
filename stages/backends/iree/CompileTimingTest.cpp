//===- CompileTimingTest.cpp ----------------------------------------------===//
#include "stages/backends/iree/CompileTiming.h"

#include <gtest/gtest.h>

using namespace retune::iree;

namespace {
// Cut from iree-compile 3.13's report for MiniLM on llvm-cpu (2 threads):
// user and wall columns; pipelines and adaptors nest the passes.
constexpr const char *kThreaded = R"(warning: something before
===-------------------------------------------------------------------------===
                         ... Execution time report ...
===-------------------------------------------------------------------------===
  Total Execution Time: 1.9891 seconds

  ----User Time----  ----Wall Time----  ----Name----
    5.3466 (100.0%)    1.9891 (100.0%)  root
    2.4778 ( 46.3%)    1.3502 ( 67.9%)  'hal.executable' Pipeline
    0.9417 ( 17.6%)    0.9417 ( 47.3%)  mlir::iree_compiler::detail::OpPipelineAdaptorPass
    1.6640 ( 31.1%)    0.8902 ( 44.8%)  Pipeline Collection : ['hal.executable']
    0.7520 ( 14.1%)    0.7520 ( 37.8%)  ConfigureTargetExecutableVariantsPass
    0.4607 (  8.6%)    0.4607 ( 23.2%)  SerializeAllExecutablesPass
    0.7433 ( 13.9%)    0.3979 ( 20.0%)  TranslateAllExecutablesPass
    0.2219 (  4.2%)    0.2142 ( 10.8%)  CanonicalizerPass
    5.3466 (100.0%)    1.9891 (100.0%)  Total
)";
// --mlir-disable-threading: the wall column alone.
constexpr const char *kSingle = R"(  ... Execution time report ...
  Total Execution Time: 2.3920 seconds

  ----Wall Time----  ----Name----
    2.5556 (106.8%)  'hal.executable' Pipeline
    2.3920 (100.0%)  root
    0.9000 ( 37.6%)  ConfigureTargetExecutableVariantsPass
    0.1000 (  4.2%)  CSE
)";
} // namespace

TEST(CompileTimingTest, SlowestPassesLeaveContainersOut) {
  std::vector<PassTime> passes = slowestPasses(kThreaded, 3);
  ASSERT_EQ(passes.size(), 3u);
  EXPECT_EQ(passes[0].name, "ConfigureTargetExecutableVariantsPass");
  EXPECT_DOUBLE_EQ(passes[0].wallSeconds, 0.7520);
  EXPECT_EQ(passes[1].name, "SerializeAllExecutablesPass");
  EXPECT_EQ(passes[2].name, "TranslateAllExecutablesPass");
  EXPECT_DOUBLE_EQ(passes[2].wallSeconds, 0.3979);
}

TEST(CompileTimingTest, WallColumnAloneWithoutThreads) {
  std::vector<PassTime> passes = slowestPasses(kSingle);
  ASSERT_EQ(passes.size(), 2u);
  EXPECT_EQ(passes[0].name, "ConfigureTargetExecutableVariantsPass");
  EXPECT_DOUBLE_EQ(passes[0].wallSeconds, 0.9);
  EXPECT_EQ(passes[1].name, "CSE");
}

TEST(CompileTimingTest, NoReportNoPasses) {
  EXPECT_TRUE(slowestPasses("error: failed to legalize\n").empty());
  EXPECT_TRUE(slowestPasses("").empty());
}

TEST(CompileTimingTest, JsonRoundTrip) {
  std::vector<PassTime> passes = slowestPasses(kThreaded, 2);
  llvm::json::Value json = toJson(passes);
  std::vector<PassTime> back = passTimesFromJson(&json);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].name, passes[1].name);
  EXPECT_DOUBLE_EQ(back[1].wallSeconds, passes[1].wallSeconds);
}
