#include "stages/core/Problem.h"

#include "stages/core/Testing.h"

using namespace retune;

using retune::test::matmulProblem;

TEST(ProblemTest, IdDependsOnIdentifyingFieldsOnly) {
  Problem a = matmulProblem(64, 64, 64), b = matmulProblem(64, 64, 64);
  EXPECT_EQ(a.stableId(), b.stableId());
  b.loopRanges[2] = 128;
  EXPECT_NE(a.stableId(), b.stableId());
  Problem c = matmulProblem(64, 64, 64);
  c.indexingMaps[1] = "affine_map<(d0, d1, d2) -> (d1, d2)>";
  EXPECT_NE(a.stableId(), c.stableId());
  Problem d = matmulProblem(64, 64, 64);
  d.target = "cpu:other";
  EXPECT_NE(a.stableId(), d.stableId());
}

TEST(ProblemTest, FlopsAndRoles) {
  Problem p = matmulProblem(8, 16, 32);
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 8 * 16 * 32);
  EXPECT_EQ(p.extentOf('m'), 8);
  EXPECT_EQ(p.extentOf('k'), 32);
  EXPECT_EQ(p.extentOf('b'), 1);
  EXPECT_EQ(p.readableName(), "matmul_8x16x32_f32");
}

TEST(ProblemTest, JsonRoundTrip) {
  Problem p = matmulProblem(8, 16, 32);
  Expected<Problem> back = problemFromJson(toJson(p));
  ASSERT_TRUE(static_cast<bool>(back)) << toString(back.takeError());
  EXPECT_EQ(back->stableId(), p.stableId());
  EXPECT_EQ(back->dimRoles, "mnk");
}
