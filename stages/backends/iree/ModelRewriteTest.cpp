//===- ModelRewriteTest.cpp - Strided ConvTransposes as phases, real IREE ===//
//
// Runs with the IREE release in the project's .venv (scripts/setup.sh);
// skipped without it. The rewritten model must compute what the model as
// written does: both are compiled by the real iree-compile and run on the
// same seeded inputs (OutputCheck), weights among them.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/ModelRewrite.h"

#include "stages/backends/iree/ModelFlags.h"
#include "stages/backends/iree/OutputCheck.h"
#include "stages/core/Subprocess.h"
#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;

namespace {

// As iree-import-onnx 3.13 writes an ONNX model: a 4x4 kernel at stride 2
// with padding 1 (a decoder's upsampling, no bias), a 2x2 kernel at stride
// 2 (one tap per phase: one stacked convolution, with a bias) and a 5x5
// kernel at stride 3 (phases of 2x2, 2x1, 1x1, ... taps).
constexpr const char *kModel = R"mlir(
module {
  func.func @main_graph(%x: !torch.vtensor<[1,3,5,6],f32>, %w1: !torch.vtensor<[3,4,4,4],f32>, %w2: !torch.vtensor<[4,2,2,2],f32>, %b2: !torch.vtensor<[2],f32>, %w3: !torch.vtensor<[3,2,5,5],f32>, %b3: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[1,2,20,24],f32>, !torch.vtensor<[1,2,15,18],f32>) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.producer_name = "retune", torch.onnx_meta.producer_version = ""} {
    %0 = torch.operator "onnx.ConvTranspose"(%x, %w1) {torch.onnx.kernel_shape = [4 : si64, 4 : si64], torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,5,6],f32>, !torch.vtensor<[3,4,4,4],f32>) -> !torch.vtensor<[1,4,10,12],f32>
    %1 = torch.operator "onnx.ConvTranspose"(%0, %w2, %b2) {torch.onnx.auto_pad = "NOTSET", torch.onnx.dilations = [1 : si64, 1 : si64], torch.onnx.group = 1 : si64, torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.pads = [0 : si64, 0 : si64, 0 : si64, 0 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,4,10,12],f32>, !torch.vtensor<[4,2,2,2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[1,2,20,24],f32>
    %2 = torch.operator "onnx.ConvTranspose"(%x, %w3, %b3) {torch.onnx.kernel_shape = [5 : si64, 5 : si64], torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64], torch.onnx.strides = [3 : si64, 3 : si64]} : (!torch.vtensor<[1,3,5,6],f32>, !torch.vtensor<[3,2,5,5],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[1,2,15,18],f32>
    return %1, %2 : !torch.vtensor<[1,2,20,24],f32>, !torch.vtensor<[1,2,15,18],f32>
  }
}
)mlir";

const IreeIrLibrary *projectLibrary() {
  return IreeIrLibrary::forTool(RETUNE_PROJECT_VENV_BIN "/iree-compile");
}

size_t count(llvm::StringRef text, llvm::StringRef what) {
  return text.count(what);
}

TEST(ModelRewrite, StridedConvTransposesBecomePhaseConvolutionsAndOthersStay) {
  const IreeIrLibrary *library = projectLibrary();
  if (!library)
    GTEST_SKIP() << "no IREE compiler library in .venv; run scripts/setup.sh";
  std::string text = std::string(kModel);
  // A grouped one and one at stride 1 stay as they are, with why.
  text.insert(text.find("    return"),
              "    %3 = torch.operator \"onnx.ConvTranspose\"(%x, %w1) "
              "{torch.onnx.group = 3 : si64, torch.onnx.strides = [2 : si64, 2 "
              ": si64]} : (!torch.vtensor<[1,3,5,6],f32>, "
              "!torch.vtensor<[3,4,4,4],f32>) -> !torch.vtensor<[1,12,14,16],f32>\n"
              "    %4 = torch.operator \"onnx.ConvTranspose\"(%x, %w1) : "
              "(!torch.vtensor<[1,3,5,6],f32>, !torch.vtensor<[3,4,4,4],f32>) "
              "-> !torch.vtensor<[1,4,8,9],f32>\n");
  auto module = library->parse(text, "model.mlir");
  ASSERT_TRUE(static_cast<bool>(module)) << llvm::toString(module.takeError());
  Expected<RewriteReport> report = rewriteStridedConvTransposes(**module);
  ASSERT_TRUE(static_cast<bool>(report)) << llvm::toString(report.takeError());
  ASSERT_EQ(report->rewritten.size(), 3u);
  EXPECT_EQ(report->rewritten[0],
            "line 4: ConvTranspose 1x3x5x6 -> 1x4x10x12, kernel 4x4, stride 2: "
            "4 phase convolutions and DepthToSpace");
  ASSERT_EQ(report->left.size(), 2u);
  EXPECT_EQ(report->left[0], "line 7: ConvTranspose: left as it is: it has groups");
  EXPECT_EQ(report->left[1],
            "line 8: ConvTranspose: left as it is: its strides are not one "
            "stride above 1 on both axes");
  ASSERT_FALSE(static_cast<bool>((*module)->verify()));
  std::string printed = (*module)->print();
  EXPECT_EQ(count(printed, "\"onnx.ConvTranspose\""), 2u) << printed;
  EXPECT_EQ(count(printed, "\"onnx.DepthToSpace\""), 3u);
  // Four phase convolutions for the first, one stacked for the second,
  // nine for the third.
  EXPECT_EQ(count(printed, "\"onnx.Conv\""), 14u);
}

