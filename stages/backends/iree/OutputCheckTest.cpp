//===- OutputCheckTest.cpp - Results compared with the real iree-run-module ===//
//
// Runs with the IREE release in the project's .venv (scripts/setup.sh);
// skipped without it.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/OutputCheck.h"

#include "stages/support/FileUtil.h"
#include "stages/core/Subprocess.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;

namespace {

TEST(OutputCheck, SeededInputsAreDeterministicAndFilled) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("seed", dir));
  std::vector<std::string> flags = {"--input=2x3xf32", "--input=4xi64",
                                    "--input=2xf32=[1 2]", "--other"};
  auto a = seedInputs(flags, dir, 7);
  ASSERT_TRUE(static_cast<bool>(a)) << llvm::toString(a.takeError());
  EXPECT_EQ((*a)[0], "--input=2x3xf32=@" + std::string(dir) + "/input0.bin");
  EXPECT_EQ((*a)[2], "--input=2xf32=[1 2]");
  EXPECT_EQ((*a)[3], "--other");
  std::string first = llvm::cantFail(readFile(std::string(dir) + "/input0.bin"));
  EXPECT_EQ(first.size(), 24u);
  std::string ints = llvm::cantFail(readFile(std::string(dir) + "/input1.bin"));
  ASSERT_EQ(ints.size(), 32u);
  for (size_t i = 0; i < ints.size(); ++i)
    EXPECT_LE(static_cast<unsigned char>(ints[i]), i % 8 == 0 ? 1u : 0u);
  ASSERT_TRUE(static_cast<bool>(seedInputs(flags, dir, 7)));
  EXPECT_EQ(llvm::cantFail(readFile(std::string(dir) + "/input0.bin")), first);
  llvm::sys::fs::remove_directories(dir);
}

class RealIree : public ::testing::Test {
protected:
  void SetUp() override {
    std::string bin = RETUNE_PROJECT_VENV_BIN;
    if (!llvm::sys::fs::can_execute(bin + "/iree-run-module"))
      GTEST_SKIP() << "real IREE is not installed in " << bin
                   << " (scripts/setup.sh installs it)";
    tools.compile = bin + "/iree-compile";
    tools.run = bin + "/iree-run-module";
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("outcheck", dir));
  }
  void TearDown() override {
    if (!dir.empty())
      llvm::sys::fs::remove_directories(dir);
  }

  /// Compiles `(x * scale + shift, x * scale)` for llvm-cpu (two results,
  /// as models often have); returns the vmfb.
  std::string module(llvm::StringRef name, const char *scale,
                     const char *shift) {
    std::string mlir = path(name + ".mlir");
    std::string text =
        std::string("func.func @f(%x: tensor<64xf32>) -> (tensor<64xf32>, "
                    "tensor<64xf32>) {\n"
                    "  %s = arith.constant dense<") +
        scale + "> : tensor<64xf32>\n  %c = arith.constant dense<" + shift +
        "> : tensor<64xf32>\n"
        "  %m = arith.mulf %x, %s : tensor<64xf32>\n"
        "  %y = arith.addf %m, %c : tensor<64xf32>\n"
        "  return %y, %m : tensor<64xf32>, tensor<64xf32>\n}\n";
    EXPECT_FALSE(static_cast<bool>(writeFileAtomic(mlir, text)));
    std::string vmfb = path(name + ".vmfb");
    ChildOutcome built = runLimited(
        tools.compile,
        {mlir, "--iree-hal-target-device=local",
         "--iree-hal-local-target-device-backends=llvm-cpu", "-o", vmfb},
        120, 0, path(name + ".log"));
    EXPECT_EQ(built.status, Status::Ok) << built.message;
    return vmfb;
  }

  RunRequest request(const std::string &vmfb) {
    auto inputs = seedInputs({"--input=64xf32"}, dir, 1);
    EXPECT_TRUE(static_cast<bool>(inputs));
    return {vmfb, "local-sync", "f", inputs ? *inputs : std::vector<std::string>{},
            path("run.log"), 60};
  }

  std::string path(const llvm::Twine &name) {
    return (llvm::Twine(dir) + "/" + name).str();
  }

  IreeTools tools;
  llvm::SmallString<128> dir;
};

TEST_F(RealIree, SameResultsPassAndDifferentOnesAreWrong) {
  Expected<Reference> written =
      writeReference(tools, request(module("base", "2.0", "0.0")), path("reference"));
  ASSERT_TRUE(static_cast<bool>(written)) << llvm::toString(written.takeError());
  const Reference &reference = *written;
  EXPECT_EQ(reference.results, 2u);
  // Within the tolerance of reordered floating-point sums.
  EXPECT_EQ(checkOutputs(tools, request(module("close", "2.0", "1.0e-6")),
                         reference)
                .status,
            Status::Ok);
  OutputCheck wrong =
      checkOutputs(tools, request(module("wrong", "3.0", "0.0")), reference);
  EXPECT_EQ(wrong.status, Status::WrongResult) << wrong.message;
  EXPECT_NE(wrong.message.find("result[0]"), std::string::npos) << wrong.message;
}

} // namespace
