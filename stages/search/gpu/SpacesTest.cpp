//===- SpacesTest.cpp - Constraint systems, engines and the checker -------===//
#include "stages/search/gpu/Candidates.h"
#include "stages/search/gpu/Checker.h"
#include "stages/search/gpu/LoadDistribution.h"
#include "stages/search/gpu/Problems.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::gpu;

namespace {

GpuTarget gfx942() { return cantFail(loadKnownTarget("gfx942")); }

std::vector<GpuConfig> configsOf(const Problem &p, Pipeline pipeline,
                                 GpuSearchOptions options = {}) {
  GpuTarget target = cantFail(loadKnownTarget(p.target));
  Expected<std::vector<GpuConfig>> configs = enumerateConfigs(p, target, pipeline, options);
  EXPECT_TRUE(bool(configs)) << toString(configs.takeError());
  return configs ? *configs : std::vector<GpuConfig>{};
}

/// Every configuration passes the independent checker.
void expectAllValid(const Problem &p, Pipeline pipeline, size_t minCount) {
  GpuTarget target = cantFail(loadKnownTarget(p.target));
  std::vector<GpuConfig> configs = configsOf(p, pipeline);
  EXPECT_GE(configs.size(), minCount) << p.readableName();
  for (const GpuConfig &config : configs) {
    Error e = checkConfig(p, target, config);
    ASSERT_FALSE(bool(e)) << p.readableName() << " " << toString(pipeline).str() << ": "
                          << toString(std::move(e)) << "\n"
                          << emitCompilationInfo(Candidate{config});
  }
}

TEST(Spaces, ContractionSolutionsPassTheChecker) {
  // VectorDistribute has no solution for two of them, by rule, and must
  // have some for the others: an empty space is a defect, not a pass.
  // 5369 rows are not a multiple of any intrinsic (VectorDistribute needs
  // aligned shapes; TileAndFuse pads), and an i8 K of 16 is too short for
  // gfx942's i8 intrinsics under VectorDistribute (the same i8 matmul has
  // 8 solutions at K = 32).
  struct Case {
    Problem problem;
    size_t minVectorDistribute;
  };
  for (const Case &c : {Case{makeMatmul(1024, 1280, 1280), 1},
                        Case{makeMatmul(256, 512, 128), 1},
                        Case{makeMatmul(5369, 112, 112), 0},
                        Case{makeMatmul(64, 64, 16, "i8", "i32"), 0},
                        Case{makeMatmul(512, 512, 512, "f16", "f32", "gfx1100"), 1},
                        Case{makeMatmul(512, 256, 256, "bf16", "f32", "gfx950"), 1}}) {
    expectAllValid(c.problem, Pipeline::VectorDistribute, c.minVectorDistribute);
    if (c.minVectorDistribute == 0) {
      EXPECT_TRUE(configsOf(c.problem, Pipeline::VectorDistribute).empty())
          << c.problem.readableName();
    }
    expectAllValid(c.problem, Pipeline::TileAndFuse, 1);
  }
}

TEST(Spaces, NvidiaGetsTileAndFuseWithMmaSyncOnly) {
  // What IREE 3.13 compiles for sm_80: TileAndFuse with the 16x8x16
  // MMA_SYNC intrinsics (VectorDistribute crashes, NV_WMMA fails under
  // TileAndFuse); M and N take the intrinsic's own sizes.
  GpuTarget target = sm80Target();
  EXPECT_TRUE(target.isNvidia());
  EXPECT_FALSE(gfx942().isNvidia());
  for (const Problem &p : {makeMatmul(2048, 1280, 1280, "f16", "f32", "sm_80"),
                           makeMatmul(5369, 112, 112, "f16", "f32", "sm_80"),
                           makeConvNhwcHwcf(2, 32, 32, 256, 3, 3, 128)}) {
    Expected<std::vector<GpuConfig>> vd =
        enumerateConfigs(p, target, Pipeline::VectorDistribute, {});
    ASSERT_TRUE(bool(vd)) << toString(vd.takeError());
    EXPECT_TRUE(vd->empty()) << p.readableName();
    Expected<std::vector<GpuConfig>> tf =
        enumerateConfigs(p, target, Pipeline::TileAndFuse, {});
    ASSERT_TRUE(bool(tf)) << toString(tf.takeError());
    EXPECT_FALSE(tf->empty()) << p.readableName();
    for (const GpuConfig &config : *tf) {
      EXPECT_TRUE(StringRef(config.mma->name).starts_with("NV_MMA_SYNC"));
      EXPECT_EQ(config.subgroupSize, 32);
      Error e = checkConfig(p, target, config);
      ASSERT_FALSE(bool(e)) << p.readableName() << ": " << toString(std::move(e));
    }
  }
  GpuSearchOptions options;
  options.pipelines = {Pipeline::TileAndFuse};
  options.maxCandidates = 4;
  Expected<CandidateSet> set = generateCandidates(
      makeMatmul(2048, 1280, 1280, "f16", "f32", "sm_80"), target, options);
  ASSERT_TRUE(bool(set)) << toString(set.takeError());
  ASSERT_FALSE(set->candidates.empty());
  for (const Candidate &c : set->candidates)
    EXPECT_EQ(c.compilationInfo.find("amdgpu"), std::string::npos) << c.compilationInfo;
}

TEST(Spaces, ConvolutionSolutionsPassTheChecker) {
  Problem conv = makeConvNhwcHwcf(2, 32, 32, 256, 3, 3, 128);
  expectAllValid(conv, Pipeline::VectorDistribute, 1);
  expectAllValid(conv, Pipeline::TileAndFuse, 1);
  Problem odd = makeConvNhwcHwcf(1, 15, 15, 40, 3, 3, 24);
  expectAllValid(odd, Pipeline::TileAndFuse, 1);
}

TEST(Spaces, AttentionSolutionsPassTheChecker) {
  expectAllValid(makeAttention(4, 1024, 64, 64, 1024), Pipeline::VectorDistribute, 1);
  expectAllValid(makeAttention(2, 256, 128, 128, 512, "f16", "gfx1201"), Pipeline::VectorDistribute, 1);
  EXPECT_TRUE(configsOf(makeAttention(4, 1024, 64, 64, 1024), Pipeline::TileAndFuse).empty());
}

TEST(Spaces, VectorDistributeHandCount) {
  // 64x64x16 f16 -> f32 on gfx942 (subgroup 64), workgroup [threads, 1, 1].
  // MFMA_F32_32x32x8_F16: k must be a multiple of 32 but K = 16: none.
  // MFMA_F32_16x16x16_F16: k = 16; m, n in {16, 32, 64}.
  //   threads = 64 * sg_m * sg_n must be <= m or <= n, so one subgroup and
  //   m or n is 64: (64, 16), (64, 32), (64, 64), (16, 64), (32, 64).
  //   Every [m, 16] and [n, 16] tile loads over 64 threads (e.g. [16, 16]:
  //   4-element pieces, 4 threads per row, 16 rows).
  // Total 5.
  EXPECT_EQ(configsOf(makeMatmul(64, 64, 16), Pipeline::VectorDistribute).size(), 5u);
}

TEST(Spaces, VectorDistributeLoadsDistribute) {
  // 96x256x256 f16, MFMA_F32_16x16x16_F16: m = 48, n = 256, k = 64 on 1 x 4
  // subgroups (256 threads) meets every divisibility rule of IREE's own
  // constraints, but the [48, 64] LHS tile is [48, 8] pieces of 8: 8
  // threads per row leave 32, and 48 rows neither divide nor are divided by
  // 32, so IREE fails with "failed to derive layout for promoted read-like
  // op". It is not emitted, and the checker names the rule.
  Problem p = makeMatmul(96, 256, 256);
  std::vector<GpuConfig> configs = configsOf(p, Pipeline::VectorDistribute);
  ASSERT_FALSE(configs.empty());
  const GpuConfig *base = nullptr;
  for (const GpuConfig &c : configs) {
    EXPECT_EQ(c.workgroupSize[1], 1);
    EXPECT_TRUE(promotedReadDistributes({c.tileM, c.tileK}, c.workgroupSize[0], 16));
    EXPECT_FALSE(c.tileM == 48 && c.tileN == 256 && c.tileK == 64 && c.sgNCount == 4);
    if (c.mma->m == 16)
      base = &c;
  }
  ASSERT_NE(base, nullptr);
  GpuConfig bad = *base;
  bad.workgroup = {48, 256, 0};
  bad.reduction = {0, 0, 64};
  bad.basisCounts = {1, 4, 1};
  bad.workgroupSize = {256, 1, 1};
  bad.sgMCount = 1, bad.sgNCount = 4;
  bad.tileM = 48, bad.tileN = 256, bad.tileK = 64;
  Error e = checkConfig(p, gfx942(), bad);
  ASSERT_TRUE(bool(e));
  EXPECT_NE(toString(std::move(e)).find("promoted operand 0"), std::string::npos);
}

TEST(Spaces, TileAndFuseHandCount) {
  // 16x16x16 f16 -> f32 on gfx942; dims <= 32 get no over-padding.
  // MFMA_F32_16x16x16_F16: m = n = 16, one K intrinsic; the subgroup tiles
  //   and counts must multiply to 1: 1 solution, no padding.
  // MFMA_F32_32x32x8_F16: M and N pad to 32 (m = n = 32), K = 16 holds 2
  //   intrinsics, so the K tile is 1 or 2: 2 solutions, both padded.
  std::vector<GpuConfig> configs = configsOf(makeMatmul(16, 16, 16), Pipeline::TileAndFuse);
  ASSERT_EQ(configs.size(), 3u);
  size_t padded = llvm::count_if(configs, [](const GpuConfig &c) { return !c.padding.empty(); });
  EXPECT_EQ(padded, 2u);
}

TEST(Spaces, UnalignedShapesGetTileAndFuseThroughPadding) {
  Problem p = makeMatmul(5369, 112, 112);
  EXPECT_TRUE(configsOf(p, Pipeline::VectorDistribute).empty());
  std::vector<GpuConfig> configs = configsOf(p, Pipeline::TileAndFuse);
  ASSERT_FALSE(configs.empty());
  for (const GpuConfig &c : configs) {
    ASSERT_FALSE(c.padding.empty());
    // Over-padding: 5369 -> 5376 (multiple of 128), 112 -> 128.
    EXPECT_EQ(5376 % c.padding[0], 0);
    EXPECT_EQ(128 % c.padding[1], 0);
  }
}

TEST(Spaces, ConvolutionStrategies) {
  Problem conv = makeConvNhwcHwcf(2, 32, 32, 256, 3, 3, 128);
  GpuSearchOptions igemm;
  igemm.convStrategy = ConvStrategy::Igemm;
  for (const GpuConfig &c : configsOf(conv, Pipeline::TileAndFuse, igemm)) {
    ASSERT_EQ(c.useIgemm, std::optional<bool>(true));
    EXPECT_EQ(c.workgroup.size(), 5u); // b, oh, ow, oc, K = 3*3*128
  }
  GpuSearchOptions direct;
  direct.convStrategy = ConvStrategy::Direct;
  std::vector<GpuConfig> directConfigs = configsOf(conv, Pipeline::TileAndFuse, direct);
  ASSERT_FALSE(directConfigs.empty());
  for (const GpuConfig &c : directConfigs) {
    ASSERT_EQ(c.useIgemm, std::optional<bool>(false));
    EXPECT_EQ(c.reduction[4], 1); // filter loops
    EXPECT_EQ(c.workgroup[4], 0);
  }
  // A strided convolution has no direct space.
  Problem strided = conv;
  strided.indexingMaps[0] = "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d6)>";
  EXPECT_TRUE(configsOf(strided, Pipeline::TileAndFuse, direct).empty());
  // Unaligned channels: IGEMM pads and maps the padding back to conv dims.
  Problem odd = makeConvNhwcHwcf(1, 15, 15, 40, 3, 3, 24);
  std::vector<GpuConfig> oddConfigs = configsOf(odd, Pipeline::TileAndFuse, igemm);
  ASSERT_FALSE(oddConfigs.empty());
  for (const GpuConfig &c : oddConfigs) {
    ASSERT_EQ(c.paddingConv.size(), 7u);
    EXPECT_EQ(c.paddingConv[3], c.padding[3]);
  }
}

TEST(Spaces, NumSubgroupsIsExact) {
  GpuSearchOptions options;
  options.numSubgroups = 4;
  std::vector<GpuConfig> configs = configsOf(makeMatmul(1024, 1280, 1280), Pipeline::TileAndFuse, options);
  ASSERT_FALSE(configs.empty());
  for (const GpuConfig &c : configs)
    EXPECT_EQ(c.sgMCount * c.sgNCount, 4);
}

/// All engines agree on the solution set (order aside).
void expectEnginesAgree(const Problem &p, Pipeline pipeline) {
  GpuTarget target = cantFail(loadKnownTarget(p.target));
  auto spaces = buildSpaces(p, target, pipeline, GpuSearchOptions());
  ASSERT_TRUE(bool(spaces));
  for (const Space &space : *spaces) {
    auto reference = cantFail(solveAll(space.model, Engine::Lattice));
    llvm::sort(reference);
    for (Engine engine : {Engine::Z3Blocking, Engine::Z3Incremental, Engine::LatticeZ3}) {
      auto solutions = solveAll(space.model, engine);
      ASSERT_TRUE(bool(solutions)) << toString(solutions.takeError());
      llvm::sort(*solutions);
      EXPECT_EQ(*solutions, reference) << space.label << " with " << toString(engine).str();
      for (const auto &solution : *solutions) {
        std::string why;
        EXPECT_TRUE(space.model.satisfies(solution, &why)) << why;
      }
    }
  }
}

TEST(Engines, AgreeOnSmallSpaces) {
  expectEnginesAgree(makeMatmul(64, 64, 16), Pipeline::VectorDistribute);
  expectEnginesAgree(makeMatmul(128, 64, 64), Pipeline::VectorDistribute);
  expectEnginesAgree(makeMatmul(48, 40, 24), Pipeline::TileAndFuse);
  expectEnginesAgree(makeConvNhwcHwcf(1, 4, 16, 32, 3, 3, 16), Pipeline::VectorDistribute);
  expectEnginesAgree(makeAttention(1, 64, 64, 64, 64), Pipeline::VectorDistribute);
}

TEST(Engines, ModelBasics) {
  Model md;
  Expr x = md.addVarIn("x", {1, 2, 3, 4, 6, 12});
  Expr y = md.addVar("y", 1, 12, false);
  md.define(y, md.div(md.c(12), x));
  md.require(md.eq(md.mul(x, y), md.c(12)), "x * y == 12");
  md.require(md.le(x, y), "x <= y");
  for (Engine engine : {Engine::Lattice, Engine::Z3Blocking, Engine::Z3Incremental, Engine::LatticeZ3}) {
    auto solutions = cantFail(solveAll(md, engine));
    llvm::sort(solutions);
    ASSERT_EQ(solutions.size(), 3u) << toString(engine).str(); // (1,12) (2,6) (3,4)
    EXPECT_EQ(solutions[1], (SmallVector<int64_t>{2, 6}));
  }
}

TEST(Spaces, MalformedProblemIsAnError) {
  Problem p = makeMatmul(64, 64, 64);
  p.dimRoles = "mn";
  EXPECT_FALSE(bool(enumerateConfigs(p, gfx942(), Pipeline::TileAndFuse, {})));
}

} // namespace
