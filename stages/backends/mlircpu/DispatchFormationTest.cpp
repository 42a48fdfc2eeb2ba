#include "stages/backends/mlircpu/DispatchFormation.h"

#include "stages/backends/mlircpu/CpuCompiler.h"
#include "stages/support/FileUtil.h"

#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace retune;

static Expected<dump::FormedDispatches> formFrom(StringRef text) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &cpu::compilerContext(),
                                              "test.mlir");
  if (!module)
    return makeError("test input does not parse");
  return dump::formDispatches(*module, "test.mlir", "cpu:test");
}

static Expected<dump::FormedDispatches> formFromExample(StringRef name) {
  Expected<std::string> text =
      readFile(std::string(RETUNE_SOURCE_DIR) + "/examples/" + name.str() +
               "/model.mlir");
  if (!text)
    return text.takeError();
  return formFrom(*text);
}

TEST(DispatchFormationTest, MlpHasOneDispatchPerDistinctMatmul) {
  Expected<dump::FormedDispatches> formed = formFromExample("mlp");
  ASSERT_TRUE(static_cast<bool>(formed)) << toString(formed.takeError());
  const auto &dispatches = formed->index.dispatches;
  ASSERT_EQ(dispatches.size(), 2u);
  // Two 256x1024x1024 layers (0.8 of the work), one 256x512x1024 (0.2).
  EXPECT_EQ(dispatches[0].problem.loopRanges,
            (SmallVector<int64_t>{256, 1024, 1024}));
  EXPECT_EQ(dispatches[0].occurrences, 2u);
  EXPECT_NEAR(dispatches[0].share, 0.8, 1e-12);
  EXPECT_NEAR(dispatches[1].share, 0.2, 1e-12);
  EXPECT_DOUBLE_EQ(formed->index.totalFlops,
                   2.0 * (2 * 256.0 * 1024 * 1024 + 256.0 * 512 * 1024));
  EXPECT_EQ(dispatches[0].problem.dimRoles, "mnk");
  // The dispatch is the weight's packing copy + fill + matmul + the
  // bias/ReLU that follows it, all writing the one result buffer; the last
  // layer has a bias only.
  const std::string &text = formed->modules.at(dispatches[0].id);
  EXPECT_NE(text.find("linalg.copy {retune.prologue}"), std::string::npos);
  EXPECT_NE(text.find("linalg.fill"), std::string::npos);
  EXPECT_NE(text.find("linalg.matmul {retune.root}"), std::string::npos);
  EXPECT_NE(text.find("retune.epilogue"), std::string::npos);
  ASSERT_EQ(dispatches[0].problem.epilogue.size(), 1u);
  EXPECT_EQ(dispatches[0].problem.epilogue[0].body,
            "arith.addf,arith.maximumf");
  ASSERT_EQ(dispatches[0].problem.prologue.size(), 1u);
  EXPECT_EQ(dispatches[0].problem.prologue[0].map,
            "affine_map<(d0, d1) -> (d0, d1)>");
  EXPECT_EQ(dispatches[0].name,
            "matmul_256x1024x1024_f32_addf_maximumf_packed1");
  ASSERT_EQ(dispatches[1].problem.epilogue.size(), 1u);
  EXPECT_EQ(dispatches[1].problem.epilogue[0].body, "arith.addf");
}

