//===- TextSpecLinkerTest.cpp - The fake iree-opt's spec linking ----------===//
#include "tests/fakes/TextSpecLinker.h"

#include "stages/backends/iree/IreeSpec.h"
#include "stages/backends/iree/MlirText.h"
#include "stages/backends/iree/TestUtil.h"
#include "stages/backends/iree/TransformText.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;
using namespace retune::iree::fakes;
using namespace retune::iree::testing;

namespace {

SpecEntry entryFor(Problem p, int64_t m, const std::string &suffix) {
  p.loopRanges[0] = m;
  return SpecEntry{p, "#iree_codegen.compilation_info<m" + std::to_string(m) + ">",
                   suffix};
}

/// The named sequences of the top module, in order, and the merged pairs.
void readLinked(const std::string &text, std::vector<std::string> &names,
                ForeachMatch &fm, bool &consumed) {
  auto file = llvm::cantFail(TextFile::parse(text, "linked"));
  const OpNode &module = file->ops().front();
  for (const OpNode &op : module.regions.front()) {
    NamedSequence seq = readNamedSequence(*file, op);
    names.push_back(seq.name);
    if (seq.name == "__kernel_config") {
      consumed = seq.args[0].consumed();
      fm = readForeachMatch(*file, op.regions.front().front());
    }
  }
}

TEST(TextSpecLinker, MergesWithNumericSuffixes) {
  // Three specs, each with @apply_op_config; the third also has a helper
  // @apply_op_config_0 that already takes the first free suffix.
  std::string a = emitTuningSpec({entryFor(matmulTransposeB(), 128, "d0")});
  std::string b = emitTuningSpec({entryFor(matmulTransposeB(), 256, "d1"),
                                  entryFor(matmulTransposeB(), 512, "d2")});
  std::string c = emitTuningSpec({entryFor(matmulTransposeB(), 1024, "d3")});
  // A helper in c named like the suffix the linker would pick first.
  std::string helper =
      "  transform.named_sequence @apply_op_config_0(%arg0: !transform.any_op "
      "{transform.readonly}) {\n    transform.yield\n  }\n";
  c.insert(c.find("  transform.named_sequence @match_d3"), helper);
  // b's argument is readonly: the merged entry is consumed because a's is.
  b.replace(b.find("{transform.consumed}"), strlen("{transform.consumed}"),
            "{transform.readonly}");

  llvm::Expected<LinkResult> linked =
      linkTuningSpecs({{"a.mlir", a}, {"b.mlir", b}, {"c.mlir", c}});
  ASSERT_TRUE(static_cast<bool>(linked)) << llvm::toString(linked.takeError());
  EXPECT_EQ(linked->mode, LinkMode::Merge);
  expectGolden(linked->text, "linked_merge.mlir");

  std::vector<std::string> names;
  ForeachMatch fm;
  bool consumed = false;
  readLinked(linked->text, names, fm, consumed);
  // Hoisting order = input order; later clashes renamed with the first free
  // suffix: b's apply_op_config -> _0; c's apply_op_config -> _1 (_0 is
  // taken); c's own helper apply_op_config_0 then clashes -> _0_0.
  EXPECT_EQ(names, (std::vector<std::string>{
                       "apply_op_config", "match_d0", "apply_op_config_0",
                       "match_d1", "match_d2", "apply_op_config_1",
                       "apply_op_config_0_0", "match_d3", "__kernel_config"}));
  ASSERT_EQ(fm.pairs.size(), 4u);
  EXPECT_EQ(fm.pairs[0], std::make_pair(std::string("match_d0"),
                                        std::string("apply_op_config")));
  EXPECT_EQ(fm.pairs[1], std::make_pair(std::string("match_d1"),
                                        std::string("apply_op_config_0")));
  EXPECT_EQ(fm.pairs[2], std::make_pair(std::string("match_d2"),
                                        std::string("apply_op_config_0")));
  EXPECT_EQ(fm.pairs[3], std::make_pair(std::string("match_d3"),
                                        std::string("apply_op_config_1")));
  EXPECT_TRUE(consumed);
  EXPECT_FALSE(static_cast<bool>(verifyTuningSpec(linked->text, "linked")));
}

TEST(TextSpecLinker, ReadonlyWhenNoInputConsumes) {
  std::string a = emitTuningSpec({entryFor(matmulTransposeB(), 128, "x")});
  std::string b = emitTuningSpec({entryFor(matmulTransposeB(), 256, "y")});
  for (std::string *s : {&a, &b})
    s->replace(s->find("{transform.consumed}"), strlen("{transform.consumed}"),
               "{transform.readonly}");
  LinkResult linked = llvm::cantFail(linkTuningSpecs({{"a", a}, {"b", b}}));
  std::vector<std::string> names;
  ForeachMatch fm;
  bool consumed = true;
  readLinked(linked.text, names, fm, consumed);
  EXPECT_FALSE(consumed);
}

TEST(TextSpecLinker, SingleSpecUnchanged) {
  std::string a = emitTuningSpec({entryFor(matmulTransposeB(), 128, "x")});
  LinkResult linked = llvm::cantFail(linkTuningSpecs({{"a", a}}));
  EXPECT_EQ(linked.mode, LinkMode::Single);
  EXPECT_EQ(linked.text, a);
}

TEST(TextSpecLinker, FallsBackToIncludeWithoutDefaultEntrypoint) {
  std::string a = emitTuningSpec({entryFor(matmulTransposeB(), 128, "x")});
  std::string matmulSpec = readTestFile(testdata("fixtures/tuning_spec_matmul.mlir"));
  llvm::Expected<LinkResult> linked =
      linkTuningSpecs({{"a.mlir", a}, {"matmul.mlir", matmulSpec}});
  ASSERT_TRUE(static_cast<bool>(linked)) << llvm::toString(linked.takeError());
  EXPECT_EQ(linked->mode, LinkMode::Include);
  expectGolden(linked->text, "linked_include.mlir");
  EXPECT_NE(linked->text.find("transform.include @a_mlir::@__kernel_config_1 "
                              "failures(suppress) (%arg0)"),
            std::string::npos);
  EXPECT_NE(linked->text.find("transform.include @matmul_spec::@main "
                              "failures(suppress) (%0)"),
            std::string::npos);
}

TEST(TextSpecLinker, FallsBackToIncludeOnNonSequenceClash) {
  std::string a = emitTuningSpec({entryFor(matmulTransposeB(), 128, "x")});
  std::string b = emitTuningSpec({entryFor(matmulTransposeB(), 256, "y")});
  std::string func = "  func.func private @shared()\n";
  for (std::string *s : {&a, &b})
    s->insert(s->find("  transform.named_sequence"), func);
  LinkResult linked = llvm::cantFail(linkTuningSpecs({{"a", a}, {"b", b}}));
  EXPECT_EQ(linked.mode, LinkMode::Include);
  ASSERT_FALSE(linked.notes.empty());
  EXPECT_NE(linked.notes.front().find("@shared"), std::string::npos);
}

TEST(TextSpecLinker, IncludeRequiresConsistentArguments) {
  std::string matmulSpec =
      readTestFile(testdata("fixtures/tuning_spec_matmul.mlir"));
  std::string readonlySpec = matmulSpec;
  readonlySpec.replace(readonlySpec.find("{transform.consumed}"),
                       strlen("{transform.consumed}"), "{transform.readonly}");
  readonlySpec.replace(readonlySpec.find("@matmul_spec"),
                       strlen("@matmul_spec"), "@other");
  llvm::Expected<LinkResult> linked =
      linkTuningSpecs({{"a", matmulSpec}, {"b", readonlySpec}});
  ASSERT_FALSE(static_cast<bool>(linked));
  EXPECT_NE(llvm::toString(linked.takeError()).find("consistently readonly or "
                                                    "consumed"),
            std::string::npos);
}

} // namespace

