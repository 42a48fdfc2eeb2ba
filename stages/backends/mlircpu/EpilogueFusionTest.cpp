//===- EpilogueFusionTest.cpp - Fused dispatches compute what they read ---===//
//
// Compiles a layer with a bias + ReLU epilogue and a gated product, with the
// default configs and with tuned configs of the real space at 1 and 2
// threads, runs it and compares against plain loops written here: fusion
// must never change what the model computes.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/EpilogueFusion.h"
#include "stages/backends/mlircpu/CpuCompiler.h"
#include "stages/backends/mlircpu/CpuSpec.h"
#include "stages/backends/mlircpu/KernelRunner.h"
#include "stages/backends/mlircpu/LayoutNormalization.h"
#include "stages/backends/mlircpu/LinalgProblem.h"
#include "stages/search/cpu/CpuSpace.h"
#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

using namespace retune;
using namespace retune::cpu;

namespace {

constexpr int64_t kM = 64, kK = 96, kN = 80;

/// relu(x·W + b) * (x·W2): one root with a bias + ReLU epilogue and a
/// second root whose result gates it.
constexpr llvm::StringLiteral kLayer = R"mlir(
#bias = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @layer(%x: tensor<64x96xf32>, %w: tensor<96x80xf32>,
                 %b: tensor<80xf32>, %w2: tensor<96x80xf32>) -> tensor<64x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x96xf32>, tensor<96x80xf32>)
      outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  %r = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<64x80xf32>, tensor<80xf32>) outs(%e : tensor<64x80xf32>) {
  ^bb0(%m: f32, %bv: f32, %out: f32):
    %s = arith.addf %m, %bv : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x80xf32>
  %g = linalg.matmul ins(%x, %w2 : tensor<64x96xf32>, tensor<96x80xf32>)
      outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %g : tensor<64x80xf32>, tensor<64x80xf32>) outs(%e : tensor<64x80xf32>) {
  ^bb0(%rv: f32, %gv: f32, %out: f32):
    %q = arith.mulf %rv, %gv : f32
    linalg.yield %q : f32
  } -> tensor<64x80xf32>
  return %p : tensor<64x80xf32>
}
)mlir";

/// The layer in plain loops, from the same inputs.
std::vector<double> reference(const std::vector<bench::Buffer> &in) {
  const bench::Buffer &x = in[0], &w = in[1], &b = in[2], &w2 = in[3];
  std::vector<double> out(kM * kN);
  for (int64_t i = 0; i < kM; ++i)
    for (int64_t j = 0; j < kN; ++j) {
      double mm = 0, g = 0;
      for (int64_t k = 0; k < kK; ++k) {
        mm += x.at(i * kK + k) * w.at(k * kN + j);
        g += x.at(i * kK + k) * w2.at(k * kN + j);
      }
      out[i * kN + j] = std::max(mm + b.at(j), 0.0) * g;
    }
  return out;
}

/// relu(conv(x, w) + b): a convolution with a per-channel bias and ReLU.
constexpr llvm::StringLiteral kConvLayer = R"mlir(
#bias = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv(%x: tensor<1x10x10x8xf32>, %w: tensor<3x3x8x16xf32>,
                %b: tensor<16xf32>) -> tensor<1x8x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x10x10x8xf32>, tensor<3x3x8x16xf32>)
      outs(%f : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : tensor<1x8x8x16xf32>, tensor<16xf32>) outs(%e : tensor<1x8x8x16xf32>) {
  ^bb0(%cv: f32, %bv: f32, %out: f32):
    %s = arith.addf %cv, %bv : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<1x8x8x16xf32>
  return %r : tensor<1x8x8x16xf32>
}
)mlir";

