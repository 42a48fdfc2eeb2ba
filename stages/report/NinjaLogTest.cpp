//===- NinjaLogTest.cpp ---------------------------------------------------===//
#include "stages/report/NinjaLog.h"

#include <gtest/gtest.h>

using namespace retune::report;

// Lines as ninja 1.11 writes them (v5): an edge with two outputs, a
// re-run of the flag search, and a damaged line.
TEST(NinjaLogTest, LatestRunOfEachOutput) {
  llvm::StringMap<double> seconds = edgeSeconds(
      "# ninja log v5\n"
      "1\t41505\t1795664156361949957\tflags/chosen.json\t528e2df162e27f4b\n"
      "1\t41505\t1795664156361949957\tcompile_flags.txt\t528e2df162e27f4b\n"
      "1\t7853\t1795664164364833238\tdispatches/index.json\te256646669e48ece\n"
      "12\tbroken\n"
      "3\t2503\t1795664156361949957\tflags/chosen.json\t528e2df162e27f4c\n");
  EXPECT_DOUBLE_EQ(seconds.lookup("flags/chosen.json"), 2.5);
  EXPECT_DOUBLE_EQ(seconds.lookup("dispatches/index.json"), 7.852);
  EXPECT_EQ(seconds.size(), 3u);
  EXPECT_FALSE(seconds.contains("import/model.mlir"));
}

TEST(NinjaLogTest, EmptyOrForeignText) {
  EXPECT_TRUE(edgeSeconds("").empty());
  EXPECT_TRUE(edgeSeconds("not a ninja log\n\n").empty());
}
