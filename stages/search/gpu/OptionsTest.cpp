//===- OptionsTest.cpp - The [gpu] table and the orderings ----------------===//
#include "stages/search/gpu/Candidates.h"
#include "stages/search/gpu/Options.h"
#include "stages/search/gpu/Ordering.h"
#include "stages/search/gpu/Problems.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::gpu;

namespace {

TEST(Options, DefaultsWithoutTable) {
  Expected<GpuSearchOptions> options = parseGpuOptionsText("[cpu]\nx = 1\n", "tune.toml");
  ASSERT_TRUE(bool(options)) << toString(options.takeError());
  EXPECT_EQ(options->pipelines.size(), 2u);
  EXPECT_EQ(options->prefetchStages, (SmallVector<int64_t>{2}));
  EXPECT_EQ(options->ordering, Ordering::Auto);
}

TEST(Options, ReadsEveryKey) {
  Expected<GpuSearchOptions> options = parseGpuOptionsText(R"([gpu]
pipelines = ["tile_and_fuse"]
prefetch_stages = [2, 3]
no_reduce_shared_memory_bank_conflicts = [true, false]
waves_per_eu = [1, 2, 4]
denormal_flushing = [true, false]
num_subgroups = 4
conv_strategy = "igemm"
order = "shuffle"
seed = 7
engine = "z3-incremental"
max_candidates = 100
)",
                                                           "tune.toml");
  ASSERT_TRUE(bool(options)) << toString(options.takeError());
  EXPECT_EQ(options->pipelines, (SmallVector<Pipeline>{Pipeline::TileAndFuse}));
  EXPECT_EQ(options->prefetchStages, (SmallVector<int64_t>{2, 3}));
  EXPECT_EQ(options->noReduceBankConflicts, (SmallVector<bool>{true, false}));
  EXPECT_EQ(options->wavesPerEu, (SmallVector<int64_t>{1, 2, 4}));
  EXPECT_EQ(options->numSubgroups, 4);
  EXPECT_EQ(options->convStrategy, ConvStrategy::Igemm);
  EXPECT_EQ(options->ordering, Ordering::Shuffle);
  EXPECT_EQ(options->seed, 7u);
  EXPECT_EQ(options->engine, Engine::Z3Incremental);
  EXPECT_EQ(options->maxCandidates, 100u);
}

TEST(Options, UnknownKeyNamesKeyAndLine) {
  Expected<GpuSearchOptions> options =
      parseGpuOptionsText("[gpu]\norder = \"heuristic\"\nprefetch = [2]\n", "tune.toml");
  ASSERT_FALSE(bool(options));
  std::string message = toString(options.takeError());
  EXPECT_NE(message.find("tune.toml:3"), std::string::npos) << message;
  EXPECT_NE(message.find("prefetch"), std::string::npos) << message;
}

TEST(Options, BadValuesAreErrors) {
  for (const char *text : {"[gpu]\norder = \"fastest\"\n", "[gpu]\nwaves_per_eu = [0]\n",
                           "[gpu]\npipelines = [\"warp_specialized\"]\n",
                           "[gpu]\nprefetch_stages = 2\n", "[gpu]\nengine = \"cvc5\"\n",
                           "gpu = 3\n"}) {
    Expected<GpuSearchOptions> options = parseGpuOptionsText(text, "tune.toml");
    EXPECT_FALSE(bool(options)) << text;
    if (!options) {
      std::string message = toString(options.takeError());
      EXPECT_NE(message.find("tune.toml:"), std::string::npos) << message;
    }
  }
}

TEST(Knobs, ProductAndAttentionOverrides) {
  GpuSearchOptions options;
  options.prefetchStages = {2, 3};
  options.wavesPerEu = {1, 2};
  options.noReduceBankConflicts = {true, false};
  options.denormalFlushing = {true, false};
  GpuConfig contraction;
  EXPECT_EQ(expandKnobs({contraction}, options).size(), 8u); // denormal: contraction ignores it
  GpuConfig attention;
  attention.kind = OpKind::Attention;
  attention.reuseQkOutput = false;
  std::vector<Candidate> expanded = expandKnobs({attention}, options);
  EXPECT_EQ(expanded.size(), 8u); // prefetch forced to one value, denormal doubles
  for (const Candidate &c : expanded)
    EXPECT_EQ(c.prefetchStages, 0);
}

TEST(Ordering, QuantizationInefficiencyMatchesReference) {
  // The reference's own example: 10x10 with 4x4 tiles on 4 CUs.
  EXPECT_DOUBLE_EQ(quantizationInefficiency(10, 4, 10, 4, 4), 0.21875);
}

