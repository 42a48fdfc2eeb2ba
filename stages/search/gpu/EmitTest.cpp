//===- EmitTest.cpp - Attribute text, golden files ------------------------===//
#include "stages/search/gpu/Candidates.h"
#include "stages/search/gpu/Problems.h"

#include "stages/support/FileUtil.h"

#include <cstdlib>
#include "stages/core/Testing.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::gpu;

namespace {

/// Compares with a golden file (RETUNE_UPDATE_GOLDEN=1 rewrites it).
void expectGolden(StringRef name, StringRef actual) {
  test::expectGolden("stages/search/gpu/testdata/" + name.str(), actual.str());
}

/// The first candidates of each bench case, in the default order.
std::string firstCandidates(const Problem &p, size_t count, GpuSearchOptions options = {}) {
  GpuTarget target = cantFail(loadKnownTarget(p.target));
  options.maxCandidates = count;
  CandidateSet set = cantFail(generateCandidates(p, target, options));
  std::string text;
  for (const Candidate &c : set.candidates) {
    text += c.compilationInfo + "\n";
    if (!c.decompositionConfig.empty())
      text += c.decompositionConfig + "\n";
  }
  return text;
}

TEST(Emit, ExactSyntaxOfOneTileAndFuseCandidate) {
  Candidate c;
  GpuConfig &g = c.config;
  g.pipeline = Pipeline::TileAndFuse;
  g.mma = lookupIntrinsic("MFMA_F32_16x16x16_F16");
  g.workgroup = {128, 128, 0};
  g.reduction = {0, 0, 4};
  g.subgroup = {4, 4, 0};
  g.promoteOperands = {0, 1};
  g.workgroupSize = {256, 1, 1};
  c.noReduceBankConflicts = false;
  EXPECT_EQ(emitCompilationInfo(c),
            "#iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{"
            "mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, promote_operands = [0, 1], "
            "reduction = [0, 0, 4], subgroup = [4, 4, 0], workgroup = [128, 128, 0]}>, "
            "translation_info = #iree_codegen.translation_info<pipeline = "
            "#iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64, "
            "{gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2, "
            "no_reduce_shared_memory_bank_conflicts = false>, "
            "llvm_func_attrs = {\"amdgpu-waves-per-eu\" = \"2\"}}>>");
}

TEST(Emit, ContractionGolden) {
  std::string text = firstCandidates(makeMatmul(1024, 1280, 1280), 4);
  GpuSearchOptions vd;
  vd.pipelines = {Pipeline::VectorDistribute};
  text += firstCandidates(makeMatmul(1024, 1280, 1280), 2, vd);
  text += firstCandidates(makeMatmul(5369, 112, 112), 2);
  expectGolden("contraction.txt", text);
}

TEST(Emit, ConvolutionGolden) {
  std::string text = firstCandidates(makeConvNhwcHwcf(2, 32, 32, 256, 3, 3, 128), 4);
  GpuSearchOptions direct;
  direct.pipelines = {Pipeline::TileAndFuse};
  direct.convStrategy = ConvStrategy::Direct;
  text += firstCandidates(makeConvNhwcHwcf(2, 32, 32, 256, 3, 3, 128), 2, direct);
  text += firstCandidates(makeConvNhwcHwcf(1, 15, 15, 40, 3, 3, 24), 2);
  expectGolden("convolution.txt", text);
}

TEST(Emit, AttentionGolden) {
  GpuSearchOptions options;
  options.denormalFlushing = {true};
  expectGolden("attention.txt", firstCandidates(makeAttention(16, 4096, 64, 64, 4096), 4, options));
}

} // namespace
