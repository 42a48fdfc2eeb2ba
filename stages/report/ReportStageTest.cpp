//===- ReportStageTest.cpp - The headline and why nothing was kept --------===//
#include "stages/report/HtmlReport.h"
#include "stages/report/ReportStage.h"

#include "gtest/gtest.h"

using namespace retune;
using namespace retune::report;

namespace {

CandidateRow row(unsigned index, Status status, double ratio = 0) {
  CandidateRow c;
  c.index = index;
  c.status = status;
  c.ratio = ratio;
  return c;
}

DispatchReport noWinner(std::string name, std::vector<CandidateRow> rows,
                        double requiredMargin = 0.02) {
  DispatchReport d;
  d.id = d.name = std::move(name);
  d.candidates = std::move(rows);
  d.requiredMargin = requiredMargin;
  return d;
}

RunReport runOf(std::vector<DispatchReport> dispatches) {
  RunReport run;
  run.margin = 0.02;
  run.dispatches = std::move(dispatches);
  return run;
}

TEST(ExplainNoWinner, SaysTheDefaultsRunWithinNoiseOfTheBest) {
  RunReport run = runOf(
      {noWinner("mm_a", {row(0, Status::Ok, 1.2), row(1, Status::Ok, 0.99)},
                /*requiredMargin=*/0.03),
       noWinner("mm_b", {row(0, Status::Ok, 1.01), row(1, Status::Crash),
                         row(2, Status::NotApplied)})});
  EXPECT_EQ(explainNoWinner(run),
            "the default configs already run within noise of the best "
            "candidate: of 3 measured (1 did not change the code; 1 failed "
            "(see the report)), the best (mm_a #1) took 0.990x the default's "
            "time, and a winner needs less than 0.970x (margin and noise)");
}

TEST(ExplainNoWinner, SaysTheDefaultsBeatEveryCandidate) {
  RunReport run = runOf({noWinner("mm", {row(0, Status::Ok, 14.5),
                                         row(1, Status::Ok, 3.25)})});
  EXPECT_EQ(explainNoWinner(run),
            "the default configs are faster than every candidate: of 2 "
            "measured, the closest (mm #1) took 3.250x the default's time");
}

TEST(ExplainNoWinner, NamesFailuresWhenNothingWasMeasured) {
  RunReport run = runOf({noWinner("mm", {row(0, Status::Crash),
                                         row(1, Status::Timeout)})});
  EXPECT_EQ(explainNoWinner(run),
            "no candidate could be measured; 2 failed (see the report)");
  EXPECT_EQ(explainNoWinner(runOf({})), "the model has no dispatch to tune");
}

TEST(ExplainNoWinner, EmptyWhenADispatchWon) {
  DispatchReport won = noWinner("mm", {row(0, Status::Ok, 0.5)});
  won.winner = 0;
  EXPECT_EQ(explainNoWinner(runOf({won})), "");
}

TEST(WrongSpace, WarnsWhenTheBestCandidateIsOverTwiceTheDefault) {
  DispatchReport hopeless = noWinner(
      "bmm", {row(0, Status::Ok, 22.4), row(1, Status::Ok, 14.5),
              row(2, Status::Crash)});
  EXPECT_EQ(wrongSpaceWarning(hopeless),
            "the search space is wrong for this dispatch: its best candidate "
            "(#1) took 14.5x the default config's time (over 2x: a defect of "
            "the space, not a tuning result)");
  EXPECT_EQ(wrongSpaceWarning(noWinner("mm", {row(0, Status::Ok, 1.9)})), "");
  EXPECT_EQ(wrongSpaceWarning(noWinner("mm", {row(0, Status::Timeout)})), "");
}

TEST(Headline, IsCompilerDefaultsToRetuneWhenFlagsWereSearched) {
  ModelReport m;
  m.baseline = 10e-3; // the chosen flags' build
  m.tuned = 8e-3;
  m.speedup = 1.25;
  EXPECT_DOUBLE_EQ(m.headlineBaseline(), 10e-3);
  EXPECT_DOUBLE_EQ(m.headlineSpeedup(), 1.25);
  m.defaultFlagsTime = 12e-3;
  m.flagsSpeedup = 1.2;
  EXPECT_DOUBLE_EQ(m.headlineBaseline(), 12e-3);
  EXPECT_DOUBLE_EQ(m.headlineSpeedup(), 1.5);

  RunReport run = runOf({});
  run.modelResult = m;
  run.stages = {{"candidates"}, {"compile"}, {"bench"}, {"model"}};
  std::string html = renderHtml(run);
  for (const char *fragment :
       {"1.500×", "compiler defaults → Retune (flags + spec)", "flags · spec",
        "1.200× · 1.250×"})
    EXPECT_NE(html.find(fragment), std::string::npos) << fragment;
}

} // namespace

namespace {

TEST(RoomForSpec, IsTheTimeAboveThePeakRate) {
  // A matmul at 95% of the peak (80% of the model), a softmax (20%): 4%
  // and 20% of the model to gain, a ceiling of 1 / 0.76.
  DispatchReport matmul = noWinner("mm", {});
  matmul.share = 0.8;
  matmul.peakFraction = 0.95;
  matmul.gainShare = 0.04;
  DispatchReport softmax = noWinner("softmax", {});
  softmax.share = 0.2;
  softmax.gainShare = 0.2;
  std::optional<RoomForSpec> room = roomForSpec({matmul, softmax});
  ASSERT_TRUE(room.has_value());
  EXPECT_NEAR(room->gainShare, 0.24, 1e-12);
  EXPECT_NEAR(room->atPeakShare, 0.8, 1e-12);
  EXPECT_NEAR(room->ceiling(), 1 / 0.76, 1e-12);
  // Without the dump's profile nothing is claimed.
  EXPECT_FALSE(roomForSpec({noWinner("mm", {})}).has_value());
}

TEST(PeakFraction, IsOfTheTimeTheLinePrints) {
  // The MLP's mmt4d: 537 MFLOP a call, a peak of 466 GFLOP/s; the dump's
  // profile, on a busy machine, put it at 28%.
  DispatchReport matmul = noWinner("mm", {});
  matmul.flops = 536870912;
  matmul.peakFraction = 0.28;
  matmul.peakFlopsPerSecond = 466e9;
  EXPECT_NEAR(peakFractionAt(matmul, 2510.8), 0.459, 0.001);
  EXPECT_DOUBLE_EQ(peakFractionAt(matmul, 100), 1) << "never above the peak";
  // A record from before the rate: the dump's fraction as it was.
  matmul.peakFlopsPerSecond = 0;
  EXPECT_DOUBLE_EQ(peakFractionAt(matmul, 2510.8), 0.28);
  // Not bound by FLOPs (a pack): nothing to claim.
  DispatchReport pack = noWinner("pack", {});
  pack.flops = 1e6;
  pack.peakFlopsPerSecond = 466e9;
  EXPECT_DOUBLE_EQ(peakFractionAt(pack, 10), 0);
}

} // namespace
