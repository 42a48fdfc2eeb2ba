#include "stages/backends/mlircpu/SpecLinker.h"

#include "stages/backends/mlircpu/CpuCompiler.h"
#include "stages/backends/mlircpu/CpuSpec.h"
#include "stages/support/FileUtil.h"
#include "stages/core/Testing.h"

#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

using namespace retune;

namespace {
cpu::CpuConfig registerOnly(int64_t mr, int64_t nr) {
  cpu::CpuConfig c;
  c.outerTiles = {0, 0, 0};
  c.reductionTiles = {0, 0, 0};
  c.registerTiles = {mr, nr, 1};
  return c;
}

class SpecLinkerTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("link", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }
  std::string write(StringRef name, StringRef text) {
    std::string path = (dir + "/" + name).str();
    EXPECT_FALSE(static_cast<bool>(writeFileIfChanged(path, text)));
    return path;
  }
  llvm::SmallString<128> dir;
};
} // namespace

TEST_F(SpecLinkerTest, ClashingNamesGetSuffixesAndOrderIsKept) {
  // Three specs that all use the symbol suffix "x".
  std::vector<std::string> paths;
  for (int64_t size : {64, 128, 256})
    paths.push_back(write(
        "s" + std::to_string(size) + ".mlir",
        cpu::emitSpecModule({{"x", matmulProblem(size, size, size), registerOnly(8, 16)}})));
  Expected<std::string> linked = link::linkSpecs(paths, "test");
  ASSERT_TRUE(static_cast<bool>(linked)) << toString(linked.takeError());
  for (StringRef name : {"@match_x(", "@match_x_1(", "@match_x_2(",
                         "@apply_x(", "@apply_x_1(", "@apply_x_2("})
    EXPECT_NE(linked->find(name.str()), std::string::npos) << name.str();
  size_t first = linked->find("@match_x -> @apply_x,");
  size_t second = linked->find("@match_x_1 -> @apply_x_1,");
  size_t third = linked->find("@match_x_2 -> @apply_x_2\n");
  ASSERT_NE(first, std::string::npos) << *linked;
  ASSERT_NE(second, std::string::npos);
  ASSERT_NE(third, std::string::npos);
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  // Exactly one entry point and one foreach_match.
  EXPECT_EQ(linked->find("foreach_match"), linked->rfind("foreach_match"));
  EXPECT_FALSE(static_cast<bool>(cpu::verifySpecFile(write("out.mlir", *linked))));
  // Each renamed matcher still checks its own sizes.
  size_t match1 = linked->find("@match_x_1(");
  EXPECT_NE(linked->find("constant 128", match1), std::string::npos);
}

TEST_F(SpecLinkerTest, NoWinnersGiveAPassThroughSpec) {
  Expected<std::string> linked = link::linkSpecs({});
  ASSERT_TRUE(static_cast<bool>(linked));
  EXPECT_EQ(linked->find("foreach_match"), std::string::npos);
  EXPECT_NE(linked->find("@__retune_config"), std::string::npos);
}

TEST_F(SpecLinkerTest, SpecWithoutEntryIsAnErrorNamingTheFile) {
  std::string path = write("bad.mlir",
                           "module attributes {transform.with_named_sequence} {}\n");
  Expected<std::string> linked = link::linkSpecs({path});
  ASSERT_FALSE(static_cast<bool>(linked));
  std::string message = toString(linked.takeError());
  EXPECT_NE(message.find("bad.mlir"), std::string::npos);
  EXPECT_NE(message.find("__retune_config"), std::string::npos);
}