// A patch embedding as iree-import-onnx writes it (3 channels, 4x4
// patches, a bias), one of 2x3 patches without a bias or kernel_shape
// (optional in ONNX: the weights give it), and convolutions of
// other kinds: a 3x3 at stride 1 (not reported) and padded or with a
// remainder (left, with why).
constexpr const char *kPatches = R"mlir(
module {
  func.func @main_graph(%x: !torch.vtensor<[1,3,8,12],f32>, %w: !torch.vtensor<[5,3,4,4],f32>, %b: !torch.vtensor<[5],f32>, %v: !torch.vtensor<[2,3,2,3],f32>, %k: !torch.vtensor<[4,3,3,3],f32>) -> (!torch.vtensor<[1,5,2,3],f32>, !torch.vtensor<[1,2,4,4],f32>, !torch.vtensor<[1,4,6,10],f32>) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.producer_name = "retune", torch.onnx_meta.producer_version = ""} {
    %0 = torch.operator "onnx.Conv"(%x, %w, %b) {torch.onnx.dilations = [1 : si64, 1 : si64], torch.onnx.group = 1 : si64, torch.onnx.kernel_shape = [4 : si64, 4 : si64], torch.onnx.pads = [0 : si64, 0 : si64, 0 : si64, 0 : si64], torch.onnx.strides = [4 : si64, 4 : si64]} : (!torch.vtensor<[1,3,8,12],f32>, !torch.vtensor<[5,3,4,4],f32>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[1,5,2,3],f32>
    %1 = torch.operator "onnx.Conv"(%x, %v) {torch.onnx.strides = [2 : si64, 3 : si64]} : (!torch.vtensor<[1,3,8,12],f32>, !torch.vtensor<[2,3,2,3],f32>) -> !torch.vtensor<[1,2,4,4],f32>
    %2 = torch.operator "onnx.Conv"(%x, %k) {torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.strides = [1 : si64, 1 : si64]} : (!torch.vtensor<[1,3,8,12],f32>, !torch.vtensor<[4,3,3,3],f32>) -> !torch.vtensor<[1,4,6,10],f32>
    return %0, %1, %2 : !torch.vtensor<[1,5,2,3],f32>, !torch.vtensor<[1,2,4,4],f32>, !torch.vtensor<[1,4,6,10],f32>
  }
}
)mlir";

