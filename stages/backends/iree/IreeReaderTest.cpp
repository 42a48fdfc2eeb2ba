//===- IreeReaderTest.cpp - Reading dumped dispatch benchmarks ------------===//
#include "stages/backends/iree/IreeReader.h"
#include "stages/backends/iree/IreeTextReader.h"

#include "stages/backends/iree/TestUtil.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;
using namespace retune::iree::testing;

namespace {

std::string dumpFile(llvm::StringRef family, llvm::StringRef name) {
  return std::string(RETUNE_SOURCE_DIR) + "/tests/fakes/data/dumps/" +
         family.str() + "/" + name.str();
}

IreeDispatch readDump(llvm::StringRef family, llvm::StringRef name) {
  std::string path = dumpFile(family, name);
  auto dispatch = readIreeDispatch(readTestFile(path), path);
  if (!dispatch) {
    ADD_FAILURE() << llvm::toString(dispatch.takeError());
    return {};
  }
  return *dispatch;
}

TEST(IreeReader, Contraction) {
  IreeDispatch d =
      readDump("rocm", "module_main_dispatch_0_rocm_hsaco_fb_benchmark.mlir");
  EXPECT_EQ(d.executable, "main_dispatch_0");
  EXPECT_EQ(d.variant, "rocm_hsaco_fb");
  EXPECT_EQ(d.exportName,
            "main_dispatch_0_matmul_transpose_b_2048x10240x1280_f16xf16xf32");
  EXPECT_EQ(d.funcName, d.exportName);
  EXPECT_EQ(d.benchmarkFunction, "main_dispatch_0_rocm_hsaco_fb_" + d.exportName);
  EXPECT_EQ(d.target.backend, "rocm");
  EXPECT_EQ(d.target.arch, "gfx942");
  EXPECT_EQ(d.target.sku, "mi300x");
  EXPECT_TRUE(llvm::StringRef(d.target.gpuTargetInfo).starts_with("#iree_gpu.target<arch = \"gfx942\""));
  Problem expected = matmulTransposeB();
  EXPECT_EQ(d.problem.opName, expected.opName);
  EXPECT_EQ(d.problem.indexingMaps, expected.indexingMaps);
  EXPECT_EQ(d.problem.elementTypes, expected.elementTypes);
  EXPECT_EQ(d.problem.dimRoles, expected.dimRoles);
  EXPECT_EQ(d.problem.loopRanges, expected.loopRanges);
  EXPECT_EQ(d.problem.stableId(), expected.stableId());
}

TEST(IreeReader, Convolution) {
  IreeDispatch d =
      readDump("rocm", "module_main_dispatch_1_rocm_hsaco_fb_benchmark.mlir");
  EXPECT_EQ(d.problem.kind, OpKind::Convolution);
  EXPECT_EQ(d.problem.stableId(), convNhwcHwcf().stableId())
      << llvm::formatv("{0}", toJson(d.problem)).str();
}

TEST(IreeReader, Attention) {
  IreeDispatch d =
      readDump("rocm", "module_main_dispatch_2_rocm_hsaco_fb_benchmark.mlir");
  EXPECT_EQ(d.problem.kind, OpKind::Attention);
  EXPECT_EQ(d.problem.stableId(), attention().stableId())
      << llvm::formatv("{0}", toJson(d.problem)).str();
}

TEST(IreeReader, GenericContraction) {
  IreeDispatch d =
      readDump("rocm", "module_main_dispatch_3_rocm_hsaco_fb_benchmark.mlir");
  EXPECT_EQ(d.problem.kind, OpKind::Contraction);
  EXPECT_EQ(d.problem.opName, "linalg.generic");
  EXPECT_EQ(d.problem.dimRoles, "bmnk");
  EXPECT_EQ(d.problem.loopRanges, (llvm::SmallVector<int64_t>{4, 512, 512, 256}));
  EXPECT_EQ(d.problem.elementTypes,
            (llvm::SmallVector<std::string>{"i8", "i8", "i32"}));
}

TEST(IreeReader, CpuTarget) {
  IreeDispatch d = readDump(
      "cpu", "module_main_dispatch_0_embedded_elf_x86_64_benchmark.mlir");
  EXPECT_EQ(d.target.backend, "llvm-cpu");
  EXPECT_EQ(d.target.arch, "znver4");
  EXPECT_EQ(d.target.triple, "x86_64-unknown-unknown-eabi-elf");
  EXPECT_NE(d.target.cpuFeatures.find("+avx512f"), std::string::npos);
  EXPECT_EQ(d.problem.target, "cpu:znver4");
  EXPECT_EQ(d.problem.dimRoles, "mnk");
  EXPECT_EQ(d.problem.indexingMaps[1], "affine_map<(d0, d1, d2) -> (d2, d1)>");
}

TEST(IreeReader, DropRootOp) {
  std::string path =
      dumpFile("rocm", "module_main_dispatch_1_rocm_hsaco_fb_benchmark.mlir");
  std::string text = readTestFile(path);
  std::string dropped = llvm::cantFail(dropRootOp(text, path));
  EXPECT_EQ(dropped.find("root_op"), std::string::npos);
  EXPECT_NE(dropped.find("lowering_config = #iree_gpu.lowering_config<{mma_kind "
                         "= #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, "
                         "promote_operands = [0, 1], reduction = [0, 0, 0, "
                         "0, 1, 1, 4], subgroup = [1, 2, 1, 2, 0, 0, 0], "
                         "workgroup = [1, 4, 32, 64, 0, 0, 0]}>, strides"),
            std::string::npos);
  auto again = readIreeDispatch(dropped, path);
  ASSERT_FALSE(static_cast<bool>(again));
  EXPECT_NE(llvm::toString(again.takeError()).find("root_op"), std::string::npos);

  // The v3.10 unit form, alone in its dictionary, and in a generic's attrs.
  std::string unit = "%7 = linalg.matmul {root_op} ins(%3, %4 : tensor<4x4xf32>, "
                     "tensor<4x4xf32>) outs(%6 : tensor<4x4xf32>) -> "
                     "tensor<4x4xf32>\n%8 = linalg.generic {indexing_maps = []} "
                     "attrs =  {root_op} {\n}\n";
  EXPECT_EQ(llvm::cantFail(dropRootOp(unit, "unit")),
            "%7 = linalg.matmul ins(%3, %4 : tensor<4x4xf32>, "
            "tensor<4x4xf32>) outs(%6 : tensor<4x4xf32>) -> "
            "tensor<4x4xf32>\n%8 = linalg.generic {indexing_maps = []} {\n}\n");
}

TEST(IreeReader, RejectsDispatchWithoutTunableRoot) {
  std::string text =
      "hal.executable private @e {\n  hal.executable.variant public @v "
      "target(<\"rocm\", \"rocm-hsaco-fb\">) {\n    builtin.module {\n      "
      "func.func @f() {\n        %1 = linalg.generic {indexing_maps = "
      "[affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types "
      "= [\"parallel\"]} ins(%0 : tensor<4xf32>) outs(%0 : tensor<4xf32>) "
      "attrs = {root_op} {\n        ^bb0(%in: f32, %out: f32):\n          "
      "%x = arith.negf %in : f32\n          "
      "linalg.yield %x : f32\n        } -> tensor<4xf32>\n        return\n  "
      "    }\n    }\n  }\n}\n";
  auto d = readIreeDispatch(text, "elementwise.mlir");
  ASSERT_FALSE(static_cast<bool>(d));
  std::string message = llvm::toString(d.takeError());
  EXPECT_NE(message.find("elementwise.mlir:5"), std::string::npos) << message;
  EXPECT_NE(message.find("not a contraction"), std::string::npos) << message;
  EXPECT_NE(message.find("only move data"), std::string::npos) << message;
}

// A transpose IREE 3.13 dumped for this CPU (24x4097 f32, llvm-cpu): an op
// that only moves data, tuned as an elementwise problem with vector lanes on
// the input's and the output's innermost dims.
TEST(IreeReader, TransposeIsDataMovement) {
  IreeDispatch d = readDump(
      "cpu-transpose", "module_main_dispatch_0_embedded_elf_x86_64_benchmark.mlir");
  EXPECT_EQ(d.problem.kind, OpKind::Elementwise);
  EXPECT_EQ(d.problem.opName, "linalg.generic");
  EXPECT_EQ(d.problem.dimRoles, "vv");
  EXPECT_EQ(d.problem.loopRanges, (llvm::SmallVector<int64_t>{24, 4097}));
  EXPECT_EQ(d.problem.indexingMaps,
            (llvm::SmallVector<std::string>{
                "affine_map<(d0, d1) -> (d0, d1)>",
                "affine_map<(d0, d1) -> (d1, d0)>"}));
  EXPECT_EQ(d.problem.readableName(), "elementwise_24x4097_f32");
}

TEST(IreeReader, AnIm2colIntoAPackIsAWindowCopy) {
  // The ViT decoder's im2col: (c, kh, kw, h, w) <- input (c, kh + h,
  // kw + w), fused with the pack that data tiling stores it through.
  std::string path = testdata("fixtures/im2col-pack/benchmark.mlir");
  llvm::Expected<IreeDispatch> d = readIreeDispatch(readTestFile(path), path);
  ASSERT_TRUE(bool(d)) << llvm::toString(d.takeError());
  EXPECT_EQ(d->problem.kind, OpKind::Elementwise);
  EXPECT_EQ(d->problem.opName, "linalg.generic");
  EXPECT_EQ(d->problem.dimRoles, "ppppv");
  EXPECT_EQ(d->problem.loopRanges,
            (llvm::SmallVector<int64_t>{128, 4, 4, 128, 128}));
}

TEST(IreeReader, AStridedIm2colIntoAPackIsAWindowCopy) {
  // The CRNN's first convolution at stride 2: (c, kh, kw, h, w) <- input
  // (c, h * 2 + kh, w * 2 + kw), fused with its pack (5.4% of the model at
  // 2 threads, not tuned while strided windows went unrecognized).
  std::string path = testdata("fixtures/im2col-strided-pack/benchmark.mlir");
  llvm::Expected<IreeDispatch> d = readIreeDispatch(readTestFile(path), path);
  ASSERT_TRUE(bool(d)) << llvm::toString(d.takeError());
  EXPECT_EQ(d->problem.kind, OpKind::Elementwise);
  EXPECT_EQ(d->problem.dimRoles, "ppppv");
  EXPECT_EQ(d->problem.loopRanges,
            (llvm::SmallVector<int64_t>{3, 7, 7, 30, 80}));
}

// What IREE 3.13 leaves in a data-tiled llvm-cpu dispatch after
// --iree-codegen-strip-compilation-info (recorded from the MLP with
// --iree-opt-data-tiling).
TEST(IreeReader, DropsLoweringConfigsLeftByTheStripPass) {
  const char *text =
      "#config = #iree_cpu.lowering_config<vector_common_parallel = [16, 16]>\n"
      "func.func @f(%a: tensor<16x32x16x16xf32>, %b: tensor<256x512xf32>) {\n"
      "  %unpack = linalg.unpack %a outer_dims_perm = [0, 1] inner_dims_pos = "
      "[0, 1] inner_tiles = [16, 16] into %b {lowering_config = #config} : "
      "tensor<16x32x16x16xf32> -> tensor<256x512xf32>\n"
      "  %x = arith.addf %b, %b {other = 1, lowering_config = #config} : "
      "tensor<256x512xf32>\n  return\n}\n";
  std::string clean = llvm::cantFail(dropLoweringConfigs(text, "d.mlir"));
  // The alias definition may stay; no op refers to it.
  EXPECT_EQ(clean.find("lowering_config = #config"), std::string::npos) << clean;
  EXPECT_NE(clean.find("into %b : tensor<16x32x16x16xf32>"), std::string::npos)
      << clean;
  EXPECT_NE(clean.find("{other = 1}"), std::string::npos) << clean;
}

} // namespace
