//===- IreeIrTest.cpp - IREE's library against the text reader ------------===//
//
// Runs with the IREE release in the project's .venv (scripts/setup.sh): IREE's
// own library reads the recorded 3.13 dumps, and the text reader, which the
// fakes still use, must agree with it on every one.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/IreeIr.h"

#include "stages/backends/iree/IreeReader.h"
#include "stages/backends/iree/IreeSpec.h"
#include "stages/backends/iree/IreeTextReader.h"
#include "stages/backends/iree/TestUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;
using namespace retune::iree::testing;

namespace {

const IreeIrLibrary *projectLibrary() {
  return IreeIrLibrary::forTool(RETUNE_PROJECT_VENV_BIN "/iree-compile");
}

#define REQUIRE_IREE_LIBRARY(library)                                          \
  const IreeIrLibrary *library = projectLibrary();                             \
  if (!library)                                                                \
    GTEST_SKIP() << "no IREE compiler library in .venv; run scripts/setup.sh";

/// Every real dump recorded under tests/fakes/data/dumps.
std::vector<std::string> recordedDumps() {
  std::vector<std::string> files;
  std::string root = std::string(RETUNE_SOURCE_DIR) + "/tests/fakes/data/dumps";
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(root, ec), end;
       it != end && !ec; it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with("_benchmark.mlir"))
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(IreeIr, FindsTheLibraryOfAPipInstallAndNoneBesideOtherTools) {
  if (!llvm::sys::fs::exists(RETUNE_PROJECT_VENV_BIN "/iree-compile"))
    GTEST_SKIP() << "no IREE in .venv; run scripts/setup.sh";
  std::string path = findCompilerLibrary(RETUNE_PROJECT_VENV_BIN "/iree-compile");
  EXPECT_TRUE(llvm::StringRef(path).ends_with(
      "/iree/compiler/_mlir_libs/libIREECompiler.so"))
      << path;
  EXPECT_EQ(findCompilerLibrary(std::string(RETUNE_FAKES_DIR) + "/iree-compile"),
            "");
  EXPECT_EQ(findCompilerLibrary(""), "");
}

/// An empty file at `path`, its directories made.
void touch(llvm::StringRef path) {
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
  std::error_code ec;
  llvm::raw_fd_ostream(path, ec);
  ASSERT_FALSE(ec) << path.str();
}

TEST(IreeIr, FindsTheLibraryThroughALinkAndInDebiansDistPackages) {
  std::string root = scratchDir("install");
  // Debian's system pip: /usr/local/bin/iree-compile, the library in
  // /usr/local/lib/python3.11/dist-packages.
  std::string tool = root + "/usr/local/bin/iree-compile";
  std::string library = root + "/usr/local/lib/python3.11/dist-packages/iree/"
                               "compiler/_mlir_libs/libIREECompiler.so";
  touch(tool);
  touch(library);
  EXPECT_EQ(findCompilerLibrary(tool), library);
  // A link on PATH (another directory) finds its target's installation.
  std::string link = root + "/onpath/iree-compile";
  llvm::sys::fs::create_directories(root + "/onpath");
  ASSERT_FALSE(llvm::sys::fs::create_link(tool, link));
  llvm::SmallString<256> found(findCompilerLibrary(link));
  llvm::SmallString<256> expected;
  ASSERT_FALSE(llvm::sys::fs::real_path(library, expected));
  EXPECT_EQ(found, expected);
  // pip's own binary sits beside the library.
  std::string inPackage = root + "/pkg/iree/compiler/_mlir_libs/iree-compile";
  touch(inPackage);
  touch(root + "/pkg/iree/compiler/_mlir_libs/libIREECompiler.so");
  EXPECT_EQ(findCompilerLibrary(inPackage),
            root + "/pkg/iree/compiler/_mlir_libs/libIREECompiler.so");
  // An installation without it: none.
  std::string bare = root + "/bare/bin/iree-compile";
  touch(bare);
  EXPECT_EQ(findCompilerLibrary(bare), "");
}

/// The fakes' attention dump is in an older form (indexing_maps in the
/// attribute dictionary) that IREE 3.13 rejects; 3.13 itself dumps attention
/// for gfx942 as iree_linalg_ext.online_attention.
bool isOlderForm(llvm::StringRef path) {
  return path.ends_with("rocm/module_main_dispatch_2_rocm_hsaco_fb_benchmark.mlir");
}

TEST(IreeIr, RejectsTheFakesOlderAttentionFormAsIree313Does) {
  REQUIRE_IREE_LIBRARY(library);
  std::string path = std::string(RETUNE_SOURCE_DIR) +
                     "/tests/fakes/data/dumps/rocm/"
                     "module_main_dispatch_2_rocm_hsaco_fb_benchmark.mlir";
  ASSERT_TRUE(isOlderForm(path));
  Expected<IreeDispatch> byIree =
      readIreeDispatch(readTestFile(path), path, library);
  ASSERT_FALSE(static_cast<bool>(byIree));
  std::string message = toString(byIree.takeError());
  EXPECT_NE(message.find(":20:14: error: properties dictionary is missing "
                         "required attribute: indexing_maps"),
            std::string::npos)
      << message;
}

TEST(IreeIr, ReadsEveryRecordedDumpAsTheTextReaderDoes) {
  REQUIRE_IREE_LIBRARY(library);
  std::vector<std::string> files = recordedDumps();
  llvm::erase_if(files, [](const std::string &f) { return isOlderForm(f); });
  // cpu, cpu-transpose, cpu-mmt4d (data tiling: two packs, a batch_mmt4d),
  // cpu-softmax, cpu-gelu, cpu-pack, rocm (a matmul, a convolution, one
  // more).
  ASSERT_EQ(files.size(), 11u);
  unsigned refused = 0, onlyIree = 0;
  for (const std::string &path : files) {
    SCOPED_TRACE(path);
    std::string text = readTestFile(path);
    Expected<IreeDispatch> byText = readIreeDispatch(text, path);
    Expected<IreeDispatch> byIree = readIreeDispatch(text, path, library);
    if (!byText && byIree && !byIree->problem.rootDag.empty()) {
      // A computing body is matched by its DAG, which only IREE prints; a
      // pack by its tiling, which only IREE's library reads.
      consumeError(byText.takeError());
      ++onlyIree;
      continue;
    }
    if (!byText || !byIree) {
      // Both refuse it (a pack is not tuned), each with its reason.
      EXPECT_FALSE(static_cast<bool>(byText));
      EXPECT_FALSE(static_cast<bool>(byIree));
      std::string text = byText ? "" : toString(byText.takeError());
      std::string iree = byIree ? "" : toString(byIree.takeError());
      EXPECT_NE(iree.find("' has no indexing maps"), std::string::npos) << iree;
      ++refused;
      continue;
    }
    EXPECT_EQ(byIree->executable, byText->executable);
    EXPECT_EQ(byIree->variant, byText->variant);
    EXPECT_EQ(byIree->exportName, byText->exportName);
    EXPECT_EQ(byIree->funcName, byText->funcName);
    EXPECT_EQ(byIree->benchmarkFunction, byText->benchmarkFunction);
    EXPECT_EQ(byIree->target.backend, byText->target.backend);
    EXPECT_EQ(byIree->target.format, byText->target.format);
    EXPECT_EQ(byIree->target.arch, byText->target.arch);
    EXPECT_EQ(byIree->target.sku, byText->target.sku);
    EXPECT_EQ(byIree->target.cpuFeatures, byText->target.cpuFeatures);
    EXPECT_EQ(byIree->target.triple, byText->target.triple);
    const Problem &a = byIree->problem, &b = byText->problem;
    EXPECT_EQ(a.opName, b.opName);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.numInputs, b.numInputs);
    EXPECT_EQ(a.indexingMaps, b.indexingMaps);
    EXPECT_EQ(a.iteratorTypes, b.iteratorTypes);
    EXPECT_EQ(a.loopRanges, b.loopRanges);
    EXPECT_EQ(a.dimRoles, b.dimRoles);
    EXPECT_EQ(a.elementTypes, b.elementTypes);
    EXPECT_EQ(a.stableId(), b.stableId());
  }
  EXPECT_EQ(refused, 0u);
  EXPECT_EQ(onlyIree, 5u) << "the softmax, the GELU and three packs";
}

