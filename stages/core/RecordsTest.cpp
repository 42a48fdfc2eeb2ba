#include "stages/core/Records.h"
#include "stages/support/FileUtil.h"

#include "llvm/Support/FormatVariadic.h"
#include <cmath>

#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

using namespace retune;

TEST(RecordsTest, BenchRecordRoundTrips) {
  BenchRecord record;
  record.status = Status::Ok;
  record.samples = {1.0, 2.0};
  record.baselineSamples = {2.0, 3.0};
  record.median = 1.5;
  record.baselineMedian = 2.5;
  record.ratio = 0.6;
  Expected<BenchRecord> back = benchRecordFromJson(toJson(record));
  ASSERT_TRUE(static_cast<bool>(back)) << toString(back.takeError());
  EXPECT_EQ(back->samples, record.samples);
  EXPECT_EQ(back->baselineSamples, record.baselineSamples);
  EXPECT_DOUBLE_EQ(back->ratio, 0.6);
  EXPECT_EQ(back->status, Status::Ok);
}

TEST(RecordsTest, ModelRecordKeepsWhereTheWinnersReachTheModel) {
  ModelRecord record;
  record.model = "model.mlir";
  record.specReach = "the spec does not reach 1 of the 2 winners' dispatches";
  record.executables.push_back(llvm::json::Object{
      {"dispatch", "conv"}, {"executable", "main_dispatch_0"},
      {"file", "executables/main_dispatch_0.mlir"}});
  Expected<ModelRecord> back = modelRecordFromJson(toJson(record));
  ASSERT_TRUE(static_cast<bool>(back)) << toString(back.takeError());
  EXPECT_EQ(back->specReach, record.specReach);
  ASSERT_EQ(back->executables.size(), 1u);
  EXPECT_EQ(back->executables[0].getAsObject()->getString("executable"),
            "main_dispatch_0");
  // Records of an older Retune have neither.
  llvm::json::Object old = *toJson(ModelRecord{}).getAsObject();
  EXPECT_FALSE(old.get("executables"));
  EXPECT_FALSE(old.get("spec_reach"));
}

TEST(RecordsTest, UnknownStatusIsAnError) {
  llvm::json::Value value = llvm::json::Object{{"schema", "retune.compile/1"},
                                               {"status", "melted"}};
  Expected<CompileRecord> record = compileRecordFromJson(value);
  ASSERT_FALSE(static_cast<bool>(record));
  EXPECT_NE(toString(record.takeError()).find("melted"), std::string::npos);
}

TEST(RecordsTest, FailureStatusesRoundTrip) {
  for (Status s : {Status::CompileError, Status::Crash, Status::Timeout,
                   Status::WrongResult, Status::BenchError}) {
    CompileRecord record;
    record.status = s;
    record.message = "why";
    Expected<CompileRecord> back = compileRecordFromJson(toJson(record));
    ASSERT_TRUE(static_cast<bool>(back));
    EXPECT_EQ(back->status, s);
    EXPECT_EQ(back->message, "why");
  }
}

TEST(RecordsTest, MissingFieldNamesTheField) {
  llvm::json::Value value = llvm::json::Object{{"model", "m.mlir"}};
  Expected<DispatchIndex> index = dispatchIndexFromJson(value);
  ASSERT_FALSE(static_cast<bool>(index));
  EXPECT_NE(toString(index.takeError()).find("total_flops"), std::string::npos);
}

TEST(RecordsTest, ADispatchKeepsItsTimeToGainWhenKnown) {
  DispatchIndex index;
  DispatchEntry profiled;
  profiled.id = "a";
  profiled.share = 0.6;
  profiled.gainShare = 0.05;
  profiled.peakFraction = 0.9;
  profiled.peakFlopsPerSecond = 466e9;
  DispatchEntry unprofiled;
  unprofiled.id = "b";
  unprofiled.share = 0.4;
  index.dispatches = {profiled, unprofiled};
  Expected<DispatchIndex> back = dispatchIndexFromJson(toJson(index));
  ASSERT_TRUE(static_cast<bool>(back)) << toString(back.takeError());
  EXPECT_DOUBLE_EQ(back->dispatches[0].priority(), 0.05);
  EXPECT_DOUBLE_EQ(back->dispatches[0].peakFraction, 0.9);
  EXPECT_DOUBLE_EQ(back->dispatches[0].peakFlopsPerSecond, 466e9);
  // Not known (an index of an older Retune, or FLOPs shares): the share.
  EXPECT_LT(back->dispatches[1].gainShare, 0);
  EXPECT_DOUBLE_EQ(back->dispatches[1].priority(), 0.4);
  // Out of range names the field.
  llvm::json::Value bad = toJson(index);
  (*(*bad.getAsObject()->getArray("dispatches"))[0].getAsObject())
      ["peak_fraction"] = 3;
  back = dispatchIndexFromJson(bad);
  ASSERT_FALSE(static_cast<bool>(back));
  EXPECT_NE(toString(back.takeError()).find("peak_fraction"), std::string::npos);
}