TEST(Ordering, HeuristicPrefersPow2KAndFullSimds) {
  GpuTarget target = cantFail(loadKnownTarget("gfx942"));
  GpuSearchOptions options;
  options.pipelines = {Pipeline::VectorDistribute};
  options.maxCandidates = 0;
  Expected<CandidateSet> set = generateCandidates(makeMatmul(1024, 1280, 1280), target, options);
  ASSERT_TRUE(bool(set));
  ASSERT_FALSE(set->candidates.empty());
  const GpuConfig &first = set->candidates.front().config;
  EXPECT_TRUE(llvm::isPowerOf2_64(first.tileK));
  EXPECT_EQ(first.sgMCount * first.sgNCount % 4, 0);
  // Once the key gets worse it never gets better again.
  bool seenNonPow2 = false;
  for (const Candidate &c : set->candidates) {
    bool pow2 = llvm::isPowerOf2_64(c.config.tileK);
    EXPECT_FALSE(seenNonPow2 && pow2);
    seenNonPow2 |= !pow2;
  }
}

TEST(Ordering, ShuffleIsSeededAndEstimateIsSorted) {
  GpuTarget target = cantFail(loadKnownTarget("gfx942"));
  GpuSearchOptions options;
  options.maxCandidates = 0;
  options.ordering = Ordering::Shuffle;
  Problem p = makeMatmul(512, 512, 512);
  CandidateSet a = cantFail(generateCandidates(p, target, options));
  CandidateSet b = cantFail(generateCandidates(p, target, options));
  options.seed = 43;
  CandidateSet c = cantFail(generateCandidates(p, target, options));
  ASSERT_EQ(a.candidates.size(), b.candidates.size());
  for (size_t i = 0; i < a.candidates.size(); ++i)
    EXPECT_EQ(a.candidates[i].compilationInfo, b.candidates[i].compilationInfo);
  bool differs = false;
  for (size_t i = 0; i < a.candidates.size(); ++i)
    differs |= a.candidates[i].compilationInfo != c.candidates[i].compilationInfo;
  EXPECT_TRUE(differs);

  options.ordering = Ordering::Estimate;
  CandidateSet e = cantFail(generateCandidates(p, target, options));
  for (size_t i = 1; i < e.candidates.size(); ++i)
    EXPECT_LE(estimateCost(e.candidates[i - 1].config, target),
              estimateCost(e.candidates[i].config, target));
  options.maxCandidates = 10;
  EXPECT_EQ(cantFail(generateCandidates(p, target, options)).candidates.size(), 10u);
}

/// IREE 3.13's own config for a 2048x1280x1280 f16 matmul on sm_80
/// (fixtures/real-3.13/executable_configurations_cuda_sm80.mlir).
CompilerChoice ireeSm80Choice() {
  CompilerChoice choice;
  choice.workgroup = {64, 64, 0};
  choice.reduction = {0, 0, 8};
  choice.subgroup = {2, 4, 0};
  choice.mma = "NV_MMA_SYNC_F32_16x8x16_F16";
  choice.convertAccGemm = true;
  return choice;
}

TEST(Ordering, NearCompilerStartsAtTheCompilersNeighbours) {
  GpuTarget target = sm80Target();
  GpuSearchOptions options;
  options.pipelines = {Pipeline::TileAndFuse};
  options.maxCandidates = 0;
  CompilerChoice choice = ireeSm80Choice();
  Problem p = makeMatmul(2048, 1280, 1280);
  p.target = "sm_80";
  CandidateSet set = cantFail(generateCandidates(p, target, options, &choice));
  EXPECT_EQ(set.ordering, Ordering::NearCompiler); // Auto on NVIDIA
  ASSERT_FALSE(set.candidates.empty());
  // Never the compiler's own config (it is the baseline); distances ascend.
  for (size_t i = 0; i < set.candidates.size(); ++i) {
    EXPECT_GT(distanceFrom(set.candidates[i], choice), 0);
    if (i) {
      EXPECT_LE(distanceFrom(set.candidates[i - 1], choice),
                distanceFrom(set.candidates[i], choice));
    }
  }
  // The first is one step away, and IREE's unit attribute is carried over.
  EXPECT_LE(distanceFrom(set.candidates.front(), choice), 0.5);
  EXPECT_NE(set.candidates.front().compilationInfo.find("convert_acc_gemm, "), std::string::npos);
}

TEST(Ordering, AutoIsTheReferenceHeuristicOnAmdOrWithoutTheCompilersChoice) {
  GpuTarget amd = cantFail(loadKnownTarget("gfx942"));
  GpuTarget nvidia = sm80Target();
  CompilerChoice choice = ireeSm80Choice();
  EXPECT_EQ(resolveOrdering(Ordering::Auto, amd, &choice), Ordering::Heuristic);
  EXPECT_EQ(resolveOrdering(Ordering::Auto, nvidia, nullptr), Ordering::Heuristic);
  EXPECT_EQ(resolveOrdering(Ordering::NearCompiler, amd, nullptr), Ordering::Heuristic);
  EXPECT_EQ(resolveOrdering(Ordering::NearCompiler, amd, &choice), Ordering::NearCompiler);
  GpuSearchOptions options = cantFail(parseGpuOptionsText("[gpu]\norder = \"near_compiler\"\n", "t"));
  EXPECT_EQ(options.ordering, Ordering::NearCompiler);
}

} // namespace
