#include "stages/search/cpu/CpuSpace.h"

#include "stages/core/ProblemBuilder.h"
#include "stages/search/cpu/CpuChecker.h"
#include "stages/search/cpu/CpuCostModel.h"

#include "gtest/gtest.h"

#include <set>

using namespace retune;
using namespace retune::cpu;

namespace {

/// The shapes of stages/core/ProblemBuilder.h on this test's CPU.
const ShapeOptions kZnver4{"f32", "f32", "cpu:znver4"};

Problem matmul(int64_t m, int64_t n, int64_t k) {
  return matmulProblem(m, n, k, /*transposedB=*/false, kZnver4);
}

Problem matmulTransposedB(int64_t m, int64_t n, int64_t k) {
  return matmulProblem(m, n, k, /*transposedB=*/true, kZnver4);
}

Problem batchMatmul(int64_t b, int64_t m, int64_t n, int64_t k) {
  return batchMatmulProblem(b, m, n, k, kZnver4);
}

/// linalg.conv_2d_nhwc_hwcf, stride 1: loops n, oh, ow, f, kh, kw, c.
Problem conv(int64_t n, int64_t oh, int64_t ow, int64_t f, int64_t kh,
             int64_t kw, int64_t c) {
  return convNhwcHwcfProblem(n, oh, ow, f, kh, kw, c, kZnver4);
}

CpuHost avx512Host() {
  CpuHost host;
  host.cpuName = "znver4";
  host.vectorBits = 512;
  host.vectorRegisters = 32;
  host.l1Bytes = 48 * 1024;
  host.l2Bytes = 1024 * 1024;
  host.l3Bytes = 32 * 1024 * 1024;
  host.cores = 2;
  return host;
}

CpuHost avx2Host() {
  CpuHost host = avx512Host();
  host.cpuName = "haswell";
  host.vectorBits = 256;
  host.vectorRegisters = 16;
  host.l1Bytes = 32 * 1024;
  host.l2Bytes = 256 * 1024;
  return host;
}

CpuSpaceOptions withThreads(unsigned threads) {
  CpuSpaceOptions options;
  options.threads = threads;
  return options;
}

CpuSpaceResult enumerate(const Problem &p, const CpuHost &host,
                         const CpuSpaceOptions &options = {}) {
  Expected<CpuSpaceResult> result = enumerateCpuSpace(p, host, options);
  if (!result) {
    ADD_FAILURE() << toString(result.takeError());
    return {};
  }
  return std::move(*result);
}

/// Error text of checkCpuConfig, "" when valid.
std::string violation(const Problem &p, const CpuHost &host,
                      const CpuSpaceOptions &options, const CpuConfig &c) {
  Error err = checkCpuConfig(p, host, options, c);
  return err ? toString(std::move(err)) : "";
}

/// A matmul config (loops m, n, k) from its knobs.
CpuConfig mm(int64_t mr, int64_t nr, bool nOuter, unsigned unroll = 1,
             SmallVector<int64_t> outer = {0, 0, 0}, int64_t kc = 0,
             unsigned threads = 1) {
  CpuConfig c;
  c.outerTiles = outer;
  c.threads = threads;
  c.reductionTiles = {0, 0, kc};
  c.registerTiles = {mr, nr, 1};
  if (nOuter)
    c.registerInterchange = {1, 0, 2};
  c.kUnroll = unroll;
  return c;
}

int64_t product(ArrayRef<int64_t> values) {
  int64_t p = 1;
  for (int64_t v : values)
    p *= v;
  return p;
}

} // namespace

TEST(CpuSpaceTest, EverySolutionPassesTheChecker) {
  CpuHost host = avx512Host();
  std::vector<Problem> problems = {
      matmul(1024, 1024, 1024), matmulTransposedB(1024, 1024, 1024),
      batchMatmul(16, 256, 256, 256), conv(1, 56, 56, 64, 3, 3, 64),
      matmul(96, 80, 50)};
  for (const Problem &p : problems) {
    for (unsigned threads : {1u, 2u}) {
      CpuSpaceOptions options = withThreads(threads);
      CpuSpaceResult result = enumerate(p, host, options);
      SCOPED_TRACE(p.readableName() + " threads " + std::to_string(threads));
      ASSERT_GT(result.totalSolutions, 0u);
      EXPECT_EQ(result.ranked.size(), result.totalSolutions);
      std::set<std::string> seen;
      double previous = 0;
      for (const RankedConfig &rc : result.ranked) {
        EXPECT_EQ(violation(p, host, options, rc.config), "");
        EXPECT_GE(rc.cost, previous);
        previous = rc.cost;
        EXPECT_DOUBLE_EQ(rc.cost, estimateCost(p, host, rc.config));
        std::string key;
        llvm::raw_string_ostream os(key);
        os << llvm::json::Value(toJson(rc.config));
        EXPECT_TRUE(seen.insert(key).second) << "duplicate " << key;
      }
    }
  }
}

