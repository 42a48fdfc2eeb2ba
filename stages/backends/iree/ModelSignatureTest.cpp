//===- ModelSignatureTest.cpp - Entry functions and benchmark inputs ------===//
#include "stages/backends/iree/ModelSignature.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;

namespace {

// The head of what iree-import-onnx 3.13 writes for MiniLM made static.
constexpr const char *kImportedOnnx =
    "module {\n"
    "  func.func @main_graph(%arg0: !torch.vtensor<[1,128],si64>, %arg1: "
    "!torch.vtensor<[1,128],si64>) -> !torch.vtensor<[?,384],f32> attributes "
    "{torch.onnx_meta.ir_version = 8 : si64} {\n"
    "    %0 = torch.operator \"onnx.Constant\"() : () -> !torch.vtensor<[],f32>\n"
    "    return %0 : !torch.vtensor<[?,384],f32>\n  }\n}\n";

constexpr const char *kLinalg =
    "func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32>\n"
    "func.func @forward(%x: tensor<256x1024xf32>,\n"
    "                   %w1: tensor<1024x1024xf32> {some.attr = 1}, %s: "
    "tensor<f16>)\n    -> tensor<256x512xf32> {\n  return\n}\n";

TEST(ModelSignature, ImportedOnnxModel) {
  Expected<EntryFunction> f = readEntryFunction(kImportedOnnx, "", "m.mlir");
  ASSERT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
  EXPECT_EQ(f->name, "main_graph");
  EXPECT_EQ(f->inputs, (std::vector<std::string>{"1x128xi64", "1x128xi64"}));
}

TEST(ModelSignature, AQuotedNameIsTheNameWithoutQuotes) {
  // rapidocr-onnxruntime's PP-OCRv4 detector: its ONNX graph is named
  // "Model from PaddlePaddle.", and iree-import-onnx 3.13 quotes it.
  constexpr const char *kQuoted =
      "module {\n"
      "  func.func @\"Model from PaddlePaddle.\"(%arg0: "
      "!torch.vtensor<[1,3,640,640],f32>) -> !torch.vtensor<[1,1,640,640],f32> "
      "attributes {torch.onnx_meta.ir_version = 8 : si64} {\n  }\n}\n";
  Expected<EntryFunction> f = readEntryFunction(kQuoted, "", "m.mlir");
  ASSERT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
  EXPECT_EQ(f->name, "Model from PaddlePaddle.");
  EXPECT_EQ(f->inputs, (std::vector<std::string>{"1x3x640x640xf32"}));
  Expected<EntryFunction> named =
      readEntryFunction(kQuoted, "Model from PaddlePaddle.", "m.mlir");
  EXPECT_TRUE(static_cast<bool>(named)) << llvm::toString(named.takeError());
}

TEST(ModelSignature, LinalgModelSkipsPrivateFunctions) {
  Expected<EntryFunction> f = readEntryFunction(kLinalg, "", "m.mlir");
  ASSERT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
  EXPECT_EQ(f->name, "forward");
  EXPECT_EQ(f->inputs, (std::vector<std::string>{"256x1024xf32",
                                                 "1024x1024xf32", "f16"}));
}

TEST(ModelSignature, ErrorsNameTheFunctionsAndTheFix) {
  Expected<EntryFunction> missing =
      readEntryFunction(kLinalg, "nosuch", "m.mlir");
  ASSERT_FALSE(static_cast<bool>(missing));
  std::string message = llvm::toString(missing.takeError());
  EXPECT_NE(message.find("no public function @nosuch (public functions: "
                         "@forward)"),
            std::string::npos)
      << message;
  std::string two = std::string(kLinalg) +
                    "func.func @other(%y: tensor<2xf32>) { return }\n";
  Expected<EntryFunction> ambiguous = readEntryFunction(two, "", "m.mlir");
  ASSERT_FALSE(static_cast<bool>(ambiguous));
  message = llvm::toString(ambiguous.takeError());
  EXPECT_NE(message.find("2 public functions (@forward, @other)"),
            std::string::npos)
      << message;
  Expected<EntryFunction> dynamic = readEntryFunction(
      "func.func @f(%a: tensor<?x4xf32>) { return }", "", "d.mlir");
  ASSERT_FALSE(static_cast<bool>(dynamic));
  message = llvm::toString(dynamic.takeError());
  EXPECT_NE(message.find("d.mlir:1: argument 0 of @f has type tensor<?x4xf32>"),
            std::string::npos)
      << message;
}

} // namespace
