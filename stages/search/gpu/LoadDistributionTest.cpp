//===- LoadDistributionTest.cpp - IREE's promoted-read layout rule --------===//
#include "stages/search/gpu/LoadDistribution.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::gpu;

namespace {

TEST(LoadDistribution, ElementTilesFollowIree) {
  // 128-bit pieces of f16: 8 elements, unless one thread's share is less.
  EXPECT_EQ(deriveElementTile({128, 32}, 256, 16), (SmallVector<int64_t>{1, 8}));
  EXPECT_EQ(deriveElementTile({16, 16}, 256, 16), (SmallVector<int64_t>{1, 1}));
  EXPECT_EQ(deriveElementTile({64, 16}, 256, 16), (SmallVector<int64_t>{1, 4}));
  // A short inner dim collapses whole outer dims into the vector.
  EXPECT_EQ(deriveElementTile({2, 4}, 1, 16), (SmallVector<int64_t>{2, 4}));
  EXPECT_EQ(deriveElementTile({3, 4}, 1, 16), (SmallVector<int64_t>{1, 4}));
  // Uneven trips: the plain vector size.
  EXPECT_EQ(deriveElementTile({3, 40}, 64, 16), (SmallVector<int64_t>{1, 8}));
  // Misaligned: unit tiles.
  EXPECT_EQ(deriveElementTile({64, 12}, 64, 16), (SmallVector<int64_t>{1, 1}));
}

TEST(LoadDistribution, ThreadLayouts) {
  // [128, 32] f16 over 256 threads: [128, 4] pieces, 4 threads per row,
  // 64 rows at a time.
  EXPECT_TRUE(promotedReadDistributes({128, 32}, 256, 16));
  // [48, 64] f16 over 256 threads: [48, 8] pieces, 8 threads per row leave
  // 32, which neither divides 48 nor is divided by it: IREE's "failed to
  // derive layout for promoted read-like op".
  EXPECT_FALSE(promotedReadDistributes({48, 64}, 256, 16));
  EXPECT_TRUE(promotedReadDistributes({1, 1, 48, 64}, 64, 16));
  // An inner dim that is not a multiple of the vector (uneven trips).
  EXPECT_FALSE(promotedReadDistributes({3, 12}, 64, 16));
}

/// The Model formula agrees with the literal rule on every small tile.
TEST(LoadDistribution, FormulaMatchesTheLiteralRule) {
  for (int64_t bits : {8, 16, 32}) {
    Model md;
    SmallVector<int64_t> sizes = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 80, 96, 128, 160, 256, 512};
    Expr outer = md.addVarIn("outer", sizes);
    Expr inner = md.addVarIn("inner", sizes);
    Expr threads = md.addVarIn("threads", {32, 64, 128, 192, 256, 320, 384, 512, 640, 1024});
    md.require(promotedReadDistributes(md, outer, inner, threads, bits), "loads distribute");
    size_t accepted = 0;
    for (int64_t o : sizes)
      for (int64_t i : sizes)
        for (int64_t t : {32, 64, 128, 192, 256, 320, 384, 512, 640, 1024}) {
          bool expected = promotedReadDistributes({o, i}, t, bits);
          bool got = md.satisfies({o, i, t});
          ASSERT_EQ(got, expected) << "[" << o << ", " << i << "] over " << t << " threads, "
                                   << bits << "-bit";
          accepted += expected;
        }
    // Both outcomes occur, so the comparison means something.
    EXPECT_GT(accepted, 0u);
    EXPECT_LT(accepted, sizes.size() * sizes.size() * 10);
  }
}

TEST(LoadDistribution, OperandTileShapes) {
  auto map = parseIndexingMap("affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 + d5, d6)>");
  ASSERT_TRUE(map.has_value() && map->allSums());
  ASSERT_EQ(map->results.size(), 4u);
  // Tiles: b 1, oh 1, ow 32, oc 64, fh 1, fw 1, ic 16.
  EXPECT_EQ(operandTileShape(map->results, {1, 1, 32, 64, 1, 1, 16}), (SmallVector<int64_t>{1, 1, 32, 16}));
  EXPECT_EQ(operandTileShape(map->results, {1, 4, 32, 64, 1, 1, 16}), (SmallVector<int64_t>{1, 7, 32, 16}));
}

} // namespace