TEST(CpuSpaceTest, HandCountedSmallMatmul) {
  // matmul 16x32x8 f32, AVX-512 (16 lanes, 32 registers), one thread.
  // Operands (16*8 + 8*32) * 4 = 1.5 KiB fit L2: no cache tiles.
  //   nv=1 (nr=16): mr in {1,2,4,8,16} (mr+2 <= 32)          5
  //   nv=2 (nr=32): mr in {1,2,4,8}    (2mr+3 <= 32)          4
  //   n-outer order: needs both register loops to iterate:
  //     nv=1, mr in {1,2,4,8} (16/mr > 1, 32/16 > 1)           4
  //     nv=2: 32/32 = 1 iteration: none                         0
  //   = 13 register choices x k-unroll {1,2,4,8} (all divide 8) = 52.
  CpuSpaceResult result = enumerate(matmul(16, 32, 8), avx512Host());
  EXPECT_EQ(result.totalSolutions, 52u);
}

TEST(CpuSpaceTest, HandCountedSmallConv) {
  // conv_2d_nhwc_hwcf n=1 oh=4 ow=4 f=32 kh=kw=3 c=8, AVX-512, one thread.
  //   wr in divisors(4) = {1,2,4}, fr in {16,32} (nv 1, 2): pressure is
  //   at most 4*2+2+1 = 11 registers: 6 register tiles, one loop order,
  //   x k-unroll {1,2,4,8} (all divide c=8) = 24; no cache tiles for convs.
  CpuSpaceResult result = enumerate(conv(1, 4, 4, 32, 3, 3, 8), avx512Host());
  EXPECT_EQ(result.totalSolutions, 24u);
  for (const RankedConfig &rc : result.ranked) {
    EXPECT_TRUE(rc.config.decompose);
    EXPECT_TRUE(rc.config.registerInterchange.empty());
  }
}

TEST(CpuSpaceTest, HandCountedThreads) {
  // matmul 16x32x8 with threads = 2: the 52 single-thread configs plus
  // forall configs. Per register tile (mr, nr) the forall tiles are
  // tm in {0} U tileChoices(16, mr), tn in {0} U tileChoices(32, nr), not
  // both 0; tile counts are powers of two >= 2 whenever a tile is set, so
  // every pair except (0, 0) shares evenly:
  //   nr=16: tn choices {16}       -> 2 options for tn
  //     mr=1: tm {1,2,4,8} -> 5*2-1 = 9;  mr=2: {2,4,8} -> 7;
  //     mr=4: {4,8} -> 5;  mr=8: {8} -> 3;  mr=16: {} -> 1
  //   nr=32: tn choices {}         -> 1 option
  //     mr=1: 4; mr=2: 3; mr=4: 2; mr=8: 1
  // Register orders double the nr=16, mr<16 rows: (9+7+5+3)*2 + 1 = 49,
  // nr=32: 4+3+2+1 = 10; 59 x 4 unrolls = 236 forall configs.
  CpuSpaceResult result =
      enumerate(matmul(16, 32, 8), avx512Host(), withThreads(2));
  EXPECT_EQ(result.totalSolutions, 52u + 236u);
}

