//===- IreeDefaultConfigTest.cpp ------------------------------------------===//
#include "stages/backends/iree/IreeDefaultConfig.h"
#include "stages/backends/iree/TestUtil.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;

namespace {

// What IREE 3.13 printed (--compile-to=executable-configurations) for the
// ViT decoder's data-tiled ConvTranspose on this CPU, trimmed to the lines
// read: a fill with a vector-only config, then the root op.
constexpr const char *kConfigured = R"(
  func.func @conv() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<Mmt4dTilingExpert>>} {
    %7 = linalg.fill {lowering_config = #iree_cpu.lowering_config<vector_common_parallel = [1, 1, 1, 16, 16]>} ins(%cst : f32) outs(%6 : tensor<1x8x64x64x16xf32>) -> tensor<1x8x64x64x16xf32>
    %8 = linalg.generic {indexing_maps = [], iterator_types = []} ins(%3, %4) outs(%7) attrs = {lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 32, 0, 0, 0, 0, 0, 0], vector_common_parallel = [1, 1, 1, 16, 0, 0, 0, 16, 0], vector_reduction = [0, 0, 0, 0, 1, 1, 1, 0, 16]>} {
)";

Problem conv() {
  Problem p;
  p.loopRanges = {1, 8, 64, 64, 16, 4, 4, 16, 16};
  p.iteratorTypes = {"parallel",  "parallel",  "parallel",
                     "parallel",  "reduction", "reduction",
                     "reduction", "parallel",  "reduction"};
  p.elementTypes = {"f32", "f32", "f32"};
  return p;
}

/// The root config IREE 3.13 printed for a recorded dispatch,
/// `testdata/fixtures/<name>/configured.mlir`.
llvm::Expected<IreeRootConfig> fixtureConfig(llvm::StringRef name) {
  std::string path =
      iree::testing::testdata(("fixtures/" + name + "/configured.mlir").str());
  return readRootConfig(iree::testing::readTestFile(path), path);
}

TEST(IreeDefaultConfig, ReadsTheRootOpsConfig) {
  llvm::Expected<IreeRootConfig> config = readRootConfig(kConfigured, "c.mlir");
  ASSERT_TRUE(static_cast<bool>(config)) << llvm::toString(config.takeError());
  EXPECT_EQ(config->distribution,
            (llvm::SmallVector<int64_t>{0, 1, 32, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(config->vectorParallel[3], 16);
  EXPECT_FALSE(config->hasCacheLevel);
  EXPECT_EQ(config->translationInfo,
            "#iree_codegen.translation_info<pipeline = "
            "#iree_cpu.pipeline<Mmt4dTilingExpert>>");
  std::string info =
      compilationInfoWith(*config, {{0, 2, 16, 0, 0, 0, 0, 0, 0}, {}, 0});
  EXPECT_NE(info.find("lowering_config = #iree_cpu.lowering_config<"
                      "distribution = [0, 2, 16, 0, 0, 0, 0, 0, 0], "
                      "vector_common_parallel = [1, 1, 1, 16, 0, 0, 0, 16, 0]"),
            std::string::npos)
      << info;
  info = compilationInfoWith(*config, {config->distribution,
                                       {1, 1, 2, 8, 0, 0, 0, 16, 0}, 0});
  EXPECT_NE(info.find("distribution = [0, 1, 32, 0, 0, 0, 0, 0, 0], "
                      "vector_common_parallel = [1, 1, 2, 8, 0, 0, 0, 16, 0], "
                      "vector_reduction = [0, 0, 0, 0, 1, 1, 1, 0, 16]>"),
            std::string::npos)
      << info;
  EXPECT_NE(info.find(", translation_info = #iree_codegen.translation_info<"),
            std::string::npos);
}

TEST(IreeDefaultConfig, VariantsStayNearIreesTileAndInsideTheLoops) {
  IreeRootConfig config = *readRootConfig(kConfigured, "c.mlir");
  std::vector<DistributionVariant> variants =
      distributionVariants(config, conv(), 100, 32768);
  ASSERT_FALSE(variants.empty());
  // Register tiles first, IREE's workgroup tiles kept: a divisor of the
  // workgroup tile within 4x of IREE's register tile, with half to twice
  // IREE's elements (16 x 16 = 256 on loops 3 and 7).
  size_t registerCount = 0;
  for (const DistributionVariant &v : variants) {
    if (v.vectorParallel.empty())
      break;
    ++registerCount;
    EXPECT_EQ(v.distribution, config.distribution);
    EXPECT_NE(v.vectorParallel, config.vectorParallel);
    int64_t elements = 1;
    for (size_t i : {0, 1, 2, 3, 7})
      elements *= v.vectorParallel[i];
    EXPECT_GE(elements, 128);
    EXPECT_LE(elements, 512);
    for (size_t i : {4, 5, 6, 8})
      EXPECT_EQ(v.vectorParallel[i], config.vectorParallel[i]);
    EXPECT_EQ(32 % v.vectorParallel[2], 0);
    EXPECT_LE(v.vectorParallel[3], 64);
  }
  ASSERT_GT(registerCount, 0u);
  ASSERT_LT(registerCount, variants.size());
  EXPECT_LE(variants.front().cost, 1.0);
  for (size_t n = 1; n < registerCount; ++n)
    EXPECT_LE(variants[n - 1].cost, variants[n].cost);
  // Then workgroup tiles.
  variants.erase(variants.begin(), variants.begin() + registerCount);
  for (const DistributionVariant &v : variants) {
    EXPECT_TRUE(v.vectorParallel.empty());
    EXPECT_NE(v.distribution, config.distribution);
    // Reduction loops are never distributed; a tile never exceeds its loop
    // and is a multiple of IREE's vector tile (16 on loop 3).
    for (size_t i : {4, 5, 6, 8})
      EXPECT_EQ(v.distribution[i], 0);
    EXPECT_LE(v.distribution[2], 64);
    EXPECT_EQ(v.distribution[3] % 16, 0);
  }
  // One step away from IREE's tile comes first.
  EXPECT_DOUBLE_EQ(variants.front().cost, 1.0);
  EXPECT_EQ(distributionVariants(config, conv(), 3, 32768).size(), 3u);
}

TEST(IreeDefaultConfig, WorkgroupsAndTheWorkersTheyKeepBusy) {
  IreeRootConfig config = *readRootConfig(kConfigured, "c.mlir");
  // [0, 1, 32, ...] on loops of 8 and 64: 8 x 2 workgroups; reduction loops
  // and tiles of 0 add none.
  EXPECT_EQ(workgroupCount(conv(), config.distribution), 16);
  EXPECT_EQ(workgroupCount(conv(), {0, 0, 0, 0, 0, 0, 0, 0, 0}), 1);
  EXPECT_EQ(workgroupCount(conv(), {1, 3, 64, 16, 4, 1, 1, 0, 1}), 3 * 4);
  EXPECT_DOUBLE_EQ(workerBalance(1, 2), 0.5);
  EXPECT_DOUBLE_EQ(workerBalance(3, 2), 0.75);
  EXPECT_DOUBLE_EQ(workerBalance(4, 2), 1.0);
  EXPECT_DOUBLE_EQ(workerBalance(7, 1), 1.0);
  // 16 and more on 2 workers are reserved 8 at a time: 25 is 8 + 8 against
  // 8 + 1, 50 is 3 x 8 + 2 against 3 x 8, 80 is 5 x 8 each.
  EXPECT_DOUBLE_EQ(workerBalance(25, 2), 12.5 / 16);
  EXPECT_DOUBLE_EQ(workerBalance(50, 2), 25.0 / 26);
  EXPECT_DOUBLE_EQ(workerBalance(80, 2), 1.0);
  EXPECT_DOUBLE_EQ(workerBalance(5, 2), 2.5 / 3);
  EXPECT_DOUBLE_EQ(workerBalance(15, 2), 7.5 / 8);
}

TEST(IreeDefaultConfig, OnSeveralWorkersBalancedWorkgroupsComeFirst) {
  IreeRootConfig config = *readRootConfig(kConfigured, "c.mlir");
  // IREE's 16 workgroups keep 3 workers 16/18 busy.
  std::vector<DistributionVariant> one =
      distributionVariants(config, conv(), 100, 32768, /*workers=*/1);
  std::vector<DistributionVariant> three =
      distributionVariants(config, conv(), 100, 32768, /*workers=*/3);
  ASSERT_EQ(one.size(), three.size());
  double own = workerBalance(16, 3);
  auto balance = [](const DistributionVariant &v) {
    return workerBalance(workgroupCount(conv(), v.distribution), 3);
  };
  auto firstWorse = llvm::find_if(
      three, [&](const DistributionVariant &v) { return balance(v) < own; });
  ASSERT_NE(firstWorse, three.end()) << "the test needs a worse variant";
  for (auto it = firstWorse; it != three.end(); ++it)
    EXPECT_LT(balance(*it), own);
  // The same variants, reordered; each group keeps its order.
  EXPECT_FALSE(llvm::equal(one, three, [](const DistributionVariant &a,
                                          const DistributionVariant &b) {
    return a.distribution == b.distribution &&
           a.vectorParallel == b.vectorParallel;
  }));
}

TEST(IreeDefaultConfig, ATransposeTriesSquareRegisterTilesFirst) {
  // IREE 3.13's config for the PP-OCRv4 detector's 24x410881 transpose.
  IreeRootConfig config;
  config.distribution = {24, 64};
  config.vectorParallel = {16, 16};
  Problem p;
  p.kind = OpKind::Elementwise;
  p.loopRanges = {24, 410881};
  p.iteratorTypes = {"parallel", "parallel"};
  p.elementTypes = {"f32", "f32"};
  p.dimRoles = "vv";
  std::vector<DistributionVariant> variants =
      distributionVariants(config, p, 100, 32768);
  ASSERT_GE(variants.size(), 2u);
  EXPECT_EQ(variants[0].vectorParallel, (llvm::SmallVector<int64_t>{8, 8}));
  EXPECT_EQ(variants[1].vectorParallel, (llvm::SmallVector<int64_t>{4, 4}));
  EXPECT_EQ(variants[0].distribution, config.distribution);
  for (size_t i = 2; i < variants.size(); ++i)
    EXPECT_NE(variants[i].vectorParallel, variants[0].vectorParallel);
  // Not a transpose (one vector loop): no square tiles first.
  p.dimRoles = "pv";
  variants = distributionVariants(config, p, 100, 32768);
  ASSERT_FALSE(variants.empty());
  EXPECT_NE(variants[0].vectorParallel, (llvm::SmallVector<int64_t>{8, 8}));
}

TEST(IreeDefaultConfig, APackedWindowCopyTriesContiguousStoresFirst) {
  // IREE 3.13's config for the ViT decoder's im2col into a pack stored as
  // [h, w/8, c, kh, kw, 8, 1]: workgroups of [32, 4, 4, 32, 32] in the
  // generic's own loop order, each store far from the last.
  llvm::Expected<IreeRootConfig> config = fixtureConfig("im2col-pack");
  ASSERT_TRUE(bool(config)) << llvm::toString(config.takeError());
  EXPECT_EQ(config->distribution,
            (llvm::SmallVector<int64_t>{32, 4, 4, 32, 32}));
  EXPECT_EQ(config->storeOrder, (llvm::SmallVector<unsigned>{3, 4, 0, 1, 2}));
  Problem p;
  p.kind = OpKind::Elementwise;
  p.loopRanges = {128, 4, 4, 128, 128};
  p.iteratorTypes.assign(5, "parallel");
  p.elementTypes = {"f32", "f32"};
  p.dimRoles = "ppppv";
  std::vector<DistributionVariant> variants =
      distributionVariants(*config, p, 4, 32768);
  ASSERT_EQ(variants.size(), 4u);
  // One h row, one register of w, every (c, kh, kw): 64 KB stored in one
  // run, first with a register tile of the whole window (kh, kw: 128
  // elements stored in one run), then with IREE's; then the whole w row.
  EXPECT_EQ(variants[0].distribution,
            (llvm::SmallVector<int64_t>{128, 4, 4, 1, 8}));
  EXPECT_EQ(variants[0].vectorParallel,
            (llvm::SmallVector<int64_t>{1, 4, 4, 1, 8}));
  EXPECT_EQ(variants[1].distribution,
            (llvm::SmallVector<int64_t>{128, 4, 4, 1, 8}));
  EXPECT_TRUE(variants[1].vectorParallel.empty());
  EXPECT_EQ(variants[2].distribution,
            (llvm::SmallVector<int64_t>{128, 4, 4, 1, 128}));
  // Without the pack the op keeps the other families.
  config->storeOrder.clear();
  EXPECT_NE(distributionVariants(*config, p, 4, 32768).front().distribution,
            variants[0].distribution);
}

TEST(IreeDefaultConfig, AnElementwiseOpBetweenDataTilesTriesWholeTilesFirst) {
  // IREE 3.13's config for the ViT's GELU after data tiling: it reads an
  // unpack of 8x8 tiles and writes a pack of 8x1 tiles, vectorized at the
  // pack's [8, 1].
  llvm::Expected<IreeRootConfig> config = fixtureConfig("gelu-unpack-pack");
  ASSERT_TRUE(bool(config)) << llvm::toString(config.takeError());
  EXPECT_EQ(config->vectorParallel, (llvm::SmallVector<int64_t>{8, 1}));
  EXPECT_EQ(config->dataTiles, (llvm::SmallVector<int64_t>{8, 8}));
  Problem p;
  p.kind = OpKind::Elementwise;
  p.loopRanges = {257, 1536};
  p.iteratorTypes.assign(2, "parallel");
  p.elementTypes = {"f32", "f32", "f32"};
  p.dimRoles = "pv";
  p.rootDag = "(the body reads a constant)";
  std::vector<DistributionVariant> variants =
      distributionVariants(*config, p, 6, 32768);
  ASSERT_EQ(variants.size(), 6u);
  // 257 rows in register tiles of 8 leave a remainder: each variant peeled
  // and as it was, IREE's own tiles peeled third.
  // Whole 8x8 tiles in IREE's workgroups, then in a row of tiles.
  for (unsigned i : {0, 1}) {
    EXPECT_EQ(variants[i].vectorParallel, (llvm::SmallVector<int64_t>{8, 8}));
    EXPECT_EQ(variants[i].distribution, (llvm::SmallVector<int64_t>{64, 64}));
    EXPECT_EQ(variants[i].peel, i == 0);
  }
  EXPECT_TRUE(variants[2].peel);
  EXPECT_EQ(variants[2].distribution, config->distribution);
  EXPECT_TRUE(variants[2].vectorParallel.empty());
  EXPECT_EQ(variants[3].vectorParallel, (llvm::SmallVector<int64_t>{8, 8}));
  EXPECT_EQ(variants[3].distribution, (llvm::SmallVector<int64_t>{8, 0}));
  // A pack alone (no unpack read) is the store-order family's.
  config->dataTiles.clear();
  EXPECT_NE(distributionVariants(*config, p, 6, 32768).front().vectorParallel,
            variants[0].vectorParallel);
}

TEST(IreeDefaultConfig, AnUnalignedReductionTriesPeeledLoopsFirst) {
  // IREE 3.13's config for the ViT's attention softmax: rows of 257 reduced
  // in register tiles of 16, which IREE lowers with masked vectors.
  llvm::Expected<IreeRootConfig> config = fixtureConfig("softmax-unaligned");
  ASSERT_TRUE(bool(config)) << llvm::toString(config.takeError());
  EXPECT_EQ(config->vectorReduction, (llvm::SmallVector<int64_t>{0, 0, 16}));
  Problem p;
  p.kind = OpKind::Elementwise;
  p.loopRanges = {6, 257, 257};
  p.iteratorTypes = {"parallel", "parallel", "reduction"};
  p.elementTypes = {"f32", "f32", "f32"};
  p.dimRoles = "pvk";
  p.rootDag = "(a softmax)";
  ASSERT_TRUE(peelingHelps(*config, p));
  std::vector<DistributionVariant> variants =
      distributionVariants(*config, p, 3, 32768);
  ASSERT_EQ(variants.size(), 3u);
  // The first variant peeled and as it was, then IREE's own tiles peeled.
  EXPECT_TRUE(variants[0].peel);
  EXPECT_FALSE(variants[1].peel);
  EXPECT_EQ(variants[0].distribution, variants[1].distribution);
  EXPECT_NE(variants[0].distribution, config->distribution);
  EXPECT_EQ(variants[2].distribution, config->distribution);
  EXPECT_TRUE(variants[2].peel);
  EXPECT_NE(compilationInfoWith(*config, variants[0])
                .find("translation_info = #iree_codegen.translation_info<"
                      "pipeline = #iree_cpu.pipeline<DoubleTilingExpert>, "
                      "{enable_loop_peeling}>>"),
            std::string::npos)
      << compilationInfoWith(*config, variants[0]);
  EXPECT_EQ(compilationInfoWith(*config, variants[1]).find("peeling"),
            std::string::npos);

  // Rows that the register tiles divide, or a pipeline that peels already,
  // leave nothing to peel.
  p.loopRanges = {6, 256, 256};
  EXPECT_FALSE(peelingHelps(*config, p));
  EXPECT_FALSE(distributionVariants(*config, p, 3, 32768).front().peel);
  p.loopRanges = {6, 257, 257};
  config->translationInfo = "#iree_codegen.translation_info<pipeline = "
                            "#iree_cpu.pipeline<DoubleTilingExpert>, "
                            "{enable_loop_peeling}>";
  EXPECT_FALSE(peelingHelps(*config, p));
  // A config dictionary gets the option beside its entries.
  config->translationInfo = "#iree_codegen.translation_info<pipeline = "
                            "#iree_cpu.pipeline<DoubleTilingExpert>, {}>";
  DistributionVariant peeled{config->distribution, {}, 0, /*peel=*/true};
  EXPECT_NE(compilationInfoWith(*config, peeled).find(", {enable_loop_peeling}>>"),
            std::string::npos);
}

/// The ViT's pack of its attention probabilities (6x257x257 f32) as IREE's
/// library reads it: `rowTiles` tiles of rows, the source's rows walked
/// by the lane loop.
Problem attentionProbabilitiesPack(int64_t rowTiles) {
  Problem p;
  p.kind = OpKind::Elementwise;
  p.opName = "linalg.pack";
  p.loopRanges = {6, rowTiles, 257};
  p.iteratorTypes.assign(3, "parallel");
  p.elementTypes = {"f32", "f32"};
  p.dimRoles = "ppv";
  p.rootDag = "(matched by its types)";
  return p;
}

TEST(IreeDefaultConfig, APackGatheringRowsTriesRegistersAlongThemFirst) {
  // IREE 3.13's config for the ViT's pack of its attention probabilities
  // (6x257x257 f32 into 6x33x257x8x1): one 8x1 tile a vector.
  llvm::Expected<IreeRootConfig> config = fixtureConfig("pack-rows");
  ASSERT_TRUE(bool(config)) << llvm::toString(config.takeError());
  EXPECT_EQ(config->distribution, (llvm::SmallVector<int64_t>{2, 33, 1}));
  EXPECT_EQ(config->vectorParallel, (llvm::SmallVector<int64_t>{1, 1, 1}));
  Problem p = attentionProbabilitiesPack(33);
  std::vector<DistributionVariant> variants =
      distributionVariants(*config, p, 4, 32768);
  ASSERT_EQ(variants.size(), 4u);
  // A register of source elements along each row: whole rows, then IREE's
  // workgroups rounded up to it, then with the rows whole.
  for (unsigned i = 0; i < 3; ++i)
    EXPECT_EQ(variants[i].vectorParallel,
              (llvm::SmallVector<int64_t>{1, 1, 8}));
  EXPECT_EQ(variants[0].distribution, (llvm::SmallVector<int64_t>{1, 1, 0}));
  EXPECT_EQ(variants[1].distribution, (llvm::SmallVector<int64_t>{2, 33, 8}));
  EXPECT_EQ(variants[2].distribution, (llvm::SmallVector<int64_t>{2, 33, 0}));
  // The pack is the root, not a layout around it: no store-order family.
  EXPECT_TRUE(config->storeOrder.empty());
  // Without a lane loop (the innermost dim tiled already) IREE's variants.
  p.dimRoles = "ppp";
  EXPECT_NE(distributionVariants(*config, p, 4, 32768).front().vectorParallel,
            variants[0].vectorParallel);
}

TEST(IreeDefaultConfig, APackWhoseWorkgroupsNarrowItsRegisterTileTriesWiderOnes) {
  // IREE 3.13's config for the same pack into 16x1 tiles (Zen 4, with
  // microkernels): a register tile of 16 along the rows, but workgroups one
  // column wide, so each vector still gathers one column of 16 rows.
  llvm::Expected<IreeRootConfig> config = fixtureConfig("pack-rows-avx512");
  ASSERT_TRUE(bool(config)) << llvm::toString(config.takeError());
  EXPECT_EQ(config->distribution, (llvm::SmallVector<int64_t>{2, 17, 1}));
  EXPECT_EQ(config->vectorParallel, (llvm::SmallVector<int64_t>{1, 1, 16}));
  Problem p = attentionProbabilitiesPack(17);
  std::vector<DistributionVariant> variants =
      distributionVariants(*config, p, 4, 32768);
  ASSERT_GE(variants.size(), 3u);
  // IREE's register tile is wider than a 32-byte register and stays; the
  // workgroups widen to hold it.
  for (unsigned i = 0; i < 3; ++i)
    EXPECT_EQ(variants[i].vectorParallel,
              (llvm::SmallVector<int64_t>{1, 1, 16}));
  EXPECT_EQ(variants[0].distribution, (llvm::SmallVector<int64_t>{1, 1, 0}));
  EXPECT_EQ(variants[1].distribution, (llvm::SmallVector<int64_t>{2, 17, 16}));
  EXPECT_EQ(variants[2].distribution, (llvm::SmallVector<int64_t>{2, 17, 0}));
  // On 2 workers whole rows (102 workgroups) keep both 94% busy, IREE's 771
  // workgroups 99.6%: busy enough to stay first.
  EXPECT_EQ(distributionVariants(*config, p, 4, 32768, /*workers=*/2)
                .front()
                .distribution,
            (llvm::SmallVector<int64_t>{1, 1, 0}));
  // Workgroups as wide as the register tile: nothing to widen.
  config->distribution = {2, 17, 16};
  for (const DistributionVariant &v : distributionVariants(*config, p, 4, 32768))
    EXPECT_NE(v.distribution, (llvm::SmallVector<int64_t>{1, 1, 0}));
}

TEST(IreeDefaultConfig, ACacheLevelBoundsTheResultTile) {
  IreeRootConfig config = *readRootConfig(kConfigured, "c.mlir");
  config.hasCacheLevel = true;
  for (const DistributionVariant &v :
       distributionVariants(config, conv(), 1000, 32768)) {
    // Register variants keep IREE's own workgroup tile.
    if (!v.vectorParallel.empty())
      continue;
    int64_t bytes = 4;
    for (size_t i : {0, 1, 2, 3, 7})
      bytes *= v.distribution[i] ? v.distribution[i] : conv().loopRanges[i];
    EXPECT_LE(bytes, 32768);
  }
}

TEST(IreeDefaultConfig, NoDistributionIsAnError) {
  llvm::Expected<IreeRootConfig> none = readRootConfig(
      "#iree_cpu.lowering_config<vector_common_parallel = [1]>", "x.mlir");
  ASSERT_FALSE(static_cast<bool>(none));
  EXPECT_NE(llvm::toString(none.takeError()).find("x.mlir"), std::string::npos);
}

// iree-compile 3.13 --compile-to=executable-configurations of a 2048x1280x1280
// f16 matmul for --iree-cuda-target=sm_80 (fixtures/real-3.13/SOURCES.txt).
TEST(IreeDefaultConfig, ReadsIreesGpuChoiceFromTheRealOutput) {
  std::string path = iree::testing::testdata("fixtures/real-3.13/executable_configurations_cuda_sm80.mlir");
  gpu::CompilerChoice choice =
      llvm::cantFail(readGpuCompilerChoice(iree::testing::readTestFile(path), path));
  EXPECT_EQ(choice.mma, "NV_MMA_SYNC_F32_16x8x16_F16");
  EXPECT_EQ(choice.workgroup, (llvm::SmallVector<int64_t>{64, 64, 0}));
  EXPECT_EQ(choice.reduction, (llvm::SmallVector<int64_t>{0, 0, 8}));
  EXPECT_EQ(choice.subgroup, (llvm::SmallVector<int64_t>{2, 4, 0}));
  EXPECT_EQ(choice.prefetchStages, 2);
  EXPECT_TRUE(choice.convertAccGemm);
  EXPECT_EQ(choice.pipeline, "TileAndFuse");
  EXPECT_EQ(choice.workgroupSize, (llvm::SmallVector<int64_t>{128, 1, 1}));
  EXPECT_EQ(choice.subgroupSize, 32);
  EXPECT_EQ(choice.useIgemm, false);
}

TEST(IreeDefaultConfig, NoGpuConfigIsAnError) {
  llvm::Expected<gpu::CompilerChoice> choice = readGpuCompilerChoice(kConfigured, "cpu.mlir");
  ASSERT_FALSE(static_cast<bool>(choice));
  EXPECT_NE(toString(choice.takeError()).find("cpu.mlir: IREE set no GPU lowering_config"),
            std::string::npos);
}

} // namespace