std::string softmaxDump() {
  return std::string(RETUNE_SOURCE_DIR) +
         "/tests/fakes/data/dumps/cpu-softmax/"
         "module_main_graph_dispatch_15_embedded_elf_x86_64_benchmark.mlir";
}

/// MiniLM's softmax: its root sums exp(x - max) over a reduction loop. It is
/// neither a contraction nor data movement; IREE has no named matcher for
/// it, so IREE's library prints it as the DAG a spec matches it by.
TEST(IreeIr, AComputingReductionIsMatchedByTheDagIreePrints) {
  REQUIRE_IREE_LIBRARY(library);
  std::string path = softmaxDump();
  Expected<IreeDispatch> d =
      readIreeDispatch(readTestFile(path), path, library);
  ASSERT_TRUE(static_cast<bool>(d)) << toString(d.takeError());
  const Problem &p = d->problem;
  EXPECT_EQ(p.kind, OpKind::Elementwise);
  EXPECT_EQ(p.dimRoles, "pvk");
  EXPECT_EQ(p.loopRanges, (llvm::SmallVector<int64_t>{12, 128, 128}));
  llvm::StringRef dag = p.rootDag;
  EXPECT_TRUE(dag.ltrim().starts_with("%inputs, %outputs = "
                                      "transform.iree.match."
                                      "cast_compatible_dag_from_root %arg0 {"))
      << dag.str();
  EXPECT_TRUE(dag.contains("math.exp")) << dag.str();
  EXPECT_FALSE(dag.contains("root_op")) << dag.str();
  EXPECT_FALSE(dag.contains("lowering_config")) << dag.str();
  // The text reader cannot print a body as a DAG: it leaves the op alone.
  Expected<IreeDispatch> byText = readIreeDispatch(readTestFile(path), path);
  EXPECT_FALSE(static_cast<bool>(byText));
  consumeError(byText.takeError());
  // A spec with it is one IREE accepts.
  std::string spec = emitTuningSpec(
      {SpecEntry{p,
                 "#iree_codegen.compilation_info<lowering_config = "
                 "#iree_cpu.lowering_config<distribution = [1, 0, 0], "
                 "vector_common_parallel = [1, 8, 0], vector_reduction = [0, "
                 "0, 16]>, translation_info = "
                 "#iree_codegen.translation_info<pipeline = "
                 "#iree_cpu.pipeline<DoubleTilingExpert>>>",
                 "softmax"}});
  llvm::Error err = verifyTuningSpec(spec, "softmax.spec.mlir", library);
  EXPECT_FALSE(static_cast<bool>(err)) << toString(std::move(err)) << spec;
}