TEST(DispatchFormationTest, MixedModelRolesAndLayouts) {
  Expected<dump::FormedDispatches> formed = formFromExample("mixed");
  ASSERT_TRUE(static_cast<bool>(formed)) << toString(formed.takeError());
  ASSERT_EQ(formed->index.dispatches.size(), 3u);
  std::map<std::string, const DispatchEntry *> byOp;
  for (const DispatchEntry &d : formed->index.dispatches)
    byOp[d.problem.opName] = &d;
  ASSERT_TRUE(byOp.count("linalg.matmul"));
  ASSERT_TRUE(byOp.count("linalg.batch_matmul"));
  ASSERT_TRUE(byOp.count("linalg.conv_2d_nhwc_hwcf"));
  EXPECT_EQ(byOp["linalg.batch_matmul"]->problem.dimRoles, "bmnk");
  const Problem &conv = byOp["linalg.conv_2d_nhwc_hwcf"]->problem;
  EXPECT_EQ(conv.kind, OpKind::Convolution);
  EXPECT_EQ(conv.dimRoles, "boofrrc");
  EXPECT_EQ(conv.loopRanges, (SmallVector<int64_t>{1, 28, 28, 64, 3, 3, 64}));
  // The transposed-B projection is tuned in the NN layout: the transpose of
  // its B is the dispatch's prologue, which takes the untransposed weight.
  const Problem &projection = byOp["linalg.matmul"]->problem;
  EXPECT_EQ(projection.indexingMaps[1], "affine_map<(d0, d1, d2) -> (d2, d1)>");
  ASSERT_EQ(projection.prologue.size(), 1u);
  EXPECT_EQ(projection.prologue[0].input, 1u);
  EXPECT_EQ(projection.prologue[0].map, "affine_map<(d0, d1) -> (d1, d0)>");
  EXPECT_EQ(byOp["linalg.matmul"]->name.find("_packed1"),
            byOp["linalg.matmul"]->name.size() - 8);
  const std::string &text = formed->modules.at(byOp["linalg.matmul"]->id);
  EXPECT_NE(text.find("linalg.transpose"), std::string::npos);
  EXPECT_NE(text.find("retune.prologue"), std::string::npos);
}

/// A 2-D f32 matmul dispatch of `rows` x 16 x 32 with B as [16, 32] (NT)
/// or [32, 16] (NN).
static std::string matmulText(int rows, bool transposedB) {
  std::string m = std::to_string(rows);
  std::string b = transposedB ? "16x32" : "32x16";
  std::string maps =
      transposedB ? "indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
                    "affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> "
                    "(m, n)>] "
                  : "";
  return "func.func @f(%a: tensor<" + m + "x32xf32>, %b: tensor<" + b +
         "xf32>, %c: tensor<" + m + "x16xf32>) -> tensor<" + m +
         "x16xf32> {\n  %0 = linalg.matmul " + maps + "ins(%a, %b : tensor<" +
         m + "x32xf32>, tensor<" + b + "xf32>) outs(%c : tensor<" + m +
         "x16xf32>) -> tensor<" + m + "x16xf32>\n  return %0 : tensor<" + m +
         "x16xf32>\n}\n";
}

TEST(DispatchFormationTest, TransposedBIsTunedAsNNWhenRowsPayForIt) {
  auto nn = formFrom(matmulText(64, false)), nt = formFrom(matmulText(64, true));
  ASSERT_TRUE(nn && nt);
  // Enough rows: both are the NN contraction with B packed in front, NN's
  // by a copy, NT's by a transpose (different dispatches).
  EXPECT_EQ(nn->index.dispatches[0].problem.indexingMaps,
            nt->index.dispatches[0].problem.indexingMaps);
  ASSERT_EQ(nn->index.dispatches[0].problem.prologue.size(), 1u);
  ASSERT_EQ(nt->index.dispatches[0].problem.prologue.size(), 1u);
  EXPECT_EQ(nn->index.dispatches[0].problem.prologue[0].map,
            "affine_map<(d0, d1) -> (d0, d1)>");
  EXPECT_EQ(nt->index.dispatches[0].problem.prologue[0].map,
            "affine_map<(d0, d1) -> (d1, d0)>");
  EXPECT_NE(nn->index.dispatches[0].id, nt->index.dispatches[0].id);
  // Without a fill the init is simply the destination argument.
  EXPECT_EQ(nn->modules.begin()->second.find("linalg.fill"), std::string::npos);
  // Few rows (a matrix-vector-like product): the layout stays and is a
  // different dispatch.
  auto nnSmall = formFrom(matmulText(8, false)),
       ntSmall = formFrom(matmulText(8, true));
  ASSERT_TRUE(nnSmall && ntSmall);
  EXPECT_NE(nnSmall->index.dispatches[0].id, ntSmall->index.dispatches[0].id);
  EXPECT_EQ(ntSmall->index.dispatches[0].problem.indexingMaps[1],
            "affine_map<(d0, d1, d2) -> (d1, d2)>");
}