TEST(ModelRewrite, PatchConvolutionsBecomeGemmsAndOthersStay) {
  const IreeIrLibrary *library = projectLibrary();
  if (!library)
    GTEST_SKIP() << "no IREE compiler library in .venv; run scripts/setup.sh";
  std::string text = std::string(kPatches);
  // Padded, and 3x3 patches of an 8x12 input (a remainder of rows).
  text.insert(text.find("    return"),
              "    %3 = torch.operator \"onnx.Conv\"(%x, %k) "
              "{torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.pads "
              "= [1 : si64, 1 : si64, 1 : si64, 1 : si64], torch.onnx.strides = "
              "[3 : si64, 3 : si64]} : (!torch.vtensor<[1,3,8,12],f32>, "
              "!torch.vtensor<[4,3,3,3],f32>) -> !torch.vtensor<[1,4,3,4],f32>\n"
              "    %4 = torch.operator \"onnx.Conv\"(%x, %k) "
              "{torch.onnx.kernel_shape = [3 : si64, 3 : si64], "
              "torch.onnx.strides = [3 : si64, 3 : si64]} : "
              "(!torch.vtensor<[1,3,8,12],f32>, !torch.vtensor<[4,3,3,3],f32>) "
              "-> !torch.vtensor<[1,4,2,4],f32>\n");
  auto module = library->parse(text, "model.mlir");
  ASSERT_TRUE(static_cast<bool>(module)) << llvm::toString(module.takeError());
  Expected<RewriteReport> report = rewritePatchConvolutions(**module);
  ASSERT_TRUE(static_cast<bool>(report)) << llvm::toString(report.takeError());
  ASSERT_EQ(report->rewritten.size(), 2u);
  EXPECT_EQ(report->rewritten[0],
            "line 4: Conv 1x3x8x12 -> 1x5x2x3, kernel = stride 4x4: a Gemm of "
            "6x48 patches by 5x48");
  EXPECT_EQ(report->rewritten[1],
            "line 5: Conv 1x3x8x12 -> 1x2x4x4, kernel = stride 2x3: a Gemm of "
            "16x18 patches by 2x18");
  ASSERT_EQ(report->left.size(), 2u);
  EXPECT_EQ(report->left[0], "line 7: Conv: left as it is: it pads its input");
  EXPECT_EQ(report->left[1], "line 8: Conv: left as it is: its input is not a "
                             "whole number of patches");
  ASSERT_FALSE(static_cast<bool>((*module)->verify()));
  std::string printed = (*module)->print();
  EXPECT_EQ(count(printed, "\"onnx.Conv\""), 3u) << printed;
  EXPECT_EQ(count(printed, "\"onnx.Gemm\""), 2u);
}

// Depthwise convolutions as iree-import-onnx writes them, in a model of
// opset 12 (where IREE compiles no ONNX Slice with inputs): 3x3 padded with
// a bias, 5x5 with uneven pads and none; of the kind but left: a dilated
// one and a strided one; not of the kind: a plain 3x3 (group 1).
constexpr const char *kDepthwise = R"mlir(
module {
  func.func @main_graph(%x: !torch.vtensor<[1,4,9,10],f32>, %w: !torch.vtensor<[4,1,3,3],f32>, %b: !torch.vtensor<[4],f32>, %v: !torch.vtensor<[4,1,5,5],f32>, %d: !torch.vtensor<[4,1,3,3],f32>, %k: !torch.vtensor<[2,4,3,3],f32>) -> (!torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[1,4,5,5],f32>, !torch.vtensor<[1,2,7,8],f32>) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 12 : si64, torch.onnx_meta.producer_name = "retune", torch.onnx_meta.producer_version = ""} {
    %0 = torch.operator "onnx.Conv"(%x, %w, %b) {torch.onnx.dilations = [1 : si64, 1 : si64], torch.onnx.group = 4 : si64, torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64], torch.onnx.strides = [1 : si64, 1 : si64]} : (!torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[4,1,3,3],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,4,9,10],f32>
    %1 = torch.operator "onnx.Conv"(%x, %v) {torch.onnx.group = 4 : si64, torch.onnx.pads = [1 : si64, 2 : si64, 3 : si64, 2 : si64]} : (!torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[4,1,5,5],f32>) -> !torch.vtensor<[1,4,9,10],f32>
    %2 = torch.operator "onnx.Conv"(%x, %d) {torch.onnx.dilations = [2 : si64, 2 : si64], torch.onnx.group = 4 : si64, torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.pads = [2 : si64, 2 : si64, 2 : si64, 2 : si64]} : (!torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[4,1,3,3],f32>) -> !torch.vtensor<[1,4,9,10],f32>
    %3 = torch.operator "onnx.Conv"(%x, %d) {torch.onnx.group = 4 : si64, torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[4,1,3,3],f32>) -> !torch.vtensor<[1,4,5,5],f32>
    %4 = torch.operator "onnx.Conv"(%x, %k) {torch.onnx.group = 1 : si64, torch.onnx.kernel_shape = [3 : si64, 3 : si64]} : (!torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[2,4,3,3],f32>) -> !torch.vtensor<[1,2,7,8],f32>
    return %0, %1, %2, %3, %4 : !torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[1,4,5,5],f32>, !torch.vtensor<[1,2,7,8],f32>
  }
}
)mlir";