/// The modules IREE compiles the prepared dispatch of `compiled` into,
/// without and with the spec that gives the root of `tuned` (another dump
/// or the same) `compilationInfo`.
std::pair<std::string, std::string>
compileWithoutAndWithSpec(const std::string &tuned, const std::string &compiled,
                          llvm::StringRef compilationInfo,
                          llvm::StringRef name) {
  const IreeIrLibrary *library = projectLibrary();
  IreeToolPaths paths;
  paths.fallbackDir = RETUNE_PROJECT_VENV_BIN;
  Expected<IreeTools> tools = findIreeTools(paths);
  EXPECT_TRUE(static_cast<bool>(tools)) << toString(tools.takeError());
  if (!tools)
    return {};
  std::string dir = scratchDir(name);
  auto prepare = [&](const std::string &dump, llvm::StringRef as) {
    std::string prepared = dir + "/" + as.str() + ".mlir";
    Expected<IreeDispatch> d = prepareDispatch(*tools, dump, prepared,
                                               dir + "/" + as.str() + ".log");
    EXPECT_TRUE(static_cast<bool>(d)) << toString(d.takeError());
    return d ? std::make_optional(std::make_pair(prepared, d->problem))
             : std::nullopt;
  };
  auto source = prepare(tuned, "tuned");
  auto target = prepare(compiled, "compiled");
  if (!source || !target)
    return {};
  EXPECT_FALSE(source->second.rootDag.empty());
  std::string spec = dir + "/spec.mlir";
  EXPECT_FALSE(static_cast<bool>(writeTuningSpec(
      spec,
      emitTuningSpec(
          {SpecEntry{source->second, compilationInfo.str(), name.str()}}),
      library)));
  auto compile = [&](llvm::StringRef out, bool withSpec) {
    std::vector<std::string> args = {target->first, "-o", out.str()};
    if (withSpec)
      for (const std::string &flag : tools->syntax().specFlags("cpu", spec))
        args.push_back(flag);
    ChildOutcome outcome =
        tools->runTool(tools->compile, args, 120, 0, dir + "/compile.log");
    EXPECT_EQ(outcome.status, Status::Ok) << readTestFile(dir + "/compile.log");
    return readTestFile(out);
  };
  std::string plain = compile(dir + "/plain.vmfb", false);
  EXPECT_FALSE(plain.empty());
  return {plain, compile(dir + "/tuned.vmfb", true)};
}

/// Whether IREE compiles the dump, prepared (IREE's config stripped), with
/// a spec of `compilationInfo` for its problem into another module than
/// without the spec: the spec's matcher reaches the dispatch.
void expectSpecReachesDispatch(const std::string &dump,
                               llvm::StringRef compilationInfo,
                               llvm::StringRef name) {
  REQUIRE_IREE_LIBRARY(library);
  auto [plain, tuned] =
      compileWithoutAndWithSpec(dump, dump, compilationInfo, name);
  EXPECT_NE(plain, tuned) << "the spec did not reach the " << name.str();
}