TEST(DispatchFormationTest, ContractionGenericIsARootOp) {
  const char *text = R"mlir(
    func.func @f(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
      %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                           iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%c : tensor<16x32xf32>) {
      ^bb0(%x: f32, %y: f32, %acc: f32):
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %acc, %p : f32
        linalg.yield %s : f32
      } -> tensor<16x32xf32>
      return %0 : tensor<16x32xf32>
    })mlir";
  Expected<dump::FormedDispatches> formed = formFrom(text);
  ASSERT_TRUE(static_cast<bool>(formed)) << toString(formed.takeError());
  EXPECT_EQ(formed->index.dispatches[0].problem.opName, "linalg.generic");
  EXPECT_EQ(formed->index.dispatches[0].name, "contraction_16x32x8_f32");
}

TEST(DispatchFormationTest, ModelWithoutRootOpsIsAnError) {
  const char *text = R"mlir(
    func.func @f(%a: tensor<16xf32>) -> tensor<16xf32> {
      return %a : tensor<16xf32>
    })mlir";
  Expected<dump::FormedDispatches> formed = formFrom(text);
  ASSERT_FALSE(static_cast<bool>(formed));
  EXPECT_NE(toString(formed.takeError()).find("nothing to tune"),
            std::string::npos);
}

TEST(DispatchFormationTest, ZeroSizeDimensionHasAFiniteShare) {
  // 0 FLOPs in the whole model: the share must be 0, not 0/0 (which the
  // index would carry as "-nan").
  Expected<dump::FormedDispatches> formed = formFrom(R"mlir(
    func.func @f(%a: tensor<0x8xf32>, %b: tensor<8x4xf32>) -> tensor<0x4xf32> {
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<0x4xf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<0x4xf32>) -> tensor<0x4xf32>
      %m = linalg.matmul ins(%a, %b : tensor<0x8xf32>, tensor<8x4xf32>)
                         outs(%f : tensor<0x4xf32>) -> tensor<0x4xf32>
      return %m : tensor<0x4xf32>
    })mlir");
  ASSERT_TRUE(static_cast<bool>(formed)) << toString(formed.takeError());
  ASSERT_EQ(formed->index.dispatches.size(), 1u);
  EXPECT_EQ(formed->index.dispatches[0].share, 0.0);
}

TEST(DispatchFormationTest, TransformerDispatchesAreAllNN) {
  Expected<dump::FormedDispatches> formed = formFromExample("transformer");
  ASSERT_TRUE(static_cast<bool>(formed)) << toString(formed.takeError());
  // QKV (x · Wᵀ, three of one shape), q · kᵀ per head, scores · v, the
  // gate and up projections (one shape, but the gated product joins one of
  // them) and the down projection.
  ASSERT_EQ(formed->index.dispatches.size(), 6u);
  unsigned gated = 0;
  for (const DispatchEntry &d : formed->index.dispatches)
    for (const EpilogueOp &op : d.problem.epilogue)
      gated += op.body == "arith.maximumf,arith.mulf";
  EXPECT_EQ(gated, 1u);
  for (const DispatchEntry &d : formed->index.dispatches) {
    const std::string &b = d.problem.indexingMaps[1];
    // B's innermost dim is an n dim (d1 in 2-D, d2 with a batch dim).
    std::string n = d.problem.dimRoles == "bmnk" ? "d2)>" : "d1)>";
    EXPECT_EQ(b.substr(b.size() - n.size()), n) << d.name << ": " << b;
  }
}
