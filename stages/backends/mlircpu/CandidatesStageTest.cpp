//===- CandidatesStageTest.cpp - retune-candidates with a ranker model ----===//
#include "stages/backends/mlircpu/CandidatesStage.h"
#include "stages/core/Testing.h"

#include "stages/core/Records.h"
#include "stages/search/ranker/RankerTesting.h"

#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace retune;

namespace {

class CandidatesStageTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = test::scratchDir("candidates-test");
    ASSERT_FALSE(dir.empty());
    DispatchEntry entry;
    entry.problem = matmulProblem(128, 128, 128);
    entry.problem.target = host.target();
    entry.id = entry.problem.stableId();
    entry.name = entry.problem.readableName();
    entry.func = "dispatch";
    entry.flops = entry.problem.flops();
    entry.share = 1;
    DispatchIndex index{"model.mlir", entry.flops, {entry}};
    problemPath = (dir + "/problem.json").str();
    ASSERT_FALSE(bool(writeJsonFile(problemPath, toJson(index))));
  }

  /// Runs the stage into `name`/ and reads the index it wrote.
  CandidateIndex run(StringRef name, StringRef model = "",
                     unsigned explore = 0) {
    mlircpu::CandidatesOptions options;
    options.problemPath = problemPath;
    options.outputDir = (dir + "/" + name).str();
    options.candidateCount = 6;
    options.rankerModelPath = model.str();
    options.explore = explore;
    // Each run enumerates: a shared cache would replay another run.
    options.cacheDir = "off";
    EXPECT_FALSE(bool(sys::fs::create_directories(options.outputDir)));
    Error err = mlircpu::runCandidatesStage(options, "retune-candidates");
    EXPECT_FALSE(bool(err)) << toString(std::move(err));
    Expected<CandidateIndex> index =
        readRecord<CandidateIndex>(options.outputDir + "/index.json",
                                   schema::kCandidates, candidateIndexFromJson);
    EXPECT_TRUE(bool(index)) << toString(index.takeError());
    return index ? *index : CandidateIndex{};
  }

  std::string trainModel(unsigned dispatches) {
    Expected<ranker::RankerModel> model =
        ranker::trainRanker(test::syntheticCorpus(dispatches), host);
    EXPECT_TRUE(bool(model));
    std::string path = formatv("{0}/ranker-{1}.json", dir, dispatches).str();
    EXPECT_FALSE(bool(ranker::writeRankerModel(*model, path)));
    return path;
  }

  static std::vector<cpu::CpuConfig> configsOf(const CandidateIndex &index) {
    std::vector<cpu::CpuConfig> configs;
    for (const CandidateEntry &c : index.candidates)
      configs.push_back(cantFail(cpu::cpuConfigFromJson(c.config)));
    return configs;
  }

  cpu::CpuHost host = cpu::detectHost();
  SmallString<128> dir;
  std::string problemPath;
};

TEST_F(CandidatesStageTest, RankerModelOrdersTheCandidates) {
  CandidateIndex heuristic = run("heuristic");
  EXPECT_EQ(heuristic.order, "");
  std::string path = trainModel(10);
  Expected<ranker::RankerModel> model = ranker::readRankerModel(path);
  ASSERT_TRUE(bool(model));
  Problem problem = matmulProblem(128, 128, 128);

  CandidateIndex learned = run("learned", path);
  EXPECT_EQ(learned.order, "learned");
  ASSERT_EQ(learned.candidates.size(), 6u);
  EXPECT_NE(learned.key, heuristic.key);
  // The emitted candidates are in the model's order already. The model
  // reads each config's estimated cost over the best of those it ranks
  // together, and the stage ranked them beside the space's cheapest (the
  // heuristic's first): ranked beside it again, they keep their order.
  std::vector<cpu::CpuConfig> configs = configsOf(learned);
  std::vector<cpu::CpuConfig> withCheapest = configs;
  if (!llvm::is_contained(configs, configsOf(heuristic)[0]))
    withCheapest.push_back(configsOf(heuristic)[0]);
  Expected<ranker::RankedOrder> again =
      ranker::rankConfigs(&*model, problem, host, withCheapest);
  ASSERT_TRUE(bool(again));
  std::vector<size_t> emittedOrder;
  for (size_t i : again->permutation)
    if (i < configs.size())
      emittedOrder.push_back(i);
  for (size_t i = 0; i < emittedOrder.size(); ++i)
    EXPECT_EQ(emittedOrder[i], i);
  // ...and its first is ranked at least as high as the heuristic's first.
  std::vector<cpu::CpuConfig> firsts = {configsOf(heuristic)[0], configs[0]};
  Expected<ranker::RankedOrder> pair =
      ranker::rankConfigs(&*model, problem, host, firsts);
  ASSERT_TRUE(bool(pair));
  if (firsts[0] != firsts[1]) {
    EXPECT_EQ(pair->permutation[0], 1u);
  }

  // Explore keeps the heuristic's best two among them.
  std::vector<cpu::CpuConfig> explored = configsOf(run("explore", path, 2));
  std::vector<cpu::CpuConfig> best = configsOf(heuristic);
  EXPECT_TRUE(llvm::is_contained(explored, best[0]));
  EXPECT_TRUE(llvm::is_contained(explored, best[1]));
}

TEST_F(CandidatesStageTest, ThinModelKeepsTheHeuristicOrder) {
  CandidateIndex heuristic = run("heuristic");
  CandidateIndex thin = run("thin", trainModel(5));
  EXPECT_EQ(thin.order, "heuristic");
  EXPECT_NE(thin.orderWhy.find("5 dispatches"), std::string::npos)
      << thin.orderWhy;
  EXPECT_EQ(configsOf(thin), configsOf(heuristic));
}

} // namespace
