//===- BenchStageTest.cpp - The iree bench stage's records ----------------===//
#include "stages/backends/iree/BenchStage.h"
#include "stages/backends/iree/TestUtil.h"

#include "stages/support/FileUtil.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;
using namespace retune::iree::testing;

namespace {

/// A scratch build directory with one candidate's compile record; IREE's
/// tools point nowhere, so any step that ran one would fail.
class IreeBenchStage : public ::testing::Test {
protected:
  void SetUp() override {
    dir = scratchDir("bench-stage");
    options.iree.compile = dir + "/no/iree-compile";
    options.iree.opt = dir + "/no/iree-opt";
    options.iree.benchmark = dir + "/no/iree-benchmark-module";
    options.iree.version = "3.13.0";
    options.compileRecordPath = dir + "/artifacts/7.json";
    options.outputPath = dir + "/measure/7.json";
    options.device = "hip://0";
  }

  void writeCompileRecord(const std::string &path, Status status,
                          const std::string &hash) {
    CompileRecord record;
    record.status = status;
    record.message = status == Status::Ok ? "" : "error: no tile fits";
    record.artifact = dir + "/artifacts/7.vmfb";
    record.artifactHash = hash;
    llvm::cantFail(writeJsonFile(path, toJson(record)));
  }

  /// IREE's tools are the fakes (tests/fakes): the benchmark times a fake
  /// module at its `time_us`.
  void useFakeTools(const std::string &device, unsigned repetitions) {
    options.iree.compile = std::string(RETUNE_FAKES_DIR) + "/iree-compile";
    options.iree.opt = std::string(RETUNE_FAKES_DIR) + "/iree-opt";
    options.iree.benchmark =
        std::string(RETUNE_FAKES_DIR) + "/iree-benchmark-module";
    options.device = device;
    options.repetitions = repetitions;
  }

  BenchRecord written() {
    llvm::Expected<BenchRecord> record = readRecord<BenchRecord>(
        options.outputPath, retune::schema::kBench, benchRecordFromJson);
    if (!record) {
      ADD_FAILURE() << llvm::toString(record.takeError());
      return {};
    }
    return *record;
  }

