#include "stages/support/Records.h"

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