/// The DAG reaches the dispatch: IREE compiles the prepared softmax with the
/// spec into another module than without it.
TEST(IreeIr, TheSoftmaxSpecChangesTheCompiledDispatch) {
  expectSpecReachesDispatch(
      softmaxDump(),
      "#iree_codegen.compilation_info<lowering_config = "
      "#iree_cpu.lowering_config<distribution = [1, 0, 0], "
      "vector_common_parallel = [1, 8, 0], vector_reduction = [0, 0, "
      "16]>, translation_info = #iree_codegen.translation_info<pipeline "
      "= #iree_cpu.pipeline<DoubleTilingExpert>>>",
      "softmax");
}

std::string geluDump() {
  return std::string(RETUNE_SOURCE_DIR) +
         "/tests/fakes/data/dumps/cpu-gelu/"
         "module_main_graph_dispatch_34_embedded_elf_x86_64_benchmark.mlir";
}

/// A ViT's GELU after data tiling: its body reads constants defined outside
/// it, which IREE's DAG matcher cannot map; it is matched by its name, loops
/// and operand types, and that matcher reaches the dispatch.
TEST(IreeIr, AnOpWhoseBodyReadsConstantsIsMatchedByItsShape) {
  REQUIRE_IREE_LIBRARY(library);
  std::string path = geluDump();
  Expected<IreeDispatch> d =
      readIreeDispatch(readTestFile(path), path, library);
  ASSERT_TRUE(static_cast<bool>(d)) << toString(d.takeError());
  const Problem &p = d->problem;
  EXPECT_EQ(p.kind, OpKind::Elementwise);
  EXPECT_EQ(p.loopRanges, (llvm::SmallVector<int64_t>{257, 1536}));
  llvm::StringRef matcher = p.rootDag;
  EXPECT_TRUE(matcher.contains("matched by shape")) << matcher.str();
  EXPECT_TRUE(matcher.contains("math.erf")) << matcher.str();
  EXPECT_TRUE(matcher.contains("cast_compatible_type %operand1 = "
                               "tensor<1536xf32>"))
      << matcher.str();
  expectSpecReachesDispatch(
      path,
      "#iree_codegen.compilation_info<lowering_config = "
      "#iree_cpu.lowering_config<distribution = [8, 0], "
      "vector_common_parallel = [8, 8]>, translation_info = "
      "#iree_codegen.translation_info<pipeline = "
      "#iree_cpu.pipeline<DoubleTilingExpert>>>",
      "gelu");
}

/// The ViT's pack of its attention probabilities (6x257x257 f32 into 8x1
/// tiles for the next batch_mmt4d): neither structured nor with a body, it
/// is read as an elementwise problem over its destination's outer dims,
/// matched by its name and operand types, and that matcher reaches the
/// dispatch.
TEST(IreeIr, APackIsReadOverItsOuterDimsAndMatchedByItsTypes) {
  REQUIRE_IREE_LIBRARY(library);
  std::string path = std::string(RETUNE_SOURCE_DIR) +
                     "/tests/fakes/data/dumps/cpu-pack/"
                     "module_main_graph_dispatch_21_embedded_elf_x86_64_"
                     "benchmark.mlir";
  Expected<IreeDispatch> d =
      readIreeDispatch(readTestFile(path), path, library);
  ASSERT_TRUE(static_cast<bool>(d)) << toString(d.takeError());
  const Problem &p = d->problem;
  EXPECT_EQ(p.kind, OpKind::Elementwise);
  EXPECT_EQ(p.opName, "linalg.pack");
  EXPECT_EQ(p.loopRanges, (llvm::SmallVector<int64_t>{6, 33, 257}));
  // The loop over the source's untiled innermost dim takes the lanes.
  EXPECT_EQ(p.dimRoles, "ppv");
  llvm::StringRef matcher = p.rootDag;
  EXPECT_TRUE(matcher.contains("inner_tiles = array<i64: 8, 1>"))
      << matcher.str();
  EXPECT_TRUE(matcher.contains("cast_compatible_type %operand1 = "
                               "tensor<6x33x257x8x1xf32>"))
      << matcher.str();
  expectSpecReachesDispatch(
      path,
      "#iree_codegen.compilation_info<lowering_config = "
      "#iree_cpu.lowering_config<distribution = [1, 1, 0], "
      "vector_common_parallel = [1, 1, 8]>, translation_info = "
      "#iree_codegen.translation_info<pipeline = "
      "#iree_cpu.pipeline<DataTiling>>>",
      "pack");
}

