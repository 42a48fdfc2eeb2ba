//===- KernelRunnerTest.cpp - Calling compiled functions ------------------===//
#include "stages/backends/mlircpu/KernelRunner.h"
#include "stages/backends/mlircpu/CpuCompiler.h"
#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

using namespace retune;

namespace {

/// A model whose weights are arguments: @sum adds its first and last of
/// `count` arguments.
std::string manyArgumentModel(unsigned count) {
  std::string args, text;
  for (unsigned i = 0; i < count; ++i)
    args += llvm::formatv("{0}%a{1}: tensor<8xf32>", i ? ", " : "", i).str();
  return llvm::formatv(R"(func.func @sum({0}) -> tensor<8xf32> {{
  %init = tensor.empty() : tensor<8xf32>
  %r = linalg.add ins(%a0, %a{1} : tensor<8xf32>, tensor<8xf32>)
                  outs(%init : tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
)",
                       args, count - 1)
      .str();
}

TEST(KernelRunnerTest, AFunctionWithFortyArgumentsIsCalledWithAllOfThem) {
  constexpr unsigned kArgs = 40;
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("kernelrunner", dir));
  std::string model = (dir + "/model.mlir").str();
  ASSERT_FALSE(
      static_cast<bool>(writeFileIfChanged(model, manyArgumentModel(kArgs))));
  cpu::CompileRequest request{model, "", (dir + "/model.so").str(), 1, ""};
  Expected<cpu::CompileResult> compiled =
      cpu::compileToSharedObject(request, cpu::detectHost());
  ASSERT_TRUE(static_cast<bool>(compiled)) << toString(compiled.takeError());
  ASSERT_EQ(compiled->functions.size(), 1u);
  const FuncSignature &signature = compiled->functions[0];
  ASSERT_EQ(signature.args.size(), kArgs);

  Expected<std::unique_ptr<bench::Kernel>> kernel =
      bench::Kernel::load(request.outputPath, signature);
  ASSERT_TRUE(static_cast<bool>(kernel)) << toString(kernel.takeError());
  std::vector<bench::Buffer> inputs = bench::makeInputs(signature, 7);
  (*kernel)->setInputs(inputs);
  std::vector<bench::Values> results = (*kernel)->call(true);
  ASSERT_EQ(results.size(), 1u);
  ASSERT_EQ(results[0].size(), 8u);
  for (int64_t i = 0; i < 8; ++i)
    EXPECT_FLOAT_EQ(results[0][i], inputs.front().at(i) + inputs.back().at(i));
  llvm::sys::fs::remove_directories(dir);
}

} // namespace