TEST(ModelRewrite, DepthwiseConvolutionsBecomeShiftedMultiplyAdds) {
  const IreeIrLibrary *library = projectLibrary();
  if (!library)
    GTEST_SKIP() << "no IREE compiler library in .venv; run scripts/setup.sh";
  auto module = library->parse(kDepthwise, "model.mlir");
  ASSERT_TRUE(static_cast<bool>(module)) << llvm::toString(module.takeError());
  Expected<RewriteReport> report = rewriteDepthwiseConvolutions(**module);
  ASSERT_TRUE(static_cast<bool>(report)) << llvm::toString(report.takeError());
  ASSERT_EQ(report->rewritten.size(), 2u);
  EXPECT_EQ(report->rewritten[0],
            "line 4: Conv 1x4x9x10 -> 1x4x9x10, depthwise 3x3 at stride 1x1: "
            "9 shifted multiply-adds");
  EXPECT_EQ(report->rewritten[1],
            "line 5: Conv 1x4x9x10 -> 1x4x9x10, depthwise 5x5 at stride 1x1: "
            "25 shifted multiply-adds");
  ASSERT_EQ(report->left.size(), 2u);
  EXPECT_EQ(report->left[0], "line 6: Conv: left as it is: it is dilated");
  EXPECT_EQ(report->left[1], "line 7: Conv: left as it is: it is strided: its "
                             "taps would step over columns");
  ASSERT_FALSE(static_cast<bool>((*module)->verify()));
  std::string printed = (*module)->print();
  EXPECT_EQ(count(printed, "\"onnx.Conv\""), 3u) << printed;
  EXPECT_EQ(count(printed, "\"onnx.Mul\""), 34u);
  // Each tap's input window and weight: rows, then columns.
  EXPECT_EQ(count(printed, "torch.aten.slice.Tensor"), 4u * 34u);
  EXPECT_EQ(count(printed, "\"onnx.Pad\""), 2u);
}

// An exported recurrent step as iree-import-onnx writes it: each step's
// input row (a Gather of the sequence, its index a constant made on the
// way) projected by the same weights and bias, then a recurrence whose
// Gemm reads the previous step's result (which stays as it is).
constexpr const char *kRecurrence = R"mlir(
module {
  func.func @main_graph(%x: !torch.vtensor<[3,1,8],f32>, %w: !torch.vtensor<[5,8],f32>, %b: !torch.vtensor<[5],f32>, %r: !torch.vtensor<[5,5],f32>) -> !torch.vtensor<[1,5],f32> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 12 : si64, torch.onnx_meta.producer_name = "retune", torch.onnx_meta.producer_version = ""} {
    %i0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si64>} : () -> !torch.vtensor<[],si64>
    %x0 = torch.operator "onnx.Gather"(%x, %i0) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3,1,8],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[1,8],f32>
    %p0 = torch.operator "onnx.Gemm"(%x0, %w, %b) {torch.onnx.alpha = 1.000000e+00 : f32, torch.onnx.beta = 1.000000e+00 : f32, torch.onnx.transB = 1 : si64} : (!torch.vtensor<[1,8],f32>, !torch.vtensor<[5,8],f32>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[1,5],f32>
    %h0 = torch.operator "onnx.Tanh"(%p0) : (!torch.vtensor<[1,5],f32>) -> !torch.vtensor<[1,5],f32>
    %i1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<1> : tensor<si64>} : () -> !torch.vtensor<[],si64>
    %x1 = torch.operator "onnx.Gather"(%x, %i1) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3,1,8],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[1,8],f32>
    %p1 = torch.operator "onnx.Gemm"(%x1, %w, %b) {torch.onnx.alpha = 1.000000e+00 : f32, torch.onnx.beta = 1.000000e+00 : f32, torch.onnx.transB = 1 : si64} : (!torch.vtensor<[1,8],f32>, !torch.vtensor<[5,8],f32>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[1,5],f32>
    %q1 = torch.operator "onnx.Gemm"(%h0, %r) {torch.onnx.transB = 1 : si64} : (!torch.vtensor<[1,5],f32>, !torch.vtensor<[5,5],f32>) -> !torch.vtensor<[1,5],f32>
    %s1 = torch.operator "onnx.Add"(%p1, %q1) : (!torch.vtensor<[1,5],f32>, !torch.vtensor<[1,5],f32>) -> !torch.vtensor<[1,5],f32>
    %h1 = torch.operator "onnx.Tanh"(%s1) : (!torch.vtensor<[1,5],f32>) -> !torch.vtensor<[1,5],f32>
    %i2 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2> : tensor<si64>} : () -> !torch.vtensor<[],si64>
    %x2 = torch.operator "onnx.Gather"(%x, %i2) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3,1,8],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[1,8],f32>
    %p2 = torch.operator "onnx.Gemm"(%x2, %w, %b) {torch.onnx.alpha = 1.000000e+00 : f32, torch.onnx.beta = 1.000000e+00 : f32, torch.onnx.transB = 1 : si64} : (!torch.vtensor<[1,8],f32>, !torch.vtensor<[5,8],f32>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[1,5],f32>
    %q2 = torch.operator "onnx.Gemm"(%h1, %r) {torch.onnx.transB = 1 : si64} : (!torch.vtensor<[1,5],f32>, !torch.vtensor<[5,5],f32>) -> !torch.vtensor<[1,5],f32>
    %s2 = torch.operator "onnx.Add"(%p2, %q2) : (!torch.vtensor<[1,5],f32>, !torch.vtensor<[1,5],f32>) -> !torch.vtensor<[1,5],f32>
    %h2 = torch.operator "onnx.Tanh"(%s2) : (!torch.vtensor<[1,5],f32>) -> !torch.vtensor<[1,5],f32>
    return %h2 : !torch.vtensor<[1,5],f32>
  }
}
)mlir";

