//===- IreeSpecTest.cpp - Spec emission and IREE's tuning-spec rules ------===//
#include "stages/backends/iree/IreeSpec.h"

#include "stages/backends/iree/IreeIr.h"

#include "stages/backends/iree/MlirText.h"
#include "stages/backends/iree/TestUtil.h"

#include "llvm/Support/Regex.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;
using namespace retune::iree::testing;

namespace {

/// The verifiers a spec goes through: the text one, and IREE's own where the
/// project's .venv has IREE (scripts/setup.sh).
std::vector<const IreeIrLibrary *> verifiers() {
  std::vector<const IreeIrLibrary *> all = {nullptr};
  if (const IreeIrLibrary *library =
          IreeIrLibrary::forTool(RETUNE_PROJECT_VENV_BIN "/iree-compile"))
    all.push_back(library);
  return all;
}

const char *verifierName(const IreeIrLibrary *library) {
  return library ? "IREE's verifier" : "the text verifier";
}

void expectBothVerifiersAccept(llvm::StringRef spec, llvm::StringRef name) {
  for (const IreeIrLibrary *library : verifiers()) {
    llvm::Error err = verifyTuningSpec(spec, name, library);
    EXPECT_FALSE(static_cast<bool>(err))
        << verifierName(library) << ": " << llvm::toString(std::move(err))
        << "\n" << spec.str();
  }
}

const char *kTileAndFuseInfo =
    "#iree_codegen.compilation_info<lowering_config = "
    "#iree_gpu.lowering_config<{mma_kind = "
    "#iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, promote_operands = [0, 1], "
    "reduction = [0, 0, 4], subgroup = [4, 4, 0], workgroup = [128, 128, "
    "0]}>, translation_info = #iree_codegen.translation_info<pipeline = "
    "#iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] "
    "subgroup_size = 64, {gpu_pipeline_options = "
    "#iree_gpu.pipeline_options<prefetch_num_stages = 2>, llvm_func_attrs = "
    "{\"amdgpu-waves-per-eu\" = \"2\"}}>>";

TEST(IreeSpec, ContractionGolden) {
  SpecEntry entry{matmulTransposeB(), kTileAndFuseInfo,
                  "main_dispatch_0_matmul_transpose_b_2048x10240x1280_f16xf16xf32"};
  std::string spec = emitTuningSpec({entry});
  expectGolden(spec, "contraction_spec.mlir");
  expectBothVerifiersAccept(spec, "contraction");
}

TEST(IreeSpec, ConvolutionGolden) {
  std::string info =
      "#iree_codegen.compilation_info<lowering_config = "
      "#iree_gpu.lowering_config<{mma_kind = "
      "#iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, promote_operands = [0, "
      "1], reduction = [0, 0, 0, 0, 1, 1, 4], subgroup = [1, 2, 1, 2, 0, 0, "
      "0], workgroup = [1, 4, 32, 64, 0, 0, 0]}>, translation_info = "
      "#iree_codegen.translation_info<pipeline = "
      "#iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] "
      "subgroup_size = 64, {gpu_pipeline_options = "
      "#iree_gpu.pipeline_options<prefetch_num_stages = 2, "
      "use_igemm_convolution = true>}>>";
  SpecEntry entry{convNhwcHwcf(), info, "main_dispatch_3_conv"};
  std::string spec = emitTuningSpec({entry});
  expectGolden(spec, "convolution_spec.mlir");
  EXPECT_NE(spec.find("dims_equal %strides, [1, 1]"), std::string::npos);
  expectBothVerifiersAccept(spec, "convolution");
}

TEST(IreeSpec, StridedConvolutionGeometry) {
  Problem p = convNhwcHwcf();
  p.indexingMaps[0] = "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 "
                      "+ d4 * 3, d2 * 2 + d5, d6)>";
  ConvGeometry g = convGeometry(p);
  EXPECT_EQ(g.strides, (llvm::SmallVector<int64_t>{2, 2}));
  EXPECT_EQ(g.dilations, (llvm::SmallVector<int64_t>{3, 1}));
}

TEST(IreeSpec, AttentionGolden) {
  std::string info =
      "#iree_codegen.compilation_info<lowering_config = "
      "#iree_gpu.lowering_config<{promote_operands = [0, 1, 2], reduction = "
      "[0, 0, 0, 0, 0, 64], subgroup_basis = [[1, 1, 4, 1, 1, 1], [0, 1, 2, "
      "3, 5]], workgroup = [1, 1, 128, 0, 0, 0]}>, translation_info = "
      "#iree_codegen.translation_info<pipeline = "
      "#iree_gpu.pipeline<VectorDistribute> workgroup_size = [256] "
      "subgroup_size = 64, {gpu_pipeline_options = "
      "#iree_gpu.pipeline_options<prefetch_num_stages = 2>}>>";
  std::string decomposition =
      "{pv_attrs = {lowering_config = #iree_gpu.lowering_config<{mma_kind = "
      "#iree_gpu.mma_layout<MFMA_F32_32x32x8_F16>, promote_operands = [1], "
      "subgroup_basis = [[1, 1, 4, 1, 1, 1], [0, 1, 2, 3, 5]]}>}, qk_attrs = "
      "{lowering_config = #iree_gpu.lowering_config<{mma_kind = "
      "#iree_gpu.virtual_mma_layout<VMFMA_F32_32x32x16_F16>, "
      "promote_operands = [0, 1], subgroup_basis = [[1, 1, 4, 1, 1, 1], [0, "
      "1, 2, 4, 5]]}>}}";
  SpecEntry entry{attention(), info, "main_dispatch_7_attention", decomposition};
  std::string spec = emitTuningSpec({entry});
  expectGolden(spec, "attention_spec.mlir");
  expectBothVerifiersAccept(spec, "attention");
}

TEST(IreeSpec, SeveralEntriesAndDefaultNames) {
  SpecEntry a{matmulTransposeB(), kTileAndFuseInfo, ""};
  SpecEntry b{matmulTransposeB(), kTileAndFuseInfo, ""};
  std::string spec = emitTuningSpec({a, b});
  std::string name = matcherName(a);
  EXPECT_NE(spec.find("@" + name + " -> @apply_op_config,"), std::string::npos);
  EXPECT_NE(spec.find("@" + name + "_1 -> @apply_op_config\n"),
            std::string::npos);
  expectBothVerifiersAccept(spec, "two");
}

TEST(IreeSpec, EmptySpecVerifies) {
  expectBothVerifiersAccept(emitEmptySpec(), "baseline");
  EXPECT_EQ(emitTuningSpec({}), emitEmptySpec());
}

TEST(IreeSpec, CpuLoweringConfig) {
  CpuTileSizes tiles;
  tiles.distribution = {64, 64, 0};
  tiles.vectorCommonParallel = {8, 16, 0};
  tiles.vectorReduction = {0, 0, 8};
  EXPECT_EQ(cpuLoweringConfig(tiles),
            "#iree_cpu.lowering_config<distribution = [64, 64, 0], "
            "vector_common_parallel = [8, 16, 0], vector_reduction = [0, 0, "
            "8]>");
  tiles.scalableVector = {true, true, false};
  EXPECT_EQ(cpuCompilationInfo(tiles, "#iree_cpu.pipeline<DoubleTilingExpert>"),
            "#iree_codegen.compilation_info<lowering_config = "
            "#iree_cpu.lowering_config<distribution = [64, 64, 0], "
            "vector_common_parallel = [[8], [16], 0], vector_reduction = [0, "
            "0, 8]>, translation_info = "
            "#iree_codegen.translation_info<pipeline = "
            "#iree_cpu.pipeline<DoubleTilingExpert>>>");
  Problem p = matmulTransposeB();
  p.target = "cpu:znver4";
  tiles.scalableVector.clear();
  // Spelled for IREE 3.11 and older: IREE 3.13 (the .venv's) rejects it.
  std::string spec = emitTuningSpec(
      {SpecEntry{p, cpuCompilationInfo(tiles, "CPUDoubleTilingExpert"), "mm"}});
  expectGolden(spec, "cpu_contraction_spec.mlir");
  EXPECT_FALSE(static_cast<bool>(verifyTuningSpec(spec, "cpu")));
  expectBothVerifiersAccept(
      emitTuningSpec({SpecEntry{
          p, cpuCompilationInfo(tiles, "#iree_cpu.pipeline<DoubleTilingExpert>"),
          "mm"}}),
      "cpu-3.13");
}

/// A transpose has no named matcher in IREE: its spec matches the one
/// generic by its DAG, with the operands' tensor types from the maps.
TEST(IreeSpec, DataMovementMatchesItsGenericAsADag) {
  Problem p;
  p.kind = OpKind::Elementwise;
  p.opName = "linalg.generic";
  p.loopRanges = {24, 4097};
  p.iteratorTypes = {"parallel", "parallel"};
  p.indexingMaps = {"affine_map<(d0, d1) -> (d0, d1)>",
                    "affine_map<(d0, d1) -> (d1, d0)>"};
  p.elementTypes = {"f32", "f32"};
  p.numInputs = 1;
  p.dimRoles = "vv";
  p.target = "cpu:znver4";
  std::string info =
      "#iree_codegen.compilation_info<lowering_config = "
      "#iree_cpu.lowering_config<distribution = [24, 64], "
      "vector_common_parallel = [8, 8]>, translation_info = "
      "#iree_codegen.translation_info<pipeline = "
      "#iree_cpu.pipeline<DoubleTilingExpert>>>";
  std::string spec = emitTuningSpec({SpecEntry{p, info, "transpose"}});
  expectGolden(spec, "cpu_transpose_spec.mlir");
  EXPECT_NE(spec.find("^bb0(%in: tensor<24x4097xf32>, %init: "
                      "tensor<4097x24xf32>)"),
            std::string::npos)
      << spec;
  expectBothVerifiersAccept(spec, "transpose");
}

/// Every `expected-error` of IREE's verifier test is reproduced: same chunk,
/// same line, same message.
TEST(IreeSpec, VerifierMatchesIreeDiagnostics) {
  std::string path = testdata("fixtures/verify_tuning_specs.mlir");
  std::string text = readTestFile(path);
  std::vector<std::string> chunks = splitInputFile(text);
  ASSERT_EQ(chunks.size(), 19u);
  llvm::Regex expected("expected-error @([+-][0-9]+) *\\{\\{(.*)\\}\\}");
  unsigned checked = 0, olderForm = 0;
  for (const std::string &chunk : chunks) {
    llvm::SmallVector<llvm::StringRef> lines;
    llvm::StringRef(chunk).split(lines, '\n');
    std::string message;
    int line = 0;
    for (auto [index, l] : llvm::enumerate(lines)) {
      llvm::SmallVector<llvm::StringRef> m;
      if (expected.match(l, &m)) {
        int offset = 0;
        m[1].drop_front(m[1][0] == '+').getAsInteger(10, offset);
        line = static_cast<int>(index) + 1 + offset;
        message = m[2].str();
      }
    }
    ASSERT_FALSE(message.empty()) << chunk;
    for (const IreeIrLibrary *library : verifiers()) {
      llvm::Error err =
          verifyTuningSpec(chunk, "verify_tuning_specs.mlir", library);
      ASSERT_TRUE(static_cast<bool>(err))
          << verifierName(library) << " accepted an invalid spec:\n" << chunk;
      std::string got = llvm::toString(std::move(err));
      // The fixture comes from an older IREE; 3.13's strict properties
      // refuse one chunk's `transform.print {name = ...}` before verifying.
      if (library && llvm::StringRef(got).contains(
                         "cannot be parsed from attr-dict when strict "
                         "properties in assembly format is enabled")) {
        ++olderForm;
        continue;
      }
      EXPECT_NE(got.find(message), std::string::npos)
          << verifierName(library) << ": expected: " << message
          << "\ngot: " << got;
      EXPECT_NE(got.find("verify_tuning_specs.mlir:" + std::to_string(line) +
                         ":"),
                std::string::npos)
          << verifierName(library) << ": expected line " << line
          << ", got: " << got;
      ++checked;
    }
  }
  EXPECT_LE(olderForm, 1u);
  EXPECT_EQ(checked + olderForm, 19u * verifiers().size());
}

TEST(IreeSpec, VerifierAcceptsIreeSpecs) {
  for (const char *name :
       {"fixtures/iree_default_tuning_spec_gfx942.mlir",
        "fixtures/tuning_spec_matmul.mlir"}) {
    std::string path = testdata(name);
    expectBothVerifiersAccept(readTestFile(path), path);
  }
}

TEST(IreeSpec, VerifierRejectsWhatIreeCannotLoad) {
  CpuTileSizes tiles;
  tiles.distribution = {64, 64, 0};
  std::string config =
      cpuCompilationInfo(tiles, "#iree_cpu.pipeline<DoubleTilingExpert>");
  std::string spec = emitTuningSpec({SpecEntry{matmulTransposeB(), config, "a"}});
  std::string noAttr = spec;
  noAttr.replace(noAttr.find(", transform.with_named_sequence"),
                 strlen(", transform.with_named_sequence"), "");
  std::string dangling = spec;
  dangling.replace(dangling.find("@match_a -> "), strlen("@match_a -> "),
                   "@match_b -> ");
  for (const IreeIrLibrary *library : verifiers()) {
    SCOPED_TRACE(verifierName(library));
    llvm::Error err = verifyTuningSpec(noAttr, "s.mlir", library);
    ASSERT_TRUE(static_cast<bool>(err));
    std::string message = llvm::toString(std::move(err));
    EXPECT_NE(message.find("transform.with_named_sequence"), std::string::npos)
        << message;
    err = verifyTuningSpec(dangling, "s.mlir", library);
    ASSERT_TRUE(static_cast<bool>(err));
    message = llvm::toString(std::move(err));
    EXPECT_NE(message.find("@match_b"), std::string::npos) << message;
  }
}

} // namespace
