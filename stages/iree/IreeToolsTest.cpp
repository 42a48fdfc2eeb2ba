//===- IreeToolsTest.cpp - IREE versions and their spellings --------------===//
#include "stages/iree/IreeTools.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;

namespace {

TEST(IreeTools, ParsesVersions) {
  auto v = llvm::cantFail(parseIreeVersion(
      "IREE (https://iree.dev):\n  IREE compiler version 3.11.0 @ abc\n"));
  EXPECT_EQ(v.era, IreeEra::V3_11);
  EXPECT_EQ(v.text, "3.11.0");
  v = llvm::cantFail(parseIreeVersion("IREE compiler version 3.10.1 @ x"));
  EXPECT_EQ(v.era, IreeEra::V3_10);
  v = llvm::cantFail(
      parseIreeVersion("IREE compiler version 3.12.0rc20260801 @ x"));
  EXPECT_EQ(v.era, IreeEra::Nightly);
  EXPECT_EQ(v.text, "3.12.0rc20260801");
  v = llvm::cantFail(parseIreeVersion("IREE compiler version 3.8.0 @ x"));
  EXPECT_EQ(v.era, IreeEra::V3_10);
}

TEST(IreeTools, RejectsUnsupportedVersions) {
  for (const char *text : {"IREE compiler version 3.7.0 @ x",
                           "IREE compiler version 4.0.0 @ x",
                           "IREE compiler version 3.13.0 @ x", "clang 22",
                           "IREE compiler version 20231016.553 @ f1cb",
                           "IREE compiler version (unknown)"}) {
    auto v = parseIreeVersion(text);
    ASSERT_FALSE(static_cast<bool>(v)) << text;
    std::string message = llvm::toString(v.takeError());
    EXPECT_TRUE(message.find("not supported") != std::string::npos ||
                message.find("cannot read") != std::string::npos ||
                message.find("pin the release") != std::string::npos)
        << message;
  }
}

TEST(IreeTools, SpellingsFollowTheVersion) {
  IreeSyntax old = syntaxFor(IreeEra::V3_10);
  EXPECT_EQ(old.tunerAttributesFlag, "--iree-config-add-tuner-attributes");
  EXPECT_EQ(old.rocmTargetFlag, "--iree-hip-target");
  EXPECT_EQ(old.rootOpAttr, "root_op");
  EXPECT_EQ(old.pipeline("gpu", "TileAndFuse"), "LLVMGPUTileAndFuse");
  EXPECT_EQ(old.pipeline("cpu", "DoubleTilingExpert"), "CPUDoubleTilingExpert");
  EXPECT_EQ(old.specFlags("cpu", "s.mlir"),
            (std::vector<std::string>{
                "--iree-codegen-transform-dialect-library=s.mlir@__kernel_config"}));
  IreeSyntax v311 = syntaxFor(IreeEra::V3_11);
  EXPECT_EQ(v311.tunerAttributesFlag, "--iree-codegen-add-tuner-attributes");
  EXPECT_EQ(v311.rocmTargetFlag, "--iree-rocm-target");
  EXPECT_EQ(v311.rootOpAttr, "root_op = #iree_codegen.root_op<set = 0>");
  EXPECT_EQ(v311.pipeline("gpu", "VectorDistribute"), "LLVMGPUVectorDistribute");
  EXPECT_EQ(v311.specFlags("cpu", "s.mlir"),
            (std::vector<std::string>{"--iree-codegen-tuning-spec-path=s.mlir"}));
  IreeSyntax nightly = syntaxFor(IreeEra::Nightly);
  EXPECT_EQ(nightly.pipeline("gpu", "TileAndFuse"),
            "#iree_gpu.pipeline<TileAndFuse>");
  EXPECT_EQ(nightly.pipeline("cpu", "Mmt4dTilingExpert"),
            "#iree_cpu.pipeline<Mmt4dTilingExpert>");
  EXPECT_EQ(nightly.pipelineOptions(2),
            "#iree_gpu.pipeline_options<prefetch_num_stages = 2>");
}

} // namespace