TEST(ModelRewrite, GemmsSharingWeightsAreBatchedAndTheRecurrenceStays) {
  const IreeIrLibrary *library = projectLibrary();
  if (!library)
    GTEST_SKIP() << "no IREE compiler library in .venv; run scripts/setup.sh";
  auto module = library->parse(kRecurrence, "model.mlir");
  ASSERT_TRUE(static_cast<bool>(module)) << llvm::toString(module.takeError());
  Expected<RewriteReport> report = batchSharedWeightGemms(**module);
  ASSERT_TRUE(static_cast<bool>(report)) << llvm::toString(report.takeError());
  ASSERT_EQ(report->rewritten.size(), 1u);
  EXPECT_EQ(report->rewritten[0], "line 6: 3 Gemms of 1x8 by the same 5x8 "
                                  "weights: one Gemm of 3x8");
  EXPECT_TRUE(report->left.empty());
  ASSERT_FALSE(static_cast<bool>((*module)->verify()));
  std::string printed = (*module)->print();
  // One batched projection and the recurrence's two Gemms.
  EXPECT_EQ(count(printed, "\"onnx.Gemm\""), 3u) << printed;
  // Row slices as torch slices: IREE compiles them at this model's opset
  // 12, where it has no lowering of ONNX's Slice with inputs.
  EXPECT_EQ(count(printed, "torch.aten.slice.Tensor"), 3u);
}

