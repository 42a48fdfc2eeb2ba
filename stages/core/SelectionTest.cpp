#include "stages/core/Selection.h"

#include "gtest/gtest.h"

using namespace retune;
using namespace retune::select;

static Measured ok(unsigned n, double ratio, double noise = 0.01) {
  Measured m;
  m.candidate = n;
  m.record.status = Status::Ok;
  m.record.ratio = ratio;
  m.record.noise = noise;
  return m;
}

static Measured failed(unsigned n, Status status) {
  Measured m;
  m.candidate = n;
  m.record.status = status;
  return m;
}

TEST(SelectionTest, PicksTheFastestConvincingCandidate) {
  Selection s = selectWinner({ok(0, 0.9), ok(1, 0.7), ok(2, 0.8)}, 0.02);
  ASSERT_TRUE(s.winner.has_value());
  EXPECT_EQ(*s.winner, 1u);
  EXPECT_DOUBLE_EQ(s.ratio, 0.7);
}

TEST(SelectionTest, NoiseRaisesTheBar) {
  // 3% faster but the ratio wanders by 5%: not convincing.
  Selection s = selectWinner({ok(0, 0.97, 0.05)}, 0.02);
  EXPECT_FALSE(s.winner.has_value());
  EXPECT_NE(s.reason.find("0.970"), std::string::npos);
  // The same gain with little noise wins.
  EXPECT_TRUE(selectWinner({ok(0, 0.97, 0.005)}, 0.02).winner.has_value());
}

TEST(SelectionTest, FailuresAreCountedNotChosen) {
  Selection s = selectWinner({failed(0, Status::Crash), ok(1, 0.5),
                              failed(2, Status::WrongResult),
                              failed(3, Status::Crash)},
                             0.02);
  EXPECT_EQ(*s.winner, 1u);
  EXPECT_EQ(s.statusCounts["crash"], 2u);
  EXPECT_EQ(s.statusCounts["wrong_result"], 1u);
  EXPECT_EQ(s.statusCounts["ok"], 1u);
}

TEST(SelectionTest, NothingMeasured) {
  Selection s = selectWinner({failed(0, Status::Timeout)}, 0.02);
  EXPECT_FALSE(s.winner.has_value());
  EXPECT_EQ(s.reason, "no candidate was measured successfully");
}

/// The previous winner measured alone with a new compiler, as select
/// records it.
static Reverification verified(Measured m) {
  return reverification(toRecord(selectWinner({m}, 0.02), "d", "w.spec"));
}

TEST(SelectionTest, APreviousWinnerThatStillWinsIsKept) {
  Reverification r = verified(ok(0, 0.6));
  EXPECT_TRUE(r.kept);
  EXPECT_NE(r.why.find("0.600x"), std::string::npos) << r.why;
}

TEST(SelectionTest, APreviousWinnerIsSearchedAgainAndTheReasonSaysWhy) {
  Reverification regressed = verified(ok(0, 0.99));
  EXPECT_FALSE(regressed.kept);
  EXPECT_EQ(regressed.why.rfind("regressed: ", 0), 0u) << regressed.why;
  EXPECT_NE(regressed.why.find("0.990"), std::string::npos);

  Reverification gone = verified(failed(0, Status::NotApplied));
  EXPECT_FALSE(gone.kept);
  EXPECT_EQ(gone.why.rfind("no longer applies", 0), 0u) << gone.why;

  Reverification broken = verified(failed(0, Status::CompileError));
  EXPECT_FALSE(broken.kept);
  EXPECT_EQ(broken.why, "fails with the new compiler (compile_error)");
}