TEST(CpuSpaceTest, EnumerationMatchesBruteForceOverTheChecker) {
  // A host with a tiny cache so that cache and reduction tiles appear.
  CpuHost host = avx512Host();
  host.l1Bytes = 4 * 1024;
  host.l2Bytes = 8 * 1024;
  Problem p = matmul(16, 32, 64);
  for (unsigned threads : {1u, 2u}) {
    CpuSpaceOptions options = withThreads(threads);
    CpuSpaceResult result = enumerate(p, host, options);
    std::set<std::string> enumerated;
    for (const RankedConfig &rc : result.ranked) {
      std::string key;
      llvm::raw_string_ostream os(key);
      os << llvm::json::Value(toJson(rc.config));
      enumerated.insert(key);
    }
    uint64_t valid = 0;
    SmallVector<int64_t> mTiles = {0, 1, 2, 4, 8, 16}, nTiles = {0, 16, 32},
                         kTiles = {0, 8, 16, 32, 64};
    for (int64_t mr : {1, 2, 3, 4, 8, 16, 32})
      for (int64_t nr : {8, 16, 32, 48})
        for (bool nOuter : {false, true})
          for (unsigned unroll : {1u, 2u, 3u, 4u, 8u})
            for (int64_t tm : mTiles)
              for (int64_t tn : nTiles)
                for (int64_t kc : kTiles)
                  for (unsigned t : {1u, 2u}) {
                    CpuConfig c =
                        mm(mr, nr, nOuter, unroll, {tm, tn, 0}, kc, t);
                    if (!violation(p, host, options, c).empty())
                      continue;
                    ++valid;
                    std::string key;
                    llvm::raw_string_ostream os(key);
                    os << llvm::json::Value(toJson(c));
                    EXPECT_TRUE(enumerated.count(key)) << "missing " << key;
                  }
    EXPECT_EQ(valid, result.totalSolutions) << "threads " << threads;
    // The tiny cache makes reduction tiles part of the space.
    EXPECT_TRUE(llvm::any_of(result.ranked, [](const RankedConfig &rc) {
      return rc.config.reductionTiles[2] != 0;
    }));
  }
}

TEST(CpuSpaceTest, InvalidConfigsNameTheRule) {
  CpuHost host = avx512Host();
  Problem p = matmul(1024, 1024, 1024);
  CpuSpaceOptions one;
  auto expectRule = [&](const CpuConfig &c, StringRef rule,
                        const CpuSpaceOptions &options) {
    std::string why = violation(p, host, options, c);
    EXPECT_TRUE(StringRef(why).starts_with(rule)) << "got: '" << why << "'";
  };
  EXPECT_EQ(violation(p, host, one, mm(8, 32, true)), "");
  // 16x32 f32: 32 accumulators + 2 + 1 > 32 registers (pitfall 14).
  expectRule(mm(16, 32, false), "register pressure", one);
  expectRule(mm(48, 16, false), "divisibility", one);
  expectRule(mm(8, 24, false), "vector width", one);
  expectRule(mm(8, 32, false, 3), "unroll", one);
  // kc=512 x nr=128 f32 = 256 KiB panel > 48 KiB L1.
  expectRule(mm(1, 128, false, 1, {0, 0, 0}, 512), "cache fit (L1)", one);
  // 512 x 256 + 256 x 1024 elements * 4 > 1 MiB L2.
  expectRule(mm(8, 32, false, 1, {512, 0, 0}, 256), "cache fit (L2)", one);
  expectRule(mm(8, 32, false, 1, {96, 0, 0}), "cache tile domain", one);
  expectRule(mm(8, 32, false, 1, {0, 0, 0}, 0, 2), "thread tiles",
             withThreads(2));
  expectRule(mm(8, 32, false, 1, {0, 0, 0}, 0, 2), "threads", one);
  CpuConfig kTiled = mm(8, 32, false);
  kTiled.registerTiles[2] = 4;
  expectRule(kTiled, "register tile", one);
  CpuConfig badOrder = mm(8, 32, false);
  badOrder.registerInterchange = {2, 0, 1};
  expectRule(badOrder, "register order", one);
  CpuConfig decomposed = mm(8, 32, false);
  decomposed.decompose = true;
  expectRule(decomposed, "decompose", one);
}

