//===- SpecTest.cpp - Candidates as whole IREE tuning specs ---------------===//
//
// Wraps the first candidate of each bench case into a tuning spec with the
// iree backend's emitter, checks it with its verifier and against goldens.
//
//===----------------------------------------------------------------------===//
#include "stages/search/gpu/Candidates.h"
#include "stages/search/gpu/Problems.h"
#include "stages/backends/iree/IreeSpec.h"

#include "stages/support/FileUtil.h"

#include <cstdlib>
#include "stages/core/Testing.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::gpu;

namespace {

void expectGolden(StringRef name, StringRef actual) {
  test::expectGolden("stages/search/gpu/testdata/" + name.str(), actual.str());
}

iree::SpecEntry firstEntry(const Problem &p, Pipeline pipeline, StringRef suffix) {
  GpuTarget target = cantFail(loadKnownTarget(p.target));
  GpuSearchOptions options;
  options.pipelines = {pipeline};
  options.maxCandidates = 1;
  CandidateSet set = cantFail(generateCandidates(p, target, options));
  EXPECT_EQ(set.candidates.size(), 1u) << p.readableName();
  iree::SpecEntry entry{p, "", suffix.str()};
  if (!set.candidates.empty()) {
    entry.compilationInfo = set.candidates.front().compilationInfo;
    entry.decompositionConfig = set.candidates.front().decompositionConfig;
  }
  return entry;
}

struct Case {
  const char *golden;
  Problem problem;
  Pipeline pipeline;
  const char *suffix;
};

TEST(GpuSpecs, BenchCasesVerifyAndMatchGoldens) {
  std::vector<Case> cases = {
      {"spec_mm_1024x1280x1280_tf.mlir", makeMatmul(1024, 1280, 1280), Pipeline::TileAndFuse,
       "main_dispatch_0_matmul_1024x1280x1280_f16xf16xf32"},
      {"spec_mm_1024x1280x1280_vd.mlir", makeMatmul(1024, 1280, 1280), Pipeline::VectorDistribute,
       "main_dispatch_0_matmul_1024x1280x1280_f16xf16xf32"},
      {"spec_mm_2048x2048x2048_tf.mlir", makeMatmul(2048, 2048, 2048), Pipeline::TileAndFuse,
       "main_dispatch_1_matmul_2048x2048x2048_f16xf16xf32"},
      {"spec_mm_2048x3840x1280_vd.mlir", makeMatmul(2048, 3840, 1280), Pipeline::VectorDistribute,
       "main_dispatch_2_matmul_2048x3840x1280_f16xf16xf32"},
      {"spec_mm_5369x112x112_tf.mlir", makeMatmul(5369, 112, 112), Pipeline::TileAndFuse,
       "main_dispatch_3_matmul_5369x112x112_f16xf16xf32"},
      {"spec_conv_tf.mlir", makeConvNhwcHwcf(2, 32, 32, 256, 3, 3, 128), Pipeline::TileAndFuse,
       "main_dispatch_4_conv_2d_nhwc_hwcf_2x32x32x256x3x3x128_f16xf16xf32"},
      {"spec_conv_vd.mlir", makeConvNhwcHwcf(2, 32, 32, 256, 3, 3, 128), Pipeline::VectorDistribute,
       "main_dispatch_4_conv_2d_nhwc_hwcf_2x32x32x256x3x3x128_f16xf16xf32"},
      {"spec_attention_vd.mlir", makeAttention(16, 4096, 64, 64, 4096), Pipeline::VectorDistribute,
       "main_dispatch_5_attention_16x4096x64x64x4096_f16"},
  };
  std::vector<iree::SpecEntry> all;
  for (const Case &c : cases) {
    iree::SpecEntry entry = firstEntry(c.problem, c.pipeline, c.suffix);
    std::string spec = iree::emitTuningSpec({entry});
    Error e = iree::verifyTuningSpec(spec, c.golden);
    EXPECT_FALSE(bool(e)) << toString(std::move(e));
    expectGolden(c.golden, spec);
    entry.symbolSuffix += "_" + std::to_string(all.size());
    all.push_back(entry);
  }
  // All bench cases in one spec, as the link step would see them.
  std::string combined = iree::emitTuningSpec(all);
  Error e = iree::verifyTuningSpec(combined, "combined.mlir");
  EXPECT_FALSE(bool(e)) << toString(std::move(e));
}

} // namespace