std::vector<double> convReference(const std::vector<bench::Buffer> &in) {
  const bench::Buffer &x = in[0], &w = in[1], &b = in[2];
  std::vector<double> out(8 * 8 * 16);
  for (int64_t oh = 0; oh < 8; ++oh)
    for (int64_t ow = 0; ow < 8; ++ow)
      for (int64_t f = 0; f < 16; ++f) {
        double sum = 0;
        for (int64_t kh = 0; kh < 3; ++kh)
          for (int64_t kw = 0; kw < 3; ++kw)
            for (int64_t c = 0; c < 8; ++c)
              sum += x.at(((oh + kh) * 10 + ow + kw) * 8 + c) *
                     w.at(((kh * 3 + kw) * 8 + c) * 16 + f);
        out[(oh * 8 + ow) * 16 + f] = std::max(sum + b.at(f), 0.0);
      }
  return out;
}

/// relu(x·Wᵀ + b): a linear layer with its weight in the [out, in] layout,
/// whose transpose the dispatch packs panel by panel.
constexpr llvm::StringLiteral kPackedLayer = R"mlir(
#bias = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @linear(%x: tensor<64x96xf32>, %w: tensor<80x96xf32>,
                  %b: tensor<80xf32>) -> tensor<64x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x96xf32>, tensor<80x96xf32>)
      outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  %r = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<64x80xf32>, tensor<80xf32>) outs(%e : tensor<64x80xf32>) {
  ^bb0(%m: f32, %bv: f32, %out: f32):
    %s = arith.addf %m, %bv : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x80xf32>
  return %r : tensor<64x80xf32>
}
)mlir";

std::vector<double> packedReference(const std::vector<bench::Buffer> &in) {
  const bench::Buffer &x = in[0], &w = in[1], &b = in[2];
  std::vector<double> out(kM * kN);
  for (int64_t i = 0; i < kM; ++i)
    for (int64_t j = 0; j < kN; ++j) {
      double mm = 0;
      for (int64_t k = 0; k < kK; ++k)
        mm += x.at(i * kK + k) * w.at(j * kK + k);
      out[i * kN + j] = std::max(mm + b.at(j), 0.0);
    }
  return out;
}

/// q · kᵀ per batch (attention scores): a batch NT contraction alone.
constexpr int64_t kBatch = 3, kQ = 64, kKeys = 48, kHead = 32;
constexpr llvm::StringLiteral kScores = R"mlir(
func.func @scores(%q: tensor<3x64x32xf32>, %k: tensor<3x48x32xf32>) -> tensor<3x64x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x64x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x64x48xf32>) -> tensor<3x64x48xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                                            affine_map<(b, m, n, k) -> (b, n, k)>,
                                            affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<3x64x32xf32>, tensor<3x48x32xf32>)
      outs(%f : tensor<3x64x48xf32>) -> tensor<3x64x48xf32>
  return %s : tensor<3x64x48xf32>
}
)mlir";

std::vector<double> scoresReference(const std::vector<bench::Buffer> &in) {
  const bench::Buffer &q = in[0], &k = in[1];
  std::vector<double> out(kBatch * kQ * kKeys);
  for (int64_t b = 0; b < kBatch; ++b)
    for (int64_t i = 0; i < kQ; ++i)
      for (int64_t j = 0; j < kKeys; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < kHead; ++d)
          dot += q.at((b * kQ + i) * kHead + d) *
                 k.at((b * kKeys + j) * kHead + d);
        out[(b * kQ + i) * kKeys + j] = dot;
      }
  return out;
}

using Reference = std::vector<double> (*)(const std::vector<bench::Buffer> &);

class EpilogueFusionTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("epilogue", dir));
    model = (dir + "/model.mlir").str();
    useModel(kLayer, reference);
  }

  void useModel(StringRef text, Reference computes) {
    ASSERT_FALSE(static_cast<bool>(writeFileIfChanged(model, text)));
    expectedOf = computes;
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  /// The layer's root problems as the compiler sees them after fusion.
  std::vector<Problem> fusedProblems() {
    Expected<mlir::OwningOpRef<mlir::ModuleOp>> module = parseModuleFile(model);
    EXPECT_TRUE(static_cast<bool>(module)) << toString(module.takeError());
    std::vector<Problem> problems;
    if (!module)
      return problems;
    normalizeOperandLayouts(**module);
    fuseEpilogues(**module);
    (*module)->walk([&](mlir::linalg::LinalgOp op) {
      mlir::FailureOr<Problem> problem =
          problemFromOp(op, host.target(), nullptr);
      if (mlir::succeeded(problem))
        problems.push_back(*problem);
    });
    return problems;
  }

  /// Compiles with `spec` ("" = defaults) and checks the result against
  /// the plain loops.
  void expectMatchesReference(StringRef spec, unsigned threads,
                              StringRef printTransformedTo = "") {
    CompileRequest request{model, spec.str(), (dir + "/model.so").str(),
                           threads, "", printTransformedTo.str()};
    Expected<CompileResult> compiled = compileToSharedObject(request, host);
    ASSERT_TRUE(static_cast<bool>(compiled)) << toString(compiled.takeError());
    ASSERT_EQ(compiled->functions.size(), 1u);
    Expected<std::unique_ptr<bench::Kernel>> kernel =
        bench::Kernel::load(request.outputPath, compiled->functions[0]);
    ASSERT_TRUE(static_cast<bool>(kernel)) << toString(kernel.takeError());
    std::vector<bench::Buffer> inputs =
        bench::makeInputs(compiled->functions[0], 11);
    (*kernel)->setInputs(inputs);
    std::vector<bench::Values> results = (*kernel)->call(true);
    ASSERT_EQ(results.size(), 1u);
    std::vector<double> expected = expectedOf(inputs);
    ASSERT_EQ(results[0].size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
      ASSERT_NEAR(results[0][i], expected[i],
                  1e-4 * std::max(1.0, std::fabs(expected[i])))
          << "element " << i << " (spec '" << spec.str() << "', " << threads
          << " thread(s))";
  }

  /// Compiles every blocking strategy the tuner would measure first for
  /// each root (the n-th of each), at 1 and 2 threads.
  void expectTunedConfigsMatchReference(size_t roots) {
    std::vector<Problem> problems = fusedProblems();
    ASSERT_EQ(problems.size(), roots);
    for (unsigned threads : {1u, 2u}) {
      CpuSpaceOptions options;
      options.threads = threads;
      std::vector<std::vector<RankedConfig>> spaces;
      for (const Problem &problem : problems) {
        Expected<CpuSpaceResult> space =
            enumerateCpuSpace(problem, host, options);
        ASSERT_TRUE(static_cast<bool>(space)) << toString(space.takeError());
        spaces.push_back(space->ranked);
      }
      for (size_t pick : spreadAcrossStrategies(spaces[0], 4)) {
        std::vector<SpecEntry> entries;
        for (auto [i, problem] : llvm::enumerate(problems))
          entries.push_back(
              {"e" + std::to_string(i), problem,
               spaces[i][std::min(pick, spaces[i].size() - 1)].config});
        std::string spec = (dir + "/spec.mlir").str();
        ASSERT_FALSE(static_cast<bool>(
            writeFileIfChanged(spec, emitSpecModule(entries))));
        expectMatchesReference(spec, threads);
      }
    }
  }

  CpuHost host = detectHost();
  llvm::SmallString<128> dir;
  std::string model;
  Reference expectedOf = nullptr;
};

TEST_F(EpilogueFusionTest, BiasReluAndGateJoinTheirRoots) {
  std::vector<Problem> problems = fusedProblems();
  ASSERT_EQ(problems.size(), 2u);
  size_t joined = problems[0].epilogue.size() + problems[1].epilogue.size();
  // Bias + ReLU joins the first root; the gate joins one of the two.
  EXPECT_EQ(joined, 2u);
  EXPECT_EQ(problems[0].epilogue.front().body, "arith.addf,arith.maximumf");
  EXPECT_EQ(problems[0].epilogue.front().inputMaps,
            (SmallVector<std::string>{"affine_map<(d0, d1) -> (d1)>"}));
  EXPECT_NE(problems[0].stableId(), problems[1].stableId());
  // Each weight is packed by a copy in front of its root.
  for (const Problem &problem : problems) {
    ASSERT_EQ(problem.prologue.size(), 1u);
    EXPECT_EQ(problem.prologue[0].map, "affine_map<(d0, d1) -> (d0, d1)>");
  }
  EXPECT_NE(problems[0].readableName().find("_addf_maximumf"),
            std::string::npos);
}

TEST_F(EpilogueFusionTest, DefaultCompileComputesTheLayer) {
  expectMatchesReference("", 1);
  expectMatchesReference("", 2);
}

/// Both roots have one shape; the one with an epilogue is configured with
/// it (claimed before the other's matcher reaches it), so no elementwise op
/// is left to scalar loops.
TEST_F(EpilogueFusionTest, EpilogueOfARootSharingItsShapeIsVectorized) {
  std::string transformed = (dir + "/transformed.mlir").str();
  expectMatchesReference("", 1, transformed);
  Expected<std::string> text = readFile(transformed);
  ASSERT_TRUE(static_cast<bool>(text)) << toString(text.takeError());
  EXPECT_EQ(text->find("linalg."), std::string::npos) << *text;
}

/// Every blocking strategy the tuner would measure first, fused.
TEST_F(EpilogueFusionTest, TunedConfigsComputeTheLayer) {
  expectTunedConfigsMatchReference(2);
}

TEST_F(EpilogueFusionTest, ConvolutionWithBiasAndReluJoinsAndComputes) {
  useModel(kConvLayer, convReference);
  std::vector<Problem> problems = fusedProblems();
  ASSERT_EQ(problems.size(), 1u);
  ASSERT_EQ(problems[0].epilogue.size(), 1u);
  EXPECT_EQ(problems[0].epilogue[0].inputMaps,
            (SmallVector<std::string>{"affine_map<(d0, d1, d2, d3) -> (d3)>"}));
  expectMatchesReference("", 1);
  expectMatchesReference("", 2);
  expectTunedConfigsMatchReference(1);
}

/// A transposed weight is packed panel by panel inside the dispatch (its
/// transpose fused into the outer tiles, with the bias and ReLU after).
TEST_F(EpilogueFusionTest, TransposedWeightIsPackedAndComputes) {
  useModel(kPackedLayer, packedReference);
  std::vector<Problem> problems = fusedProblems();
  ASSERT_EQ(problems.size(), 1u);
  ASSERT_EQ(problems[0].prologue.size(), 1u);
  EXPECT_EQ(problems[0].prologue[0].input, 1u);
  EXPECT_EQ(problems[0].epilogue.size(), 1u);
  expectMatchesReference("", 1);
  expectMatchesReference("", 2);
  expectTunedConfigsMatchReference(1);
}

TEST_F(EpilogueFusionTest, BatchTransposedOperandIsPackedPerBatch) {
  useModel(kScores, scoresReference);
  std::vector<Problem> problems = fusedProblems();
  ASSERT_EQ(problems.size(), 1u);
  ASSERT_EQ(problems[0].prologue.size(), 1u);
  // Every config of the space packs one batch at a time and keeps the rows
  // that reuse a panel in its tile.
  for (unsigned threads : {1u, 2u}) {
    CpuSpaceOptions options;
    options.threads = threads;
    Expected<CpuSpaceResult> space =
        enumerateCpuSpace(problems[0], host, options);
    ASSERT_TRUE(static_cast<bool>(space)) << toString(space.takeError());
    ASSERT_FALSE(space->ranked.empty());
    for (const RankedConfig &ranked : space->ranked) {
      EXPECT_EQ(ranked.config.outerTiles[0], 1);
      EXPECT_EQ(ranked.config.outerTiles[1], 0);
    }
  }
  expectMatchesReference("", 1);
  expectMatchesReference("", 2);
  expectTunedConfigsMatchReference(1);
}

} // namespace
