//===- ModelRewriteTest.cpp - Strided ConvTransposes as phases, real IREE ===//
//
// Runs with the IREE release in the project's .venv (scripts/setup.sh);
// skipped without it. The rewritten model must compute what the model as
// written does: both are compiled by the real iree-compile and run on the
// same seeded inputs (OutputCheck), weights among them.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/ModelRewrite.h"

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

TEST(ModelRewrite, TheRewrittenModelComputesWhatTheModelDoes) {
  const IreeIrLibrary *library = projectLibrary();
  std::string bin = RETUNE_PROJECT_VENV_BIN;
  if (!library || !llvm::sys::fs::can_execute(bin + "/iree-run-module"))
    GTEST_SKIP() << "no real IREE in .venv; run scripts/setup.sh";
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("rewrite", dir));
  std::string d(dir);
  auto module = library->parse(kModel, "model.mlir");
  ASSERT_TRUE(static_cast<bool>(module)) << llvm::toString(module.takeError());
  ASSERT_TRUE(static_cast<bool>(rewriteStridedConvTransposes(**module)));
  ASSERT_FALSE(static_cast<bool>(writeFileAtomic(d + "/model.mlir", kModel)));
  ASSERT_FALSE(static_cast<bool>(
      writeFileAtomic(d + "/rewritten.mlir", (*module)->print())));
  IreeTools tools;
  tools.compile = bin + "/iree-compile";
  tools.run = bin + "/iree-run-module";
  for (const char *name : {"model", "rewritten"}) {
    ChildOutcome built = runLimited(
        tools.compile,
        {d + "/" + name + ".mlir", "--iree-hal-target-device=local",
         "--iree-hal-local-target-device-backends=llvm-cpu",
         "--iree-llvmcpu-target-cpu=host", "-o", d + "/" + name + ".vmfb"},
        120, 0, d + "/" + name + ".log");
    ASSERT_EQ(built.status, Status::Ok) << name << ": " << built.message;
  }
  auto inputs = seedInputs({"--input=1x3x5x6xf32", "--input=3x4x4x4xf32",
                            "--input=4x2x2x2xf32", "--input=2xf32",
                            "--input=3x2x5x5xf32", "--input=2xf32"},
                           dir, 3);
  ASSERT_TRUE(static_cast<bool>(inputs));
  auto request = [&](const char *name) {
    return RunRequest{d + "/" + name + ".vmfb", "local-sync", "main_graph",
                      *inputs, d + "/run.log", 60};
  };
  Expected<Reference> reference =
      writeReference(tools, request("model"), d + "/reference");
  ASSERT_TRUE(static_cast<bool>(reference))
      << llvm::toString(reference.takeError());
  EXPECT_EQ(reference->results, 2u);
  OutputCheck check = checkOutputs(tools, request("rewritten"), *reference);
  EXPECT_EQ(check.status, Status::Ok) << check.message;
  llvm::sys::fs::remove_directories(dir);
}

} // namespace