TEST(RecordsTest, ADispatchKeepsEveryExecutableMergedIntoIt) {
  DispatchIndex index;
  DispatchEntry merged;
  merged.id = "a";
  merged.name = "main_dispatch_3_conv";
  merged.exports = {"main_dispatch_3_conv", "main_dispatch_7_conv"};
  DispatchEntry single;
  single.id = "b";
  single.name = "main_dispatch_4_pack";
  index.dispatches = {merged, single};
  Expected<DispatchIndex> back = dispatchIndexFromJson(toJson(index));
  ASSERT_TRUE(static_cast<bool>(back)) << toString(back.takeError());
  EXPECT_EQ(back->dispatches[0].allExports(), merged.exports);
  EXPECT_EQ(back->dispatches[1].allExports(),
            std::vector<std::string>{"main_dispatch_4_pack"});
  // An index of an older Retune has no exports: the name stands alone.
  llvm::json::Value old = toJson(index);
  for (llvm::json::Value &d :
       *old.getAsObject()->getArray("dispatches"))
    d.getAsObject()->erase("exports");
  back = dispatchIndexFromJson(old);
  ASSERT_TRUE(static_cast<bool>(back)) << toString(back.takeError());
  EXPECT_EQ(back->dispatches[0].allExports(),
            std::vector<std::string>{"main_dispatch_3_conv"});
  // Exports that are not strings name the field.
  (*old.getAsObject()->getArray("dispatches"))[0].getAsObject()->insert(
      {"exports", llvm::json::Array{1, 2}});
  back = dispatchIndexFromJson(old);
  ASSERT_FALSE(static_cast<bool>(back));
  EXPECT_NE(toString(back.takeError()).find("exports"), std::string::npos);
}

TEST(RecordsTest, WrongSchemaNamesTheFile) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("rec", "json", path));
  ASSERT_FALSE(static_cast<bool>(
      writeJsonFile(path, llvm::json::Object{{"schema", "retune.bench/0"}})));
  Expected<llvm::json::Value> value = readJsonFile(path, schema::kBench);
  ASSERT_FALSE(static_cast<bool>(value));
  std::string message = toString(value.takeError());
  EXPECT_NE(message.find(path.str().str()), std::string::npos);
  EXPECT_NE(message.find("retune.bench/0"), std::string::npos);
  llvm::sys::fs::remove(path);
}

TEST(RecordsTest, ABadRatioIsAnErrorNotZero) {
  // Each of these used to read as ratio 0 and win ("0.000x the baseline").
  for (llvm::json::Value bad :
       {llvm::json::Value("abc"), llvm::json::Value(nullptr),
        llvm::json::Value(-5)}) {
    BenchRecord record;
    record.ratio = 0.9;
    llvm::json::Value value = toJson(record);
    (*value.getAsObject())["ratio"] = bad;
    EXPECT_FALSE(static_cast<bool>(benchRecordFromJson(value)))
        << llvm::formatv("{0}", bad).str();
    llvm::consumeError(benchRecordFromJson(value).takeError());
  }
  llvm::json::Value missing = toJson(BenchRecord{});
  missing.getAsObject()->erase("ratio");
  Expected<BenchRecord> read = benchRecordFromJson(missing);
  ASSERT_FALSE(static_cast<bool>(read));
  EXPECT_NE(toString(read.takeError()).find("ratio"), std::string::npos);
}

TEST(RecordsTest, NonFiniteNumbersNeverReachARecord) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("nan", "json", path));
  llvm::json::Value value = llvm::json::Object{
      {"schema", "retune.bench/1"},
      {"inner", llvm::json::Array{1.0, std::nan("")}}};
  Error err = writeJsonFile(path, value);
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_NE(toString(std::move(err)).find(".inner[1]"), std::string::npos);
  llvm::sys::fs::remove(path);
}

TEST(RecordsTest, ADamagedRecordIsRemovedAndNamed) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("trunc", "json", path));
  ASSERT_FALSE(static_cast<bool>(writeFileAtomic(path, "{\"schema\": \"retu")));
  Expected<BenchRecord> read =
      readRecord<BenchRecord>(path, schema::kBench, benchRecordFromJson);
  ASSERT_FALSE(static_cast<bool>(read));
  std::string message = toString(read.takeError());
  EXPECT_NE(message.find(path.str().str()), std::string::npos) << message;
  EXPECT_NE(message.find("run `ninja tune` again"), std::string::npos);
  // Ninja sees the step's output missing and redoes it.
  EXPECT_FALSE(llvm::sys::fs::exists(path));
}
