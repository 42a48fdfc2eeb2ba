//===- RunBudgetTest.cpp --------------------------------------------------===//
#include "stages/support/RunBudget.h"

#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <unistd.h>

using namespace retune;

namespace {

TEST(RunBudget, ParsesDurations) {
  EXPECT_EQ(parseDuration("90s"), 90);
  EXPECT_EQ(parseDuration("30m"), 1800);
  EXPECT_EQ(parseDuration("2h"), 7200);
  EXPECT_EQ(parseDuration("1h30m"), 5400);
  EXPECT_EQ(parseDuration("45"), 45);
  EXPECT_EQ(parseDuration("0"), 0);
  EXPECT_EQ(parseDuration("soon"), std::nullopt);
  EXPECT_EQ(parseDuration("5x"), std::nullopt);
  EXPECT_EQ(parseDuration("-5"), std::nullopt);
  EXPECT_EQ(parseDuration(""), std::nullopt);
  EXPECT_EQ(formatDuration(5400), "1h30m");
  EXPECT_EQ(formatDuration(90), "1m30s");
  EXPECT_EQ(formatDuration(2), "2s");
  EXPECT_EQ(formatDuration(0), "0s");
}

/// Runs in a scratch build directory (the steps' working directory).
class RunBudgetDir : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> dir;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("run-budget", dir));
    scratch = dir.str().str();
    llvm::SmallString<128> old;
    llvm::sys::fs::current_path(old);
    previous = old.str().str();
    ASSERT_EQ(::chdir(scratch.c_str()), 0);
  }
  void TearDown() override {
    ASSERT_EQ(::chdir(previous.c_str()), 0);
    ::unsetenv("RETUNE_INJECT_FAULT");
    llvm::sys::fs::remove_directories(scratch);
  }
  std::string scratch, previous;
};

TEST_F(RunBudgetDir, NoBudgetFileNoBudget) {
  ::setenv("RETUNE_INJECT_FAULT", "budget-spent:results/", 1);
  EXPECT_EQ(budgetSpent("results/a/1.json"), std::nullopt);
}

TEST_F(RunBudgetDir, ASpentBudgetNamesItselfAndTheLedgerCollects) {
  ASSERT_FALSE(llvm::sys::fs::create_directories(".retune"));
  // A budget no run reaches, however this test is started: only the
  // fault hook spends it.
  ASSERT_FALSE(static_cast<bool>(writeFileAtomic(kBudgetFile, "1000000\n")));
  EXPECT_EQ(budgetSpent("results/a/1.json"), std::nullopt);
  ::setenv("RETUNE_INJECT_FAULT", "budget-spent:/1.json", 1);
  std::optional<std::string> why = budgetSpent("results/a/1.json");
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("the run's time budget (277h46m40s) was spent"), std::string::npos) << *why;
  EXPECT_EQ(budgetSpent("results/a/2.json"), std::nullopt);
  ASSERT_FALSE(static_cast<bool>(noteSkipped("results/a/1.json")));
  ASSERT_FALSE(static_cast<bool>(noteSkipped("artifacts/a/1.json")));
  EXPECT_EQ(llvm::cantFail(readFile(kSkippedLedger)), "results/a/1.json\nartifacts/a/1.json\n");
}

} // namespace
