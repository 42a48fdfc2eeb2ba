#include "stages/report/History.h"
#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace retune;
using namespace retune::report;

namespace {

json::Value summary(double startedAt, double speedup) {
  json::Object s{{"schema", "retune.summary/1"},
                 {"model",
                  json::Object{{"baseline_s", 2.0},
                               {"tuned_s", 2.0 / speedup},
                               {"speedup", speedup},
                               {"winners_kept", json::Array{"a", "b"}}}},
                 {"dispatches",
                  json::Array{json::Object{
                      {"id", "a"}, {"name", "mm"}, {"speedup", 1.5}}}}};
  if (startedAt > 0)
    s["started_at"] = startedAt;
  return s;
}

class HistoryTest : public ::testing::Test {
protected:
  void SetUp() override {
    SmallString<128> path;
    ASSERT_FALSE(sys::fs::createUniqueDirectory("retune-history", path));
    dir = path.str().str();
  }
  void TearDown() override { sys::fs::remove_directories(dir); }

  std::vector<std::string> files() {
    std::vector<std::string> names;
    std::error_code ec;
    for (sys::fs::directory_iterator it(dir + "/history", ec), end;
         it != end && !ec; it.increment(ec))
      names.push_back(sys::path::filename(it->path()).str());
    llvm::sort(names);
    return names;
  }

  std::string dir;
};

TEST_F(HistoryTest, KeepsTheNewestSummariesUpToTheBound) {
  std::string history = dir + "/history";
  for (double t : {300.0, 100.0, 200.0, 400.0})
    ASSERT_FALSE(errorToBool(keepInHistory(history, summary(t, t / 100), 3)));
  EXPECT_EQ(files(), (std::vector<std::string>{"200.000.json", "300.000.json",
                                               "400.000.json"}));
  std::vector<HistoryRun> runs = loadHistory(history);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].startedAt, 200);
  EXPECT_EQ(runs[2].startedAt, 400);
  EXPECT_DOUBLE_EQ(runs[2].speedup, 4);
  EXPECT_EQ(runs[2].winnersKept, 2u);
  ASSERT_EQ(runs[2].dispatches.size(), 1u);
  EXPECT_EQ(runs[2].dispatches[0].name, "mm");
  EXPECT_DOUBLE_EQ(runs[2].dispatches[0].speedup, 1.5);
}

TEST_F(HistoryTest, TheSameRunIsKeptOnce) {
  std::string history = dir + "/history";
  ASSERT_FALSE(errorToBool(keepInHistory(history, summary(100, 1.1), 5)));
  ASSERT_FALSE(errorToBool(keepInHistory(history, summary(100, 1.2), 5)));
  EXPECT_EQ(files(), std::vector<std::string>{"100.000.json"});
  EXPECT_DOUBLE_EQ(loadHistory(history)[0].speedup, 1.2);
}

TEST_F(HistoryTest, ASummaryWithoutStartIsNotKept) {
  std::string history = dir + "/history";
  ASSERT_FALSE(errorToBool(keepInHistory(history, summary(0, 1.1), 5)));
  EXPECT_TRUE(files().empty());
}

TEST_F(HistoryTest, UnreadableCopiesAreSkipped) {
  std::string history = dir + "/history";
  ASSERT_FALSE(errorToBool(keepInHistory(history, summary(100, 1.1), 5)));
  ASSERT_FALSE(errorToBool(writeFileIfChanged(history + "/150.000.json", "{")));
  ASSERT_FALSE(errorToBool(
      writeFileIfChanged(history + "/160.000.json", "{\"schema\": \"x/1\"}")));
  ASSERT_FALSE(
      errorToBool(writeFileIfChanged(history + "/notes.txt", "not a run")));
  std::vector<HistoryRun> runs = loadHistory(history);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].startedAt, 100);
}

} // namespace
