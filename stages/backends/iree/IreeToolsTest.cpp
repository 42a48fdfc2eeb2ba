//===- IreeToolsTest.cpp - IREE versions and their spellings --------------===//
#include "stages/backends/iree/IreeTools.h"

#include "stages/backends/iree/TestUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;

namespace {

IreeVersion parsed(const char *text) {
  Expected<IreeVersion> v = parseIreeVersion(text);
  EXPECT_TRUE(static_cast<bool>(v)) << text;
  if (!v) {
    llvm::consumeError(v.takeError());
    return {};
  }
  return *v;
}

TEST(IreeTools, ParsesVersions) {
  IreeVersion v =
      parsed("IREE (https://iree.dev):\n  IREE compiler version 3.11.0 @ abc\n");
  EXPECT_EQ(v.line, 11u);
  EXPECT_EQ(v.text, "3.11.0");
  EXPECT_EQ(parsed("IREE compiler version 3.10.1 @ x").line, 10u);
  v = parsed("IREE compiler version 3.12.0rc20260801 @ x");
  EXPECT_EQ(v.line, 12u);
  EXPECT_EQ(v.text, "3.12.0rc20260801");
  EXPECT_EQ(parsed("IREE compiler version 3.8.0 @ x").line, 8u);
}

// What `pip install iree-base-compiler==3.13.0` prints, recorded.
TEST(IreeTools, Release313RunsWithoutAPin) {
  IreeVersion v = parsed(
      "IREE (https://iree.dev):\n  IREE compiler version 3.13.0rc20261016 @ "
      "89ece87b89852100c0a4ac3d515e14842d090967\n  LLVM version 24.0.0git\n"
      "  Optimized build\n");
  EXPECT_EQ(v.line, 13u);
  EXPECT_FALSE(v.newerThanKnown);
  EXPECT_EQ(v.text, "3.13.0rc20261016");
}

TEST(IreeTools, NewerReleasesUseTheNewestSpellingsWithAWarning) {
  IreeVersion v = parsed("IREE compiler version 3.15.0rc20270301 @ x");
  EXPECT_TRUE(v.newerThanKnown);
  EXPECT_EQ(v.line, knownReleases().back().line);
  std::string warning = newerReleaseWarning(v);
  EXPECT_NE(warning.find("3.15.0rc20270301"), std::string::npos) << warning;
  EXPECT_NE(warning.find("3.13"), std::string::npos) << warning;
}

TEST(IreeTools, RejectsUnsupportedVersions) {
  for (const char *text : {"IREE compiler version 3.7.0 @ x",
                           "IREE compiler version 4.0.0 @ x", "clang 22",
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

/// One row per release line: the spellings that line's compiler accepts
/// (iree-interfaces.md, VERSION notes; 3.13 checked with the real compiler).
struct Row {
  unsigned line;
  const char *tunerFlag, *rocmFlag, *rootOp, *gpuPipeline, *cpuPipeline,
      *prefetch, *cpuSpecFlag;
};

TEST(IreeTools, SpellingTableCoversEveryKnownRelease) {
  const char *tunerOld = "--iree-config-add-tuner-attributes";
  const char *tunerNew = "--iree-codegen-add-tuner-attributes";
  const char *rootNew = "root_op = #iree_codegen.root_op<set = 0>";
  const char *library =
      "--iree-codegen-transform-dialect-library=s.mlir@__kernel_config";
  const char *specPath = "--iree-codegen-tuning-spec-path=s.mlir";
  const Row rows[] = {
      {8, tunerOld, "--iree-hip-target", "root_op", "LLVMGPUTileAndFuse",
       "CPUDoubleTilingExpert", "prefetch_shared_memory = true", library},
      {9, tunerOld, "--iree-hip-target", "root_op", "LLVMGPUTileAndFuse",
       "CPUDoubleTilingExpert", "prefetch_shared_memory = true", library},
      {10, tunerOld, "--iree-hip-target", "root_op", "LLVMGPUTileAndFuse",
       "CPUDoubleTilingExpert", "prefetch_num_stages = 2", library},
      {11, tunerNew, "--iree-rocm-target", rootNew, "LLVMGPUTileAndFuse",
       "CPUDoubleTilingExpert", "prefetch_num_stages = 2", specPath},
      {12, tunerNew, "--iree-rocm-target", rootNew,
       "#iree_gpu.pipeline<TileAndFuse>",
       "#iree_cpu.pipeline<DoubleTilingExpert>", "prefetch_num_stages = 2",
       specPath},
      {13, tunerNew, "--iree-rocm-target", rootNew,
       "#iree_gpu.pipeline<TileAndFuse>",
       "#iree_cpu.pipeline<DoubleTilingExpert>", "prefetch_num_stages = 2",
       specPath},
  };
  ASSERT_EQ(knownReleases().size(), std::size(rows));
  for (const Row &row : rows) {
    SCOPED_TRACE("3." + std::to_string(row.line));
    IreeSyntax s = syntaxFor(row.line);
    EXPECT_EQ(s.line, row.line);
    EXPECT_EQ(s.tunerAttributesFlag, row.tunerFlag);
    EXPECT_EQ(s.rocmTargetFlag, row.rocmFlag);
    EXPECT_EQ(s.rootOpAttr, row.rootOp);
    EXPECT_EQ(s.pipeline("gpu", "TileAndFuse"), row.gpuPipeline);
    EXPECT_EQ(s.pipeline("cpu", "DoubleTilingExpert"), row.cpuPipeline);
    EXPECT_NE(s.pipelineOptions(2).find(row.prefetch), std::string::npos);
    EXPECT_EQ(s.specFlags("cpu", "s.mlir"), std::vector<std::string>{row.cpuSpecFlag});
  }
  // 3.13's CUDA target drops --iree-codegen-tuning-spec-path: a CUDA
  // dispatch gets its spec as a transform library, and GPU pipeline names.
  EXPECT_EQ(syntaxFor(13).specFlags("cuda", "s.mlir"),
            std::vector<std::string>{
                "--iree-codegen-transform-dialect-library=s.mlir@__kernel_config"});
  EXPECT_EQ(syntaxFor(13).specFlags("gpu", "s.mlir"),
            std::vector<std::string>{"--iree-codegen-tuning-spec-path=s.mlir"});
  EXPECT_EQ(syntaxFor(13).pipeline("cuda", "TileAndFuse"),
            "#iree_gpu.pipeline<TileAndFuse>");
  EXPECT_EQ(syntaxFor(12).pipeline("cpu", "Mmt4dTilingExpert"),
            "#iree_cpu.pipeline<Mmt4dTilingExpert>");
  EXPECT_EQ(syntaxFor(11).pipeline("cpu", "Mmt4dTilingExpert"),
            "Mmt4dTilingExpert");
}

// The candidates tool once replaced the newest spelling with itself and
// found it again forever; this returns (and would have hung before).
TEST(IreeTools, RespellTerminatesAndSpellsEachRelease) {
  std::string newest =
      "#iree_codegen.translation_info<pipeline = "
      "#iree_gpu.pipeline<VectorDistribute> workgroup_size = [256, 1, 1] "
      "subgroup_size = 64, {gpu_pipeline_options = "
      "#iree_gpu.pipeline_options<prefetch_num_stages = 2>}> "
      "#iree_gpu.pipeline<TileAndFuse> #iree_cpu.pipeline<DoubleTilingExpert>";
  EXPECT_EQ(syntaxFor(13).respell(newest), newest);
  EXPECT_EQ(syntaxFor(12).respell(newest), newest);
  EXPECT_EQ(syntaxFor(11).respell(newest),
            "#iree_codegen.translation_info<pipeline = "
            "LLVMGPUVectorDistribute workgroup_size = [256, 1, 1] "
            "subgroup_size = 64, {gpu_pipeline_options = "
            "#iree_gpu.pipeline_options<prefetch_num_stages = 2>}> "
            "LLVMGPUTileAndFuse CPUDoubleTilingExpert");
  std::string v39 = syntaxFor(9).respell(newest);
  EXPECT_NE(v39.find("prefetch_shared_memory = true"), std::string::npos) << v39;
  EXPECT_EQ(v39.find("prefetch_num_stages"), std::string::npos) << v39;
  EXPECT_NE(syntaxFor(9)
                .respell("prefetch_num_stages = 0")
                .find("prefetch_shared_memory = false"),
            std::string::npos);
}

/// An empty executable at `path`.
void executable(const std::string &path) {
  std::error_code ec;
  llvm::raw_fd_ostream(path, ec);
  ASSERT_FALSE(ec) << path;
  llvm::sys::fs::setPermissions(path, llvm::sys::fs::all_exe |
                                          llvm::sys::fs::owner_read |
                                          llvm::sys::fs::owner_write);
}

TEST(IreeTools, RuntimeToolsAreFoundBesideTheTargetOfALinkedBenchmark) {
  std::string root = iree::testing::scratchDir("tools");
  std::string install = root + "/venv/bin", onPath = root + "/onpath";
  llvm::sys::fs::create_directories(install);
  llvm::sys::fs::create_directories(onPath);
  for (const char *tool : {"iree-compile", "iree-opt", "iree-benchmark-module",
                           "iree-run-module", "iree-profile"})
    executable(install + "/" + tool);
  // Only the three tools the plan needs are linked where it looks.
  for (const char *tool :
       {"iree-compile", "iree-opt", "iree-benchmark-module"})
    ASSERT_FALSE(llvm::sys::fs::create_link(install + "/" + tool,
                                            onPath + "/" + tool));
  IreeToolPaths paths;
  paths.searchDir = onPath;
  paths.version = "3.13.0";
  Expected<IreeTools> tools = findIreeTools(paths, systemProcessRunner());
  ASSERT_TRUE(static_cast<bool>(tools)) << llvm::toString(tools.takeError());
  EXPECT_EQ(tools->benchmark, onPath + "/iree-benchmark-module");
  llvm::SmallString<256> realInstall;
  ASSERT_FALSE(llvm::sys::fs::real_path(install, realInstall));
  EXPECT_EQ(tools->profile, (realInstall + "/iree-profile").str());
  EXPECT_EQ(tools->run, (realInstall + "/iree-run-module").str());
}

} // namespace

