//===- MlirTextTest.cpp - The focused reader on IREE's real files ---------===//
#include "stages/backends/iree/MlirText.h"

#include "stages/backends/iree/IreeReader.h"
#include "stages/backends/iree/IreeTextReader.h"
#include "stages/backends/iree/IreeSpec.h"
#include "stages/backends/iree/TestUtil.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;
using namespace retune::iree::testing;

namespace {

const char *kFixtures[] = {
    "dump_executable_benchmarks.mlir",     "executable_benchmarks.mlir",
    "iree_default_tuning_spec_gfx942.mlir", "lowering_strategy_from_tuning_spec.mlir",
    "rocm_lowering_strategy_from_tuning_spec.mlir", "tuning_spec_matmul.mlir",
    "verify_tuning_specs.mlir"};

TEST(MlirText, EveryFixtureChunkParses) {
  for (const char *name : kFixtures) {
    std::string text = readTestFile(testdata(std::string("fixtures/") + name));
    for (const std::string &chunk : splitInputFile(text)) {
      auto file = TextFile::parse(chunk, name);
      ASSERT_TRUE(static_cast<bool>(file))
          << name << ": " << llvm::toString(file.takeError());
    }
  }
}

TEST(MlirText, StatementTree) {
  auto file = llvm::cantFail(TextFile::parse(
      readTestFile(testdata("fixtures/iree_default_tuning_spec_gfx942.mlir")),
      "gfx942"));
  ASSERT_EQ(file->ops().size(), 1u);
  const OpNode &module = file->ops().front();
  EXPECT_EQ(module.name, "module");
  EXPECT_EQ(file->symbolName(module), "iree_default_tuning_spec_gfx942");
  EXPECT_TRUE(file->hasUnitAttr(module, "transform.with_named_sequence"));
  std::vector<std::string> names;
  for (const OpNode &op : module.regions.front())
    names.push_back(file->symbolName(op).value_or("?"));
  EXPECT_EQ(names, (std::vector<std::string>{
                       "apply_op_config", "apply_attn_op_config",
                       "match_attention_2x10x4096x64x64x64_f16",
                       "match_mmt_2048x1280x5120_f16_f16_f32",
                       "__kernel_config"}));
  // The multi-line `%batch, ... =\n transform.iree.match.online_attention`
  // statement and the multi-line param.constant dictionary are single ops.
  const OpNode &attention = module.regions.front()[2];
  std::vector<std::string> opNames;
  for (const OpNode &op : attention.regions.front())
    opNames.push_back(op.name);
  EXPECT_EQ(opNames[1], "transform.iree.match.online_attention");
  EXPECT_EQ(attention.regions.front()[1].results.size(), 5u);
  EXPECT_EQ(opNames.back(), "transform.yield");
  EXPECT_EQ(opNames.size(), 17u);
}

/// Every fixture that holds a target is read.
TEST(MlirText, FixtureTargets) {
  std::string dump =
      readTestFile(testdata("fixtures/dump_executable_benchmarks.mlir"));
  std::vector<std::string> chunks = splitInputFile(dump);
  ASSERT_EQ(chunks.size(), 2u);
  auto first = readIreeTargets(chunks[0], "dump_executable_benchmarks.mlir");
  ASSERT_TRUE(static_cast<bool>(first)) << llvm::toString(first.takeError());
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].backend, "llvm-cpu");
  EXPECT_EQ((*first)[0].format, "embedded-elf-x86_64");
  EXPECT_FALSE((*first)[0].isGpu());
  auto second = readIreeTargets(chunks[1], "dump_executable_benchmarks.mlir");
  ASSERT_TRUE(static_cast<bool>(second)) << llvm::toString(second.takeError());
  ASSERT_EQ(second->size(), 3u);
  EXPECT_EQ((*second)[0].format, "embedded-elf-aarch64");
  EXPECT_EQ((*second)[0].problemTarget(), "cpu:aarch64");

  auto rocm = readIreeTargets(
      readTestFile(testdata("fixtures/rocm_lowering_strategy_from_tuning_spec.mlir")),
      "rocm");
  ASSERT_TRUE(static_cast<bool>(rocm)) << llvm::toString(rocm.takeError());
  ASSERT_EQ(rocm->size(), 1u);
  EXPECT_EQ((*rocm)[0].backend, "rocm");
  EXPECT_TRUE((*rocm)[0].isGpu());
}

/// The linalg ops in the fixtures become Problems (named ops with explicit
/// and implicit indexing maps).
TEST(MlirText, FixtureRootOps) {
  struct Case {
    const char *file;
    const char *roles;
    llvm::SmallVector<int64_t> ranges;
    const char *rhsMap;
  } cases[] = {
      {"rocm_lowering_strategy_from_tuning_spec.mlir", "mnk",
       {2048, 10240, 1280}, "affine_map<(d0, d1, d2) -> (d1, d2)>"},
      {"lowering_strategy_from_tuning_spec.mlir", "mnk", {128, 512, 256},
       "affine_map<(d0, d1, d2) -> (d2, d1)>"},
  };
  for (const Case &c : cases) {
    std::string path = testdata(std::string("fixtures/") + c.file);
    auto file = llvm::cantFail(TextFile::parse(readTestFile(path), path));
    std::string opText;
    file->walk([&](const OpNode &op) {
      if (op.name == "linalg.matmul")
        opText = file->opText(op).str();
    });
    ASSERT_FALSE(opText.empty()) << c.file;
    auto problem = problemFromRootOp(opText, "gfx942", path);
    ASSERT_TRUE(static_cast<bool>(problem)) << llvm::toString(problem.takeError());
    EXPECT_EQ(problem->kind, OpKind::Contraction);
    EXPECT_EQ(problem->dimRoles, c.roles);
    EXPECT_EQ(problem->loopRanges, c.ranges);
    EXPECT_EQ(problem->indexingMaps[1], c.rhsMap);
  }
}

TEST(MlirText, ErrorsNameTheLine) {
  auto file = TextFile::parse("module {\n  func.func @f() {\n  return\n", "bad.mlir");
  ASSERT_FALSE(static_cast<bool>(file));
  EXPECT_NE(llvm::toString(file.takeError()).find("bad.mlir:2"), std::string::npos);
}

} // namespace