std::string mlpFixture(llvm::StringRef file) {
  return std::string(RETUNE_SOURCE_DIR) +
         "/stages/backends/iree/testdata/fixtures/mlp-fused-pack/" + file.str();
}

/// The MLP's pack of its input into 8x1 tiles is the root of its dispatch;
/// the same pack, of the same types, is fused after the first layer's
/// bias and ReLU in another dispatch whose root is the elementwise op. The
/// pack's spec reaches its own dispatch and leaves the other as IREE builds
/// it (matched there too, IREE would refuse two ops setting the dispatch's
/// translation).
TEST(IreeIr, APackRootsSpecLeavesTheSamePackFusedAfterAnotherRootAlone) {
  REQUIRE_IREE_LIBRARY(library);
  llvm::StringRef config =
      "#iree_codegen.compilation_info<lowering_config = "
      "#iree_cpu.lowering_config<distribution = [8, 0], "
      "vector_common_parallel = [1, 8]>, translation_info = "
      "#iree_codegen.translation_info<pipeline = "
      "#iree_cpu.pipeline<DataTiling>>>";
  expectSpecReachesDispatch(mlpFixture("pack-root.mlir"), config, "mlp-pack");
  auto [plain, tuned] = compileWithoutAndWithSpec(
      mlpFixture("pack-root.mlir"), mlpFixture("fused-pack.mlir"), config,
      "mlp-fused-pack");
  EXPECT_EQ(plain, tuned) << "the pack root's spec changed another root's "
                             "dispatch";
}

/// A pack that tiles its source's innermost dim reads whole tiles there
/// already: no loop takes the lanes.
TEST(IreeIr, APackOfTheInnermostDimHasNoLaneLoop) {
  REQUIRE_IREE_LIBRARY(library);
  std::string path = std::string(RETUNE_SOURCE_DIR) +
                     "/tests/fakes/data/dumps/cpu-mmt4d/"
                     "module__encoding_1_embedded_elf_x86_64_benchmark.mlir";
  Expected<IreeDispatch> d =
      readIreeDispatch(readTestFile(path), path, library);
  ASSERT_TRUE(static_cast<bool>(d)) << toString(d.takeError());
  EXPECT_EQ(d->problem.loopRanges, (llvm::SmallVector<int64_t>{8, 8, 64}));
  EXPECT_EQ(d->problem.dimRoles, "ppp");
}

TEST(IreeIr, DropsAttributesAsTheTextReaderDoes) {
  REQUIRE_IREE_LIBRARY(library);
  for (const std::string &path : recordedDumps()) {
    if (isOlderForm(path))
      continue;
    SCOPED_TRACE(path);
    std::string text = readTestFile(path);
    auto module = library->parse(text, path);
    ASSERT_TRUE(static_cast<bool>(module)) << toString(module.takeError());
    EXPECT_EQ((*module)->removeAttrEverywhere("root_op"), 1u);
    (*module)->removeAttrEverywhere("lowering_config");
    std::string byText =
        cantFail(dropLoweringConfigs(cantFail(dropRootOp(text, path)), path));
    auto reread = library->parse(byText, path);
    ASSERT_TRUE(static_cast<bool>(reread)) << toString(reread.takeError());
    EXPECT_EQ((*module)->print(), (*reread)->print());
    EXPECT_EQ(llvm::StringRef((*module)->print()).count("root_op"), 0u);
  }
}

TEST(IreeIr, ParseErrorsGiveIreesDiagnosticWithFileAndLine) {
  REQUIRE_IREE_LIBRARY(library);
  auto module = library->parse("module {\n  func.func @f() {\n    %0 = "
                               "arith.constant 1 : i32\n    return %0\n  }\n}\n",
                               "broken.mlir");
  ASSERT_FALSE(static_cast<bool>(module));
  std::string message = toString(module.takeError());
  EXPECT_NE(message.find("broken.mlir:4:"), std::string::npos) << message;
  EXPECT_NE(message.find("error:"), std::string::npos) << message;
}

TEST(IreeIr, VerifiesWithIreesRules) {
  REQUIRE_IREE_LIBRARY(library);
  std::string spec = readTestFile(
      testdata("fixtures/tuning_spec_matmul.mlir"));
  auto module = library->parse(spec, "tuning_spec_matmul.mlir");
  ASSERT_TRUE(static_cast<bool>(module)) << toString(module.takeError());
  llvm::Error verified = (*module)->verify();
  EXPECT_FALSE(static_cast<bool>(verified)) << toString(std::move(verified));
}

} // namespace