TEST(CpuSpaceTest, CostOrdersTheMeasuredMatmulConfigs) {
  CpuHost host = avx512Host();
  Problem p = matmul(1024, 1024, 1024);
  auto cost = [&](const CpuConfig &c) { return estimateCost(p, host, c); };
  double best = cost(mm(8, 32, true));
  // Measured (GFLOP/s): 8x32 n-outer 100 > 8x32x4-unroll 95 > 4x64 94 >
  // 8x32 m-outer 89 > tiled 66..87 > 16x16 43.
  EXPECT_LT(best, cost(mm(8, 32, true, 4)));
  EXPECT_LT(best, cost(mm(4, 64, true)));
  EXPECT_LT(cost(mm(4, 64, true)), cost(mm(8, 32, false)));
  EXPECT_LT(best, cost(mm(16, 16, true)));
  EXPECT_LT(best, cost(mm(16, 16, false, 1, {128, 256, 0}, 256)));
  double c1 = cost(mm(8, 32, false, 1, {128, 256, 0}, 256));
  double c2 = cost(mm(8, 32, false, 1, {64, 128, 0}, 128));
  double c3 = cost(mm(8, 32, false, 1, {256, 512, 0}, 128));
  for (double tiled : {c1, c2, c3})
    EXPECT_LT(best, tiled);
  EXPECT_LT(c3, c2);
  EXPECT_LT(c1, c2);
  EXPECT_LT(c1, cost(mm(16, 16, false, 1, {128, 256, 0}, 256)));

  // The whole space: 8x32 n-outer comes first, above every tiled variant.
  CpuSpaceResult result = enumerate(p, host);
  ASSERT_FALSE(result.ranked.empty());
  EXPECT_EQ(result.ranked.front().config, mm(8, 32, true));
  for (const RankedConfig &rc : result.ranked) {
    if (rc.config.reductionTiles[2] || rc.config.outerTiles[0] ||
        rc.config.outerTiles[1]) {
      EXPECT_LT(best, rc.cost);
    }
  }
}

TEST(CpuSpaceTest, ConvCostPrefersTheMeasuredBest) {
  Problem p = conv(1, 56, 56, 64, 3, 3, 64);
  CpuSpaceResult result = enumerate(p, avx512Host());
  ASSERT_FALSE(result.ranked.empty());
  const CpuConfig &top = result.ranked.front().config;
  EXPECT_EQ(top.registerTiles, (SmallVector<int64_t>{1, 1, 14, 16, 1, 1, 1}));
  EXPECT_TRUE(top.decompose);
}

TEST(CpuSpaceTest, Avx2HostUsesEightLanesAndSixteenRegisters) {
  CpuHost host = avx2Host();
  for (const Problem &p : {matmul(1024, 1024, 1024), matmul(96, 80, 50)}) {
    CpuSpaceResult result = enumerate(p, host);
    ASSERT_GT(result.totalSolutions, 0u);
    for (const RankedConfig &rc : result.ranked) {
      int64_t mr = rc.config.registerTiles[0], nr = rc.config.registerTiles[1];
      EXPECT_EQ(nr % 8, 0);
      EXPECT_LE(mr * (nr / 8) + nr / 8 + 1, 16);
    }
  }
}

TEST(CpuSpaceTest, ThreadsGiveForallConfigsThatShareEvenly) {
  CpuHost host = avx512Host();
  for (const Problem &p :
       {matmul(1024, 1024, 1024), batchMatmul(16, 256, 256, 256),
        conv(1, 56, 56, 64, 3, 3, 64)}) {
    CpuSpaceResult result = enumerate(p, host, withThreads(2));
    bool sawOne = false, sawTwo = false;
    for (const RankedConfig &rc : result.ranked) {
      if (rc.config.threads == 1) {
        sawOne = true;
        continue;
      }
      sawTwo = true;
      EXPECT_EQ(rc.config.threads, 2u);
      SmallVector<int64_t> counts;
      for (auto [dim, tile] : llvm::enumerate(rc.config.outerTiles))
        if (tile)
          counts.push_back(p.loopRanges[dim] / tile);
      ASSERT_FALSE(counts.empty());
      EXPECT_EQ(product(counts) % 2, 0);
    }
    EXPECT_TRUE(sawOne);
    EXPECT_TRUE(sawTwo);
    // Two threads on two cores: the cheapest config is a forall one.
    EXPECT_EQ(result.ranked.front().config.threads, 2u);
  }
}

