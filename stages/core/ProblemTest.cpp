#include "stages/core/Problem.h"

#include "stages/core/Testing.h"

using namespace retune;

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

TEST(ProblemTest, PackedOperandIsPartOfTheIdAndTheRecord) {
  Problem plain = matmulProblem(64, 64, 64), packed = plain;
  packed.prologue = {{1, "affine_map<(d0, d1) -> (d1, d0)>"}};
  EXPECT_NE(plain.stableId(), packed.stableId());
  EXPECT_EQ(packed.readableName(), "matmul_64x64x64_f32_packed1");
  Expected<Problem> back = problemFromJson(toJson(packed));
  ASSERT_TRUE(static_cast<bool>(back)) << toString(back.takeError());
  EXPECT_EQ(back->prologue, packed.prologue);
  EXPECT_EQ(back->stableId(), packed.stableId());

  // A prologue on an input the op does not have is a damaged record.
  llvm::json::Value bad = toJson(packed);
  (*bad.getAsObject()->getArray("prologue"))[0].getAsObject()->operator[](
      "input") = 5;
  Expected<Problem> rejected = problemFromJson(bad);
  ASSERT_FALSE(static_cast<bool>(rejected));
  EXPECT_NE(toString(rejected.takeError()).find("prologue input 5"),
            std::string::npos);
}
