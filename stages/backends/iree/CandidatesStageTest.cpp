//===- CandidatesStageTest.cpp - The iree candidates stage's spaces -------===//
#include "stages/backends/iree/CandidatesStage.h"
#include "stages/backends/iree/TestUtil.h"

#include "stages/support/FileUtil.h"

#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;
using namespace retune::iree::testing;

namespace {

/// The candidates' configs the stage wrote for a recorded dispatch.
std::vector<llvm::json::Object> candidateConfigs(llvm::StringRef fixture,
                                                 unsigned count) {
  CandidatesOptions options;
  options.iree.version = "3.13.0";
  options.problemPath = testdata("fixtures/" + fixture.str() + "/problem.json");
  options.dispatchPath =
      testdata("fixtures/" + fixture.str() + "/dispatch.mlir");
  options.outputDir = scratchDir("candidates-" + fixture.str());
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

} // namespace