namespace {

/// Our spec first, IREE's own gfx942 default spec second (as
/// MaterializeTuningSpecs orders user and default specs).
TEST(TextSpecLinker, MergesWithIreeDefaultSpec) {
  std::string ours = emitTuningSpec({entryFor(matmulTransposeB(), 2048, "mm")});
  std::string iree =
      readTestFile(testdata("fixtures/iree_default_tuning_spec_gfx942.mlir"));
  LinkResult linked =
      llvm::cantFail(linkTuningSpecs({{"ours", ours}, {"gfx942", iree}}));
  EXPECT_EQ(linked.mode, LinkMode::Merge);
  std::vector<std::string> names;
  ForeachMatch fm;
  bool consumed = false;
  readLinked(linked.text, names, fm, consumed);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "apply_op_config", "match_mm", "apply_op_config_0",
                       "apply_attn_op_config",
                       "match_attention_2x10x4096x64x64x64_f16",
                       "match_mmt_2048x1280x5120_f16_f16_f32", "__kernel_config"}));
  ASSERT_EQ(fm.pairs.size(), 3u);
  EXPECT_EQ(fm.pairs[0].first, "match_mm");
  EXPECT_EQ(fm.pairs[1].second, "apply_attn_op_config");
  EXPECT_EQ(fm.pairs[2], std::make_pair(std::string("match_mmt_2048x1280x5120_f16_f16_f32"),
                                        std::string("apply_op_config_0")));
  EXPECT_TRUE(consumed);
}

} // namespace
