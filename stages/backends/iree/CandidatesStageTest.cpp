//===- CandidatesStageTest.cpp - The iree candidates stage's spaces -------===//
#include "stages/backends/iree/CandidatesStage.h"
#include "stages/backends/iree/TestUtil.h"

#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;
using namespace retune::iree::testing;

namespace {

/// The candidates' configs the stage wrote for a recorded dispatch.
std::vector<llvm::json::Object> candidateConfigs(llvm::StringRef fixture,
                                                 unsigned count,
                                                 unsigned workers = 1) {
  CandidatesOptions options;
  // [tune] threads reaches the stage as the bench device's worker count.
  options.iree.deviceFlags = {"--task_topology_group_count=" +
                              std::to_string(workers)};
  options.iree.version = "3.13.0";
  // IREE's own config of a data-tiled matmul comes from its configuring
  // compile: the project's IREE where it is installed.
  std::string bin = RETUNE_PROJECT_VENV_BIN;
  if (llvm::sys::fs::can_execute(bin + "/iree-compile")) {
    options.iree.compile = bin + "/iree-compile";
    options.iree.opt = bin + "/iree-opt";
    options.iree.benchmark = bin + "/iree-benchmark-module";
  }
  options.problemPath = testdata("fixtures/" + fixture.str() + "/problem.json");
  options.dispatchPath =
      testdata("fixtures/" + fixture.str() + "/dispatch.mlir");
  options.outputDir =
      scratchDir("candidates-" + fixture.str() + "-" + std::to_string(workers));
  options.candidateCount = count;
  if (llvm::Error err = runCandidatesStage(options)) {
    ADD_FAILURE() << llvm::toString(std::move(err));
    return {};
  }
  std::string text = readTestFile(options.outputDir + "/index.json");
  llvm::Expected<llvm::json::Value> index = llvm::json::parse(text);
  if (!index) {
    ADD_FAILURE() << llvm::toString(index.takeError());
    return {};
  }
  std::vector<llvm::json::Object> configs;
  if (const llvm::json::Array *candidates =
          index->getAsObject()->getArray("candidates"))
    for (const llvm::json::Value &c : *candidates)
      if (const llvm::json::Object *config =
              c.getAsObject()->getObject("config"))
        configs.push_back(*config);
  return configs;
}

TEST(IreeCandidates, AMatmulWithARhsBeyondL2StreamsItFewTimesFirst) {
  // The ViT decoder's mmt4d 8x2048x2048: a 512 KB LHS and a 134 MB RHS.
  // IREE's own workgroup tile [1, 2] streams the RHS once per M1 tile,
  // eight times; the first candidate takes all of M1 and streams it once.
  std::vector<llvm::json::Object> configs =
      candidateConfigs("mmt4d-large-rhs", 4);
  ASSERT_EQ(configs.size(), 4u);
  EXPECT_EQ(configs[0].getString("pipeline"), "Mmt4dTilingExpert");
  EXPECT_EQ(configs[0].getInteger("distribution_m1"), 8);
  for (const llvm::json::Object &config : configs)
    EXPECT_GE(*config.getInteger("distribution_m1"), 2)
        << "a candidate streams the RHS eight times";
}

TEST(IreeCandidates, AMatmulWithARhsBeyondL2GetsTheGridThatStreamsItLeast) {
  // The MLP's mmt4d 16x64x1024 (16x16x1 tiles: 64 KB panels, a 4 MB RHS),
  // its target renamed a generic x86-64-v4 so that the L2 is CpuHost's
  // default 512 KB on every machine. IREE's own grid [1, 2] streams the RHS
  // once per M1 tile, sixteen times; workgroups of four M1 tiles and up to
  // four N1 tiles keep their LHS rows and RHS panels in the L2 and stream
  // it four times, the fewest of all grids (17 MB). The cost order stays
  // near IREE's grid; the last place goes to such a grid.
  if (!llvm::sys::fs::can_execute(RETUNE_PROJECT_VENV_BIN "/iree-compile"))
    GTEST_SKIP() << "IREE's own grid needs the real iree-compile "
                    "(scripts/setup.sh installs it)";
  std::vector<llvm::json::Object> configs =
      candidateConfigs("mmt4d-l2-rhs", 4);
  ASSERT_EQ(configs.size(), 4u);
  int64_t fewest = INT64_MAX;
  for (const llvm::json::Object &config : configs)
    fewest = std::min(fewest, *config.getInteger("bytes_into_l2"));
  EXPECT_EQ(fewest, 17 << 20);
  const llvm::json::Object &last = configs.back();
  EXPECT_EQ(last.getInteger("bytes_into_l2"), fewest);
  EXPECT_EQ(last.getInteger("distribution_m1"), 4);
  EXPECT_LE(*last.getInteger("distribution_n1"), 4);
}

TEST(IreeCandidates, AMatmulWithARhsInCacheStartsNearIreesWorkgroups) {
  // The ViT's mmt4d 33x192x384 (a 2.4 MB RHS, within the last-level
  // cache): IREE's own workgroup tile is [11, 8]. Workgroups of about eight
  // outer tiles ([11, 1] to [33, 2]) all ran 1.25-1.40x its time; the
  // candidates now start next to it and none takes a single N1 tile.
  if (!llvm::sys::fs::can_execute(RETUNE_PROJECT_VENV_BIN "/iree-compile"))
    GTEST_SKIP() << "IREE's own config needs the real iree-compile "
                    "(scripts/setup.sh installs it)";
  std::vector<llvm::json::Object> configs =
      candidateConfigs("mmt4d-l3-rhs", 4);
  ASSERT_EQ(configs.size(), 4u);
  // The nearest N1 tiles that divide 192, with IREE's M1.
  EXPECT_EQ(configs[0].getInteger("distribution_m1"), 11);
  EXPECT_EQ(configs[0].getInteger("distribution_n1"), 6);
  EXPECT_EQ(configs[1].getInteger("distribution_m1"), 11);
  EXPECT_EQ(configs[1].getInteger("distribution_n1"), 12);
  for (const llvm::json::Object &config : configs) {
    // Beside its own bytes into the L2, IREE's grid's: the model step reads
    // both (readInModelOptions).
    EXPECT_GT(config.getInteger("iree_bytes_into_l2").value_or(0), 0);
    EXPECT_GE(*config.getInteger("distribution_n1"), 4);
    EXPECT_FALSE(config.getInteger("distribution_m1") == 11 &&
                 config.getInteger("distribution_n1") == 8)
        << "IREE's own config is the baseline, not a candidate";
  }
}

TEST(IreeCandidates, OnTwoWorkersEveryContractionCandidateKeepsBothBusy) {
  // MiniLM's batch matmul 128x1536x384 (IREE 3.13's dump, Zen 4). On one
  // worker the CPU space's cheapest config is one workgroup; on two that
  // leaves a worker idle (it ran 1.61x IREE's time there), and so do three
  // workgroups (1.18x): every candidate now makes an even count.
  std::vector<llvm::json::Object> one =
      candidateConfigs("batch-matmul-minilm", 4, /*workers=*/1);
  ASSERT_EQ(one.size(), 4u);
  EXPECT_EQ(one[0].getInteger("workgroups"), 1);
  std::vector<llvm::json::Object> two =
      candidateConfigs("batch-matmul-minilm", 4, /*workers=*/2);
  ASSERT_EQ(two.size(), 4u);
  for (const llvm::json::Object &config : two) {
    std::optional<int64_t> workgroups = config.getInteger("workgroups");
    ASSERT_TRUE(workgroups);
    EXPECT_EQ(*workgroups % 2, 0) << *workgroups << " workgroups on 2 workers";
  }
}

TEST(IreeCandidates, AContractionsRegisterTilesArePowersOfTwo) {
  // The CPU space's cost model ranks [1, 8, 48] second on MiniLM's batch
  // matmul; IREE 3.13 ran it 17-21x slower than its own config.
  std::vector<llvm::json::Object> configs =
      candidateConfigs("batch-matmul-minilm", 8, /*workers=*/1);
  ASSERT_FALSE(configs.empty());
  for (const llvm::json::Object &config : configs) {
    const llvm::json::Array *tiles = config.getArray("register_tiles");
    if (!tiles)
      continue; // IREE's own config varied
    for (const llvm::json::Value &tile : *tiles)
      EXPECT_TRUE(llvm::isPowerOf2_64(*tile.getAsInteger()))
          << *tile.getAsInteger();
  }
}

TEST(IreeCandidates, AContractionTakesTheSpaceAndIreesOwnConfigInTurn) {
  if (!llvm::sys::fs::can_execute(RETUNE_PROJECT_VENV_BIN "/iree-compile"))
    GTEST_SKIP() << "IREE's own config needs the real iree-compile "
                    "(scripts/setup.sh installs it)";
  std::vector<llvm::json::Object> configs =
      candidateConfigs("batch-matmul-minilm", 6, /*workers=*/1);
  ASSERT_EQ(configs.size(), 6u);
  for (size_t i = 0; i < configs.size(); ++i) {
    bool ireeOwn = configs[i].getString("pipeline") == "IREE's own config";
    EXPECT_EQ(ireeOwn, i % 2 == 1) << "candidate " << i;
  }
}

} // namespace