// 3x3 convolutions at stride 1 as iree-import-onnx writes them: padded
// with a bias (as a trained CNN's), unpadded with one, and without one; of
// the kind but left: a dilated one; not of the kind: a strided one, a
// grouped one and a 1x1 with a bias.
constexpr const char *kBiased = R"mlir(
module {
  func.func @main_graph(%x: !torch.vtensor<[1,4,9,10],f32>, %w: !torch.vtensor<[6,4,3,3],f32>, %b: !torch.vtensor<[6],f32>, %g: !torch.vtensor<[4,2,3,3],f32>, %p: !torch.vtensor<[6,4,1,1],f32>) -> (!torch.vtensor<[1,6,9,10],f32>, !torch.vtensor<[1,6,7,8],f32>, !torch.vtensor<[1,6,9,10],f32>, !torch.vtensor<[1,6,9,10],f32>, !torch.vtensor<[1,6,5,5],f32>, !torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[1,6,9,10],f32>) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.producer_name = "retune", torch.onnx_meta.producer_version = ""} {
    %0 = torch.operator "onnx.Conv"(%x, %w, %b) {torch.onnx.dilations = [1 : si64, 1 : si64], torch.onnx.group = 1 : si64, torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64], torch.onnx.strides = [1 : si64, 1 : si64]} : (!torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[6,4,3,3],f32>, !torch.vtensor<[6],f32>) -> !torch.vtensor<[1,6,9,10],f32>
    %1 = torch.operator "onnx.Conv"(%x, %w, %b) : (!torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[6,4,3,3],f32>, !torch.vtensor<[6],f32>) -> !torch.vtensor<[1,6,7,8],f32>
    %2 = torch.operator "onnx.Conv"(%x, %w) {torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64]} : (!torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[6,4,3,3],f32>) -> !torch.vtensor<[1,6,9,10],f32>
    %3 = torch.operator "onnx.Conv"(%x, %w, %b) {torch.onnx.dilations = [2 : si64, 2 : si64], torch.onnx.pads = [2 : si64, 2 : si64, 2 : si64, 2 : si64]} : (!torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[6,4,3,3],f32>, !torch.vtensor<[6],f32>) -> !torch.vtensor<[1,6,9,10],f32>
    %4 = torch.operator "onnx.Conv"(%x, %w, %b) {torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[6,4,3,3],f32>, !torch.vtensor<[6],f32>) -> !torch.vtensor<[1,6,5,5],f32>
    %5 = torch.operator "onnx.Conv"(%x, %g) {torch.onnx.group = 2 : si64, torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64]} : (!torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[4,2,3,3],f32>) -> !torch.vtensor<[1,4,9,10],f32>
    %6 = torch.operator "onnx.Conv"(%x, %p, %b) : (!torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[6,4,1,1],f32>, !torch.vtensor<[6],f32>) -> !torch.vtensor<[1,6,9,10],f32>
    return %0, %1, %2, %3, %4, %5, %6 : !torch.vtensor<[1,6,9,10],f32>, !torch.vtensor<[1,6,7,8],f32>, !torch.vtensor<[1,6,9,10],f32>, !torch.vtensor<[1,6,9,10],f32>, !torch.vtensor<[1,6,5,5],f32>, !torch.vtensor<[1,4,9,10],f32>, !torch.vtensor<[1,6,9,10],f32>
  }
}
)mlir";

TEST(ModelRewrite, WinogradConvolutionsAddTheirBiasAfterThem) {
  const IreeIrLibrary *library = projectLibrary();
  if (!library)
    GTEST_SKIP() << "no IREE compiler library in .venv; run scripts/setup.sh";
  auto module = library->parse(kBiased, "model.mlir");
  ASSERT_TRUE(static_cast<bool>(module)) << llvm::toString(module.takeError());
  Expected<RewriteReport> report = addWinogradConvolutionBiasesAfter(**module);
  ASSERT_TRUE(static_cast<bool>(report)) << llvm::toString(report.takeError());
  ASSERT_EQ(report->rewritten.size(), 2u);
  EXPECT_EQ(report->rewritten[0],
            "line 4: Conv 1x4x9x10 -> 1x6x9x10, 3x3 at stride 1 with a bias: "
            "the bias added after it");
  EXPECT_EQ(report->rewritten[1],
            "line 5: Conv 1x4x9x10 -> 1x6x7x8, 3x3 at stride 1 with a bias: "
            "the bias added after it");
  ASSERT_EQ(report->left.size(), 1u);
  EXPECT_EQ(report->left[0], "line 7: Conv: left as it is: it is dilated");
  ASSERT_FALSE(static_cast<bool>((*module)->verify()));
  std::string printed = (*module)->print();
  EXPECT_EQ(count(printed, "\"onnx.Conv\""), 7u) << printed;
  EXPECT_EQ(count(printed, "\"onnx.Add\""), 2u);
  // The rewritten convolutions keep their padding.
  EXPECT_EQ(count(printed, "torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, "
                           "1 : si64]"),
            4u);
}

