#include "stages/backends/mlircpu/CpuCompiler.h"
#include "stages/search/cpu/CpuSpace.h"
#include "stages/backends/mlircpu/CpuSpec.h"
#include "stages/backends/mlircpu/LinalgProblem.h"
#include "stages/support/FileUtil.h"
#include "stages/core/Testing.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"


using namespace retune;
using namespace retune::cpu;

namespace {

Problem conv() { return convNhwcHwcfProblem(1, 28, 28, 64, 3, 3, 64); }

} // namespace

TEST(CpuSpecTest, MatmulWithEveryKnobMatchesGolden) {
  CpuConfig config;
  config.outerTiles = {64, 128, 0};
  config.threads = 2;
  config.reductionTiles = {0, 0, 64};
  config.registerTiles = {8, 32, 1};
  config.registerInterchange = {1, 0, 2};
  config.kUnroll = 4;
  test::expectGolden("stages/backends/mlircpu/testdata/matmul_transposed_b.spec.mlir",
               emitSpecModule({{"mm", matmulProblem(256, 512, 128, true), config}}, "golden test"));
}

/// A batch x·Wᵀ whose transpose joined the dispatch: the matcher checks
/// the transpose in front of B, the action packs one panel per outer tile.
TEST(CpuSpecTest, PackedTransposedBMatchesGolden) {
  Problem p = batchMatmulProblem(4, 256, 512, 128);
  p.prologue = {{1, "affine_map<(d0, d1, d2) -> (d0, d2, d1)>"}};
  CpuConfig config;
  config.outerTiles = {1, 0, 64, 0};
  config.reductionTiles = {0, 0, 0, 64};
  config.registerTiles = {1, 8, 32, 1};
  config.registerInterchange = {0, 2, 1, 3};
  config.kUnroll = 2;
  test::expectGolden(
      "stages/backends/mlircpu/testdata/batch_matmul_packed_b.spec.mlir",
      emitSpecModule({{"bmm", p, config}}, "golden test"));
}

TEST(CpuSpecTest, ConvolutionMatchesGolden) {
  CpuConfig config;
  config.outerTiles = {0, 0, 0, 0, 0, 0, 0};
  config.reductionTiles = {0, 0, 0, 0, 0, 0, 0};
  config.registerTiles = {1, 1, 14, 16, 1, 1, 1};
  config.decompose = true;
  config.outerInterchange = {};
  test::expectGolden("stages/backends/mlircpu/testdata/conv.spec.mlir",
               emitSpecModule({{"conv", conv(), config}}));
}

/// Compiles every dispatch of the mixed example with the cheapest candidate
/// of the real knob space: the emitted transforms must be accepted by
/// MLIR 22 for every op kind the dump forms.
/// Each op kind's top-ranked candidate, all in one spec, compiles `model`.
static void expectTopCandidatesCompile(const std::string &model) {
  Expected<mlir::OwningOpRef<mlir::ModuleOp>> module = parseModuleFile(model);
  ASSERT_TRUE(static_cast<bool>(module)) << toString(module.takeError());
  CpuHost host = detectHost();
  std::vector<SpecEntry> entries;
  (*module)->walk([&](mlir::linalg::LinalgOp op) {
    mlir::FailureOr<Problem> problem = problemFromOp(op, host.target(), nullptr);
    if (mlir::failed(problem))
      return;
    Expected<CpuSpaceResult> space =
        enumerateCpuSpace(*problem, host, CpuSpaceOptions());
    ASSERT_TRUE(static_cast<bool>(space)) << toString(space.takeError());
    ASSERT_FALSE(space->ranked.empty());
    entries.push_back({"e" + std::to_string(entries.size()), *problem,
                       space->ranked.front().config});
  });
  ASSERT_EQ(entries.size(), 3u);
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("cpuspec", dir));
  std::string spec = (dir + "/spec.mlir").str();
  ASSERT_FALSE(static_cast<bool>(writeFileIfChanged(spec, emitSpecModule(entries))));
  EXPECT_FALSE(static_cast<bool>(verifySpecFile(spec)));
  CompileRequest request{model, spec, (dir + "/model.so").str(), 1, ""};
  Expected<CompileResult> result = compileToSharedObject(request, host);
  ASSERT_TRUE(static_cast<bool>(result)) << toString(result.takeError());
  ASSERT_EQ(result->functions.size(), 1u);
  EXPECT_EQ(result->functions[0].results.size(), 3u);
  EXPECT_TRUE(llvm::sys::fs::exists(request.outputPath));
  llvm::sys::fs::remove_directories(dir);
}

TEST(CpuSpecTest, TopCandidatesCompileForEveryOpKind) {
  expectTopCandidatesCompile(std::string(RETUNE_SOURCE_DIR) +
                             "/stages/backends/mlircpu/testdata/mixed_small.mlir");
}

// At examples/mixed's full sizes LLVM's instruction scheduling of the
// unrolled tiles takes minutes on a 2-core machine: the `long` ctest
// long.CpuSpecTest.TopCandidatesCompileFullSize runs it.
TEST(CpuSpecTest, DISABLED_TopCandidatesCompileFullSize) {
  expectTopCandidatesCompile(std::string(RETUNE_SOURCE_DIR) +
                             "/examples/mixed/model.mlir");
}
