//===- ConfiguredExecutablesTest.cpp - A config the spec cannot deliver ---===//
//
// With the IREE release in the project's .venv (scripts/setup.sh); skipped
// without it. The model is a batch-1 NCHW convolution: IREE 3.13 folds its
// unit batch before the spec runs, so a spec written for the 7-loop form
// the dispatch dump holds (testdata/fixtures/conv-batch1) leaves the
// model's module byte-identical. Delivered as the model's configured
// executable, the same candidate changes the module and keeps its results.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/ConfiguredExecutables.h"

#include "stages/backends/iree/IreeIr.h"
#include "stages/backends/iree/OutputCheck.h"
#include "stages/backends/iree/TestUtil.h"
#include "stages/core/Subprocess.h"
#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;
using namespace retune::iree::testing;

namespace {

const std::vector<std::string> kCpuFlags = {
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host"};

class RealIreeExecutables : public ::testing::Test {
protected:
  void SetUp() override {
    std::string bin = RETUNE_PROJECT_VENV_BIN;
    if (!llvm::sys::fs::can_execute(bin + "/iree-compile"))
      GTEST_SKIP() << "real IREE is not installed in " << bin
                   << " (scripts/setup.sh installs it)";
    IreeToolPaths paths;
    paths.compile = bin + "/iree-compile";
    paths.opt = bin + "/iree-opt";
    paths.benchmark = bin + "/iree-benchmark-module";
    Expected<IreeTools> found = findIreeTools(paths);
    ASSERT_TRUE(static_cast<bool>(found)) << toString(found.takeError());
    tools = std::move(*found);
    tools.run = bin + "/iree-run-module";
    library = IreeIrLibrary::forTool(tools.compile);
    if (!library)
      GTEST_SKIP() << "IREE's compiler library is not beside "
                   << tools.compile;
    dir = scratchDir("configured-executables");
  }

  /// The model compiled with `extra` flags into `<name>.vmfb`.
  std::string build(StringRef name, std::vector<std::string> extra) {
    std::vector<std::string> args = {model};
    args.insert(args.end(), kCpuFlags.begin(), kCpuFlags.end());
    args.insert(args.end(), extra.begin(), extra.end());
    std::string vmfb = dir + "/" + name.str() + ".vmfb";
    args.push_back("-o");
    args.push_back(vmfb);
    ChildOutcome built = runLimited(tools.compile, args, 300, 0,
                                    dir + "/" + name.str() + ".log");
    EXPECT_EQ(built.status, Status::Ok) << built.message;
    return vmfb;
  }

  RunRequest request(const std::string &vmfb) {
    auto inputs = seedInputs({"--input=1x64x32x32xf32", "--input=128x64x3x3xf32"},
                             dir, 3);
    EXPECT_TRUE(static_cast<bool>(inputs));
    return {vmfb, "local-sync", "main",
            inputs ? *inputs : std::vector<std::string>{}, dir + "/run.log",
            120};
  }

  /// The spec's winner for the dispatch "conv" of `exports`, which the
  /// spec misses in the model, delivered as configured executables.
  std::vector<DeliveredExecutable>
  deliverMissedWinner(std::vector<std::string> exports) {
    Expected<SpecReach> reach = SpecReach::find(
        tools, *library, model, kCpuFlags, spec, {{"conv", exports}}, dir, 300);
    if (!reach) {
      ADD_FAILURE() << toString(reach.takeError());
      return {};
    }
    EXPECT_TRUE(reach->misses("conv"));
    std::vector<std::string> unchanged;
    Expected<std::vector<DeliveredExecutable>> delivered = reach->substitute(
        {Winner{"conv", spec, 0.8}}, dir + "/executables", unchanged);
    if (!delivered) {
      ADD_FAILURE() << toString(delivered.takeError());
      return {};
    }
    EXPECT_TRUE(unchanged.empty());
    return std::move(*delivered);
  }

  IreeTools tools;
  const IreeIrLibrary *library = nullptr;
  std::string dir;
  std::string model = testdata("fixtures/conv-batch1/model.mlir");
  std::string spec = testdata("fixtures/conv-batch1/candidate.spec.mlir");
};

TEST_F(RealIreeExecutables, ASpecTheModelMissesReachesItAsAConfiguredExecutable) {
  std::vector<DeliveredExecutable> delivered =
      deliverMissedWinner({"main_dispatch_0_conv_128x30x30x64x3x3_f32"});
  ASSERT_EQ(delivered.size(), 1u);
  EXPECT_EQ(delivered[0].executable, "main_dispatch_0");
  std::string text = cantFail(readFile(delivered[0].file));
  EXPECT_NE(text.find("vector_common_parallel = [1, 8, 1, 15, 0, 0, 0]"),
            std::string::npos)
      << text;

  std::string baseline = build("baseline", {});
  std::string specOnly =
      build("spec", tools.syntax().specFlags("cpu", spec));
  std::string substituted =
      build("substituted",
            {tools.syntax().specFlags("cpu", spec)[0],
             substituteExecutablesFlag(dir + "/executables")});
  std::string baseBytes = cantFail(readFile(baseline));
  EXPECT_EQ(cantFail(readFile(specOnly)), baseBytes)
      << "IREE now applies the spec to the batch-1 convolution: the "
         "substitution may no longer be needed";
  EXPECT_NE(cantFail(readFile(substituted)), baseBytes);

  Expected<Reference> reference =
      writeReference(tools, request(baseline), dir + "/reference");
  ASSERT_TRUE(static_cast<bool>(reference)) << toString(reference.takeError());
  OutputCheck check = checkOutputs(tools, request(substituted), *reference);
  EXPECT_EQ(check.status, Status::Ok) << check.message;
}

TEST_F(RealIreeExecutables, AWinnerReachesEveryExecutableOfItsDispatch) {
  // Two convolutions of one problem, one with a ReLU fused after it: two
  // executables that the dump merges into one dispatch. The winner must
  // reach both (on the PP-OCRv4 detector it reached one of two).
  model = testdata("fixtures/conv-batch1/two_convs.mlir");
  std::vector<DeliveredExecutable> delivered =
      deliverMissedWinner({"main_dispatch_0_conv_128x30x30x64x3x3_f32",
                           "main_dispatch_1_conv_128x30x30x64x3x3_f32"});
  ASSERT_EQ(delivered.size(), 2u);
  EXPECT_EQ(delivered[0].executable, "main_dispatch_0");
  EXPECT_EQ(delivered[1].executable, "main_dispatch_1");
  for (const DeliveredExecutable &d : delivered) {
    std::string text = cantFail(readFile(d.file));
    EXPECT_NE(text.find("vector_common_parallel = [1, 8, 1, 15, 0, 0, 0]"),
              std::string::npos)
        << d.file;
  }
}

TEST_F(RealIreeExecutables, AWinnerWhoseSpecChangesNothingIsReportedNotWritten) {
  // No linked spec: the executable is the same with and without, so the
  // dispatch counts as missed; a winner without a config of its own then
  // configures it as IREE did, and is reported instead of delivered.
  std::string exportName = "main_dispatch_0_conv_128x30x30x64x3x3_f32";
  Expected<SpecReach> reach = SpecReach::find(
      tools, *library, model, kCpuFlags, "", {{"conv", {exportName}}}, dir, 300);
  ASSERT_TRUE(static_cast<bool>(reach)) << toString(reach.takeError());
  ASSERT_TRUE(reach->misses("conv"));
  std::vector<std::string> unchanged;
  Expected<std::vector<DeliveredExecutable>> delivered = reach->substitute(
      {Winner{"conv", "", 0.8}}, dir + "/executables", unchanged);
  ASSERT_TRUE(static_cast<bool>(delivered)) << toString(delivered.takeError());
  EXPECT_TRUE(delivered->empty());
  EXPECT_EQ(unchanged, std::vector<std::string>{"conv"});
}

TEST_F(RealIreeExecutables, AnExecutableConfiguredAgainWithoutASpecIsConfiguredAsIreeDid) {
  // PP-OCRv4's depthwise convolution with its bias and activation, as the
  // whole model's compile configured it (IREE 3.13, znver3).
  std::string configured =
      testdata("fixtures/conv-batch1/depthwise_configured.mlir");
  Expected<std::string> again = reconfigureExecutable(
      tools, *library, configured, "", dir + "/again.mlir", 120);
  ASSERT_TRUE(static_cast<bool>(again)) << toString(again.takeError());
  EXPECT_NE(again->find("#iree_cpu.lowering_config<distribution"),
            std::string::npos)
      << *again;
  EXPECT_NE(again->find("translation_info"), std::string::npos) << *again;
}

} // namespace
