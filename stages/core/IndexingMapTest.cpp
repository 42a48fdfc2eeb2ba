//===- IndexingMapTest.cpp ------------------------------------------------===//
#include "stages/core/IndexingMap.h"

#include <gtest/gtest.h>

using namespace retune;

TEST(IndexingMapTest, PlainLoopsAndExpressions) {
  std::optional<IndexingMap> map = parseIndexingMap(
      "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 + d5 + 1, d6)>");
  ASSERT_TRUE(map.has_value());
  EXPECT_EQ(map->numLoops, 7u);
  EXPECT_EQ(map->resultLoops(), (SmallVector<int>{0, -1, -1, 6}));
  EXPECT_TRUE(map->allSums());
  using Terms = SmallVector<std::pair<unsigned, int64_t>>;
  EXPECT_EQ(map->results[1].terms, (Terms{{1, 2}, {4, 1}}));
  // The constant addend changes no tile's extent.
  EXPECT_EQ(map->results[2].terms, (Terms{{2, 1}, {5, 1}}));
  EXPECT_FALSE(map->isIdentity());
}

TEST(IndexingMapTest, AnyLoopNamesAndTheWrapperOptional) {
  std::optional<IndexingMap> map = parseIndexingMap("(m, n, k) -> (k, m)", 3);
  ASSERT_TRUE(map.has_value());
  EXPECT_EQ(map->resultLoops(), (SmallVector<int>{2, 0}));
  EXPECT_TRUE(parseIndexingMap("affine_map<(d0, d1) -> (d0, d1)>")->isIdentity());
  EXPECT_FALSE(parseIndexingMap("affine_map<(d0, d1) -> (d1, d0)>")->isIdentity());
}

TEST(IndexingMapTest, NotASumIsAnExpressionNotAFailure) {
  std::optional<IndexingMap> map =
      parseIndexingMap("affine_map<(d0, d1) -> (d0 floordiv 2, d1)>");
  ASSERT_TRUE(map.has_value());
  EXPECT_FALSE(map->allSums());
  EXPECT_EQ(map->resultLoops(), (SmallVector<int>{-1, 1}));
}

TEST(IndexingMapTest, NotAMapOrOtherLoopCount) {
  EXPECT_FALSE(parseIndexingMap("tensor<4x4xf32>").has_value());
  EXPECT_FALSE(parseIndexingMap("affine_map<(d0, d1) -> (d0)>", 3).has_value());
  EXPECT_TRUE(parseIndexingMap("affine_map<(d0, d1) -> (d0)>", 2).has_value());
}