TEST(CpuSpaceTest, UnsupportedProblemsSayWhy) {
  CpuHost host = avx512Host();
  auto expectError = [&](const Problem &p, StringRef needle) {
    Expected<CpuSpaceResult> result = enumerateCpuSpace(p, host, {});
    ASSERT_FALSE(static_cast<bool>(result));
    std::string why = toString(result.takeError());
    EXPECT_NE(why.find(p.readableName()), std::string::npos) << why;
    EXPECT_NE(why.find(needle.str()), std::string::npos) << why;
  };
  Problem attention = matmul(64, 64, 64);
  attention.kind = OpKind::Attention;
  expectError(attention, "attention");
  Problem noN = ProblemBuilder(OpKind::Contraction, "linalg.matvec")
                    .loops("mk", {64, 64})
                    .input({"d0", "d1"}, "f32")
                    .input({"d1"}, "f32")
                    .init({"d0"}, "f32")
                    .target("cpu:znver4")
                    .build();
  expectError(noN, "without an 'n' loop");
  Problem dynamic = matmul(64, 64, 64);
  dynamic.loopRanges[0] = INT64_MIN;
  expectError(dynamic, "dynamic");
  Problem complex = matmul(64, 64, 64);
  complex.elementTypes = {"complex<f32>", "complex<f32>", "complex<f32>"};
  expectError(complex, "element type 'complex<f32>'");
  Problem nchw = conv(1, 56, 56, 64, 3, 3, 64);
  nchw.opName = "linalg.conv_2d_nchw_fchw";
  expectError(nchw, "conv_2d_nhwc_hwcf");
  expectError(matmul(64, 50, 64), "masking");
  EXPECT_TRUE(static_cast<bool>(checkCpuConfig(attention, host, {}, {})));
}

TEST(CpuSpaceTest, OddSizesUseDividingTiles) {
  Problem p = matmul(96, 80, 50);
  CpuSpaceResult result = enumerate(p, avx512Host(), withThreads(2));
  ASSERT_GT(result.totalSolutions, 0u);
  for (const RankedConfig &rc : result.ranked) {
    EXPECT_EQ(96 % rc.config.registerTiles[0], 0);
    EXPECT_EQ(80 % rc.config.registerTiles[1], 0);
    EXPECT_EQ(50 % rc.config.kUnroll, 0u);
  }
}

namespace {

/// A ranked config that tiles the outer dims and reduction dims given.
RankedConfig withStrategy(SmallVector<int64_t> outer,
                          SmallVector<int64_t> reduction, double cost) {
  RankedConfig ranked;
  ranked.config.outerTiles = std::move(outer);
  ranked.config.reductionTiles = std::move(reduction);
  ranked.cost = cost;
  return ranked;
}

TEST(CpuSpaceTest, CandidatesSpreadAcrossBlockingStrategies) {
  // The heuristic's order: unblocked configs first (as on a host whose L3 it
  // overrates), the first with a reduction tile at rank 6.
  std::vector<RankedConfig> ranked = {
      withStrategy({0, 64, 0}, {0, 0, 0}, 1.0),
      withStrategy({0, 64, 0}, {0, 0, 0}, 1.1),
      withStrategy({8, 0, 0}, {0, 0, 0}, 1.2),
      withStrategy({0, 32, 0}, {0, 0, 0}, 1.3),
      withStrategy({8, 0, 0}, {0, 0, 0}, 1.4),
      withStrategy({128, 64, 0}, {0, 0, 0}, 1.5),
      withStrategy({0, 256, 0}, {0, 0, 256}, 1.6),
      withStrategy({0, 256, 0}, {0, 0, 256}, 1.7)};
  // The best unblocked and blocked, then the heuristic's next and the next
  // strategy's first in turn ({8,0,0} at rank 2, {0,32,0}... at rank 5).
  EXPECT_EQ(spreadAcrossStrategies(ranked, 6),
            (std::vector<size_t>{0, 6, 1, 2, 3, 5}));
  // A smaller count is a prefix: growing it only adds candidates.
  EXPECT_EQ(spreadAcrossStrategies(ranked, 2), (std::vector<size_t>{0, 6}));
  EXPECT_EQ(spreadAcrossStrategies(ranked, 1), (std::vector<size_t>{0}));
  EXPECT_EQ(spreadAcrossStrategies(ranked, 20).size(), ranked.size());
  // One strategy only: the heuristic's order unchanged.
  ranked.resize(2);
  EXPECT_EQ(spreadAcrossStrategies(ranked, 2), (std::vector<size_t>{0, 1}));
}

} // namespace
