//===- ProblemBuilderTest.cpp - Problems from loops, roles and operands ---===//
#include "stages/core/ProblemBuilder.h"

#include "stages/core/IndexingMap.h"

#include "gtest/gtest.h"

using namespace retune;

namespace {

TEST(ProblemBuilder, IteratorTypesFollowTheRolesOfTheOpKind) {
  Problem conv = convNhwcHwcfProblem(1, 8, 8, 16, 3, 3, 4);
  EXPECT_EQ(conv.dimRoles, "boofrrc");
  EXPECT_EQ(conv.iteratorTypes,
            (SmallVector<std::string>{"parallel", "parallel", "parallel",
                                      "parallel", "reduction", "reduction",
                                      "reduction"}));
  Problem attention = attentionProblem({2, 10}, 128, 64, 64, 256);
  EXPECT_EQ(attention.dimRoles, "bbmnkl");
  EXPECT_EQ(attention.iteratorTypes.back(), "reduction");
  EXPECT_EQ(attention.iteratorTypes[3], "parallel");
}

TEST(ProblemBuilder, MapsAreWhatAReaderOfIrPrints) {
  Problem mm = matmulProblem(64, 32, 16, /*transposedB=*/true,
                             {"f16", "f32", "gfx942"});
  EXPECT_EQ(mm.indexingMaps,
            (SmallVector<std::string>{"affine_map<(d0, d1, d2) -> (d0, d2)>",
                                      "affine_map<(d0, d1, d2) -> (d1, d2)>",
                                      "affine_map<(d0, d1, d2) -> (d0, d1)>"}));
  EXPECT_EQ(mm.elementTypes, (SmallVector<std::string>{"f16", "f16", "f32"}));
  EXPECT_EQ(mm.numInputs, 2u);
  EXPECT_EQ(mm.target, "gfx942");
  Problem conv = convNhwcHwcfProblem(1, 8, 8, 16, 3, 3, 4);
  EXPECT_EQ(conv.indexingMaps[0], "affine_map<(d0, d1, d2, d3, d4, d5, d6) "
                                  "-> (d0, d1 + d4, d2 + d5, d6)>");
  Problem attention = attentionProblem({2}, 128, 64, 64, 256);
  EXPECT_EQ(attention.numInputs, 4u);
  EXPECT_EQ(attention.indexingMaps[3], "affine_map<(d0, d1, d2, d3, d4) -> ()>");
  // Every map reads as the spaces read it.
  for (const Problem &p : {mm, conv, attention})
    for (const std::string &map : p.indexingMaps)
      EXPECT_TRUE(parseIndexingMap(map, p.loopRanges.size()).has_value()) << map;
}

TEST(ProblemBuilder, AMapOverOtherLoopsIsABug) {
  EXPECT_DEATH(ProblemBuilder(OpKind::Contraction, "linalg.matmul")
                   .loops("mnk", {4, 4, 4})
                   .input({"d0", "d7"}, "f32"),
               "not a map over 3 loops");
  EXPECT_DEATH(ProblemBuilder(OpKind::Contraction, "linalg.matmul")
                   .loops("mnk", {4, 4}),
               "3 roles for 2 loops");
}

TEST(ProblemBuilder, TheSameShapeIsTheSameProblem) {
  EXPECT_EQ(matmulProblem(64, 32, 16).stableId(),
            matmulProblem(64, 32, 16).stableId());
  EXPECT_NE(matmulProblem(64, 32, 16).stableId(),
            matmulProblem(64, 32, 16, /*transposedB=*/true).stableId());
}

} // namespace