/// Compiles `model` and its rewrite by `rewrite` with the real IREE and
/// compares their `results` results on seeded `inputs`; the rewrite is
/// built with `flags` added.
void expectTheRewriteComputesTheModel(
    const char *model, Expected<RewriteReport> (*rewrite)(const IreeIrModule &),
    std::vector<std::string> inputs, unsigned results,
    std::vector<std::string> flags = {}) {
  const IreeIrLibrary *library = projectLibrary();
  std::string bin = RETUNE_PROJECT_VENV_BIN;
  if (!library || !llvm::sys::fs::can_execute(bin + "/iree-run-module"))
    GTEST_SKIP() << "no real IREE in .venv; run scripts/setup.sh";
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("rewrite", dir));
  std::string d(dir);
  auto module = library->parse(model, "model.mlir");
  ASSERT_TRUE(static_cast<bool>(module)) << llvm::toString(module.takeError());
  Expected<RewriteReport> report = rewrite(**module);
  ASSERT_TRUE(report && !report->rewritten.empty());
  ASSERT_FALSE(static_cast<bool>(writeFileAtomic(d + "/model.mlir", model)));
  ASSERT_FALSE(static_cast<bool>(
      writeFileAtomic(d + "/rewritten.mlir", (*module)->print())));
  IreeTools tools;
  tools.compile = bin + "/iree-compile";
  tools.run = bin + "/iree-run-module";
  for (std::string name : {"model", "rewritten"}) {
    std::vector<std::string> args = {
        d + "/" + name + ".mlir", "--iree-hal-target-device=local",
        "--iree-hal-local-target-device-backends=llvm-cpu",
        "--iree-llvmcpu-target-cpu=host", "-o", d + "/" + name + ".vmfb"};
    if (name == "rewritten")
      args.insert(args.end(), flags.begin(), flags.end());
    ChildOutcome built =
        runLimited(tools.compile, args, 120, 0, d + "/" + name + ".log");
    ASSERT_EQ(built.status, Status::Ok) << name << ": " << built.message;
  }
  auto seeded = seedInputs(inputs, dir, 3);
  ASSERT_TRUE(static_cast<bool>(seeded));
  auto request = [&](const char *name) {
    return RunRequest{d + "/" + name + ".vmfb", "local-sync", "main_graph",
                      *seeded, d + "/run.log", 60};
  };
  Expected<Reference> reference =
      writeReference(tools, request("model"), d + "/reference");
  ASSERT_TRUE(static_cast<bool>(reference))
      << llvm::toString(reference.takeError());
  EXPECT_EQ(reference->results, results);
  OutputCheck check = checkOutputs(tools, request("rewritten"), *reference);
  EXPECT_EQ(check.status, Status::Ok) << check.message;
  llvm::sys::fs::remove_directories(dir);
}

TEST(ModelRewrite, StridePhasesComputeWhatTheConvTransposesDo) {
  expectTheRewriteComputesTheModel(
      kModel, rewriteStridedConvTransposes,
      {"--input=1x3x5x6xf32", "--input=3x4x4x4xf32", "--input=4x2x2x2xf32",
       "--input=2xf32", "--input=3x2x5x5xf32", "--input=2xf32"},
      2);
}

TEST(ModelRewrite, PatchGemmsComputeWhatTheConvolutionsDo) {
  expectTheRewriteComputesTheModel(
      kPatches, rewritePatchConvolutions,
      {"--input=1x3x8x12xf32", "--input=5x3x4x4xf32", "--input=5xf32",
       "--input=2x3x2x3xf32", "--input=4x3x3x3xf32"},
      3);
}

TEST(ModelRewrite, ShiftedMultiplyAddsComputeWhatTheDepthwiseConvolutionsDo) {
  expectTheRewriteComputesTheModel(
      kDepthwise, rewriteDepthwiseConvolutions,
      {"--input=1x4x9x10xf32", "--input=4x1x3x3xf32", "--input=4xf32",
       "--input=4x1x5x5xf32", "--input=4x1x3x3xf32", "--input=2x4x3x3xf32"},
      5);
}

TEST(ModelRewrite, WinogradComputesWhatTheBiasedConvolutionsDoOnceRewritten) {
  // The flag search's Winograd set (its last default set): without the
  // rewrite, IREE 3.13's transform drops the bias of %0 and %1.
  expectTheRewriteComputesTheModel(
      kBiased, addWinogradConvolutionBiasesAfter,
      {"--input=1x4x9x10xf32", "--input=6x4x3x3xf32", "--input=6xf32",
       "--input=4x2x3x3xf32", "--input=6x4x1x1xf32"},
      7, defaultCpuFlagSets().back());
}

TEST(ModelRewrite, TheBatchedGemmComputesWhatTheStepsDo) {
  expectTheRewriteComputesTheModel(
      kRecurrence, batchSharedWeightGemms,
      {"--input=3x1x8xf32", "--input=5x8xf32", "--input=5xf32",
       "--input=5x5xf32"},
      1);
}

} // namespace