  std::string dir;
  BenchOptions options;
};

TEST(IreeBenchRecord, SamplesInSecondsAndTheirMedian) {
  BenchOutcome outcome;
  outcome.samplesUs = {120, 100, 110, 400};
  outcome.seconds = 2.5;
  outcome.startedAt = 1700000000;
  BenchRecord record = measuredRecord(outcome);
  EXPECT_EQ(record.status, Status::Ok);
  ASSERT_EQ(record.samples.size(), 4u);
  EXPECT_DOUBLE_EQ(record.samples[0], 120e-6);
  EXPECT_DOUBLE_EQ(record.samples[3], 400e-6);
  EXPECT_NEAR(record.median, 115e-6, 1e-12);
  EXPECT_DOUBLE_EQ(record.seconds, 2.5);
  EXPECT_DOUBLE_EQ(record.startedAt, 1700000000);
  // No baseline yet: the rank stage relates the samples to the device's.
  EXPECT_TRUE(record.baselineSamples.empty());
  EXPECT_EQ(record.ratio, 0);
}

TEST(IreeBenchRecord, AFailedRunKeepsItsStatusAndMessage) {
  BenchOutcome outcome;
  outcome.status = Status::Timeout;
  outcome.message = "killed after 300 s";
  BenchRecord record = measuredRecord(outcome);
  EXPECT_EQ(record.status, Status::Timeout);
  EXPECT_EQ(record.message, "killed after 300 s");
  EXPECT_TRUE(record.samples.empty());
  EXPECT_EQ(record.median, 0);
}

TEST_F(IreeBenchStage, AFailedCompileIsRecordedWithoutBenchmarking) {
  writeCompileRecord(options.compileRecordPath, Status::CompileError, "");
  ASSERT_FALSE(static_cast<bool>(runBenchStage(options)));
  BenchRecord record = written();
  EXPECT_EQ(record.status, Status::CompileError);
  EXPECT_EQ(record.message, "compile: error: no tile fits");
  EXPECT_TRUE(record.samples.empty());
}

TEST_F(IreeBenchStage, TheBaselinesModuleIsNotApplied) {
  writeCompileRecord(options.compileRecordPath, Status::Ok,
                     "0123456789abcdef0123");
  options.baselineRecordPath = dir + "/artifacts/baseline.json";
  writeCompileRecord(options.baselineRecordPath, Status::Ok,
                     "0123456789abcdef0123");
  ASSERT_FALSE(static_cast<bool>(runBenchStage(options)));
  BenchRecord record = written();
  EXPECT_EQ(record.status, Status::NotApplied);
  EXPECT_NE(record.message.find("(0123456789abcdef)"), std::string::npos)
      << record.message;
  EXPECT_GT(record.startedAt, 0);
}

TEST_F(IreeBenchStage, AHopelessCandidateStopsAfterItsFirstRepetition) {
  // The fake benchmark tool times the fake module at its time_us; the
  // baseline measured before took 100 us.
  useFakeTools("hip://hopeless-test", 5);
  options.baselineMeasurePath = dir + "/measure/baseline.before.0.json";
  BenchRecord baseline;
  baseline.samples = {100e-6, 100e-6, 100e-6};
  baseline.median = 100e-6;
  llvm::cantFail(writeJsonFile(options.baselineMeasurePath, toJson(baseline)));
  writeCompileRecord(options.compileRecordPath, Status::Ok, "feedfacefeedface");
  for (auto [timeUs, samples] : {std::pair<int, size_t>{250, 1}, {190, 5}}) {
    llvm::cantFail(writeFileAtomic(dir + "/artifacts/7.vmfb",
                                   "FAKE-VMFB\nfunction: main\ntime_us: " +
                                       std::to_string(timeUs) + "\n"));
    ASSERT_FALSE(static_cast<bool>(runBenchStage(options)));
    BenchRecord record = written();
    ASSERT_EQ(record.status, Status::Ok) << record.message;
    // 2.5x: one sample and why; 1.9x: measured to the end, all 5 samples.
    EXPECT_EQ(record.samples.size(), samples) << timeUs;
    EXPECT_NEAR(record.median, timeUs * 1e-6, timeUs * 0.03e-6); // jitter
    bool stopped = record.message.find("stopped after its first repetition: "
                                       "2.5x the baseline's median") !=
                   std::string::npos;
    EXPECT_EQ(stopped, samples == 1) << record.message;
  }
}

TEST_F(IreeBenchStage, AMissingCompileRecordIsAnError) {
  llvm::Error err = runBenchStage(options);
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("artifacts/7.json"),
            std::string::npos);
}

TEST_F(IreeBenchStage, AModuleMeasuredBeforeOnTheDeviceIsReused) {
  // The fake benchmark tool times the fake module; the second candidate
  // with the same module (same hash) on the same device is not measured.
  useFakeTools("hip://bench-stage-test", 3);
  options.reuseDir = dir + "/reuse";
  llvm::cantFail(writeFileIfChanged(dir + "/artifacts/7.vmfb",
                                    "FAKE-VMFB\nfunction: main\n"
                                    "time_us: 90\n"));
  writeCompileRecord(options.compileRecordPath, Status::Ok, "feedfacefeedface");
  ASSERT_FALSE(static_cast<bool>(runBenchStage(options)));
  BenchRecord first = written();
  ASSERT_EQ(first.status, Status::Ok) << first.message;
  ASSERT_EQ(first.samples.size(), 3u);
  EXPECT_NEAR(first.median, 90e-6, 1e-9);

  options.outputPath = dir + "/measure/8.json";
  ASSERT_FALSE(static_cast<bool>(runBenchStage(options)));
  BenchRecord second = written();
  EXPECT_EQ(second.status, Status::Ok);
  EXPECT_EQ(second.samples, first.samples);
  EXPECT_EQ(second.seconds, 0);
  EXPECT_NE(second.message.find("measured before on hip://bench-stage-test; "
                                "reused"),
            std::string::npos)
      << second.message;
}

} // namespace
