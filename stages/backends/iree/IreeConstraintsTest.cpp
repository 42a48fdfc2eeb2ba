//===- IreeConstraintsTest.cpp - IREE's own GPU space, solved -------------===//
#include "stages/backends/iree/IreeConstraints.h"
#include "stages/backends/iree/IreeDefaultConfig.h"
#include "stages/backends/iree/TestUtil.h"
#include "stages/search/gpu/Candidates.h"
#include "stages/search/gpu/Problems.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;

namespace {

/// What IREE 3.13 printed for a 2048x1280x1280 f16 matmul on gfx942
/// (fixtures/real-3.13/SOURCES.txt).
std::vector<IreeConstraintSystem> matmulSystems() {
  std::string path =
      iree::testing::testdata("fixtures/real-3.13/constraints_matmul_2048x1280x1280_gfx942.mlir");
  return llvm::cantFail(readIreeConstraints(iree::testing::readTestFile(path), path));
}

TEST(IreeConstraints, ReadsBothPipelinesAndTheirTemplates) {
  std::vector<IreeConstraintSystem> systems = matmulSystems();
  ASSERT_EQ(systems.size(), 2u);
  EXPECT_EQ(systems[0].pipeline, "TileAndFuse");
  EXPECT_EQ(systems[1].pipeline, "VectorDistribute");
  // A knob assignment round-trips through the template.
  IreeConstrainedConfig config;
  config.workgroup = {128, 128, 0};
  config.reduction = {0, 0, 4};
  config.subgroup = {4, 4, 0};
  config.workgroupSize = {256, 1, 1};
  config.subgroupSize = 64;
  config.prefetchStages = 2;
  config.mma = "MFMA_F32_16x16x16_F16";
  std::optional<llvm::StringMap<int64_t>> values = knobValuesOf(systems[0], config);
  ASSERT_TRUE(values.has_value());
  EXPECT_EQ(values->lookup("wg_1"), 128);
  EXPECT_EQ(values->lookup("mma_idx"), 0);
  IreeConstrainedConfig back = fillKnobs(systems[0], *values);
  EXPECT_EQ(back.workgroup, config.workgroup);
  EXPECT_EQ(back.subgroup, config.subgroup);
  EXPECT_EQ(back.mma, config.mma);
  EXPECT_TRUE(llvm::cantFail(admits(systems[0], *values)));
  // A workgroup tile that does not divide M is refused by IREE.
  (*values)["wg_0"] = 96;
  EXPECT_FALSE(llvm::cantFail(admits(systems[0], *values)));
}

TEST(IreeConstraints, EveryRetuneConfigIsOneIreeAccepts) {
  std::vector<IreeConstraintSystem> systems = matmulSystems();
  gpu::GpuTarget target = llvm::cantFail(gpu::loadKnownTarget("gfx942"));
  Problem p = matmulProblem(2048, 1280, 1280, /*transposedB=*/false,
                            {"f16", "f32", "gfx942"});
  const gpu::Pipeline pipelines[] = {gpu::Pipeline::TileAndFuse, gpu::Pipeline::VectorDistribute};
  for (auto [system, pipeline] : llvm::zip(systems, pipelines)) {
    std::vector<gpu::GpuConfig> configs =
        llvm::cantFail(gpu::enumerateConfigs(p, target, pipeline, {}));
    ASSERT_FALSE(configs.empty());
    // Every 40th config: one check costs a Z3 solve (~20 ms); the whole
    // set is compared in docs/gpu-search.md.
    size_t admitted = 0, checked = 0;
    for (size_t i = 0; i < configs.size(); i += 40, ++checked) {
      gpu::Candidate candidate;
      candidate.config = configs[i];
      std::optional<llvm::StringMap<int64_t>> values =
          knobValuesOf(system, constrainedConfigOf(candidate));
      ASSERT_TRUE(values.has_value());
      admitted += llvm::cantFail(admits(system, *values));
    }
    EXPECT_EQ(admitted, checked) << system.pipeline;
  }
}

TEST(IreeConstraints, SolutionsAreConfigsIreeAccepts) {
  // A few of IREE's own solutions (the whole set takes about a minute;
  // docs/gpu-search.md compares it with Retune's), each read back through
  // the template and admitted again.
  for (const IreeConstraintSystem &system : matmulSystems()) {
    IreeConstraintSpace space = llvm::cantFail(solveSystem(system, 4));
    ASSERT_EQ(space.configs.size(), 4u) << system.pipeline;
    EXPECT_TRUE(space.truncated);
    for (const IreeConstrainedConfig &config : space.configs) {
      EXPECT_EQ(config.workgroup.size(), 3u);
      std::optional<llvm::StringMap<int64_t>> values = knobValuesOf(system, config);
      ASSERT_TRUE(values.has_value());
      EXPECT_TRUE(llvm::cantFail(admits(system, *values))) << system.pipeline;
    }
  }
}

} // namespace

namespace {

/// IREE 3.13 on a 2x34x34x1280 NHWC conv for gfx942: its IGEMM constraints
/// say `prefetch_num_stages == 0 (use_igemm_convolution=true)`, and the
/// config IREE itself picks is an IGEMM one with two stages. The candidates
/// stage drops constraints that refuse IREE's own config.
TEST(IreeConstraints, IreesIgemmConstraintsRefuseIreesOwnConvConfig) {
  std::string path =
      iree::testing::testdata("fixtures/real-3.13/constraints_conv_2x34x34x1280_gfx942.mlir");
  std::string text = iree::testing::readTestFile(path);
  std::vector<IreeConstraintSystem> systems = llvm::cantFail(readIreeConstraints(text, path));
  ASSERT_EQ(systems.size(), 3u);
  gpu::CompilerChoice own = llvm::cantFail(readGpuCompilerChoice(text, path));
  EXPECT_EQ(own.useIgemm, true);
  EXPECT_EQ(own.prefetchStages, 2);
  IreeConstrainedConfig config = constrainedConfigOf(own);
  const IreeConstraintSystem &igemm = systems[1]; // TileAndFuse on the IGEMM loops
  std::optional<llvm::StringMap<int64_t>> values = knobValuesOf(igemm, config);
  ASSERT_TRUE(values.has_value());
  EXPECT_FALSE(llvm::cantFail(admits(igemm, *values)));
  (*values)["prefetch_num_stages"] = 0;
  EXPECT_TRUE(llvm::cantFail(admits(igemm, *values)));
}

} // namespace
