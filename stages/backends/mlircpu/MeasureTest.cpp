#include "stages/backends/mlircpu/Measure.h"

#include "gtest/gtest.h"

using namespace retune;
using namespace retune::bench;

TEST(MeasureTest, Quantiles) {
  EXPECT_DOUBLE_EQ(quantile({3, 1, 2}, 0.5), 2);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.25), 2);
  EXPECT_DOUBLE_EQ(quantile({}, 0.5), 0);
}

TEST(MeasureTest, ErrorsAreRelativeAndCatchNaN) {
  EXPECT_DOUBLE_EQ(maxRelativeError({{1.0, 2.0}}, {{1.0, 2.0}}), 0);
  EXPECT_NEAR(maxRelativeError({{1.5}}, {{1.0}}), 0.25, 1e-12);
  EXPECT_TRUE(std::isinf(maxRelativeError({{NAN}}, {{1.0}})));
  EXPECT_TRUE(std::isinf(maxRelativeError({{1.0}}, {{1.0, 2.0}})));
}

TEST(MeasureTest, RandomInputsAreSeeded) {
  FuncSignature sig;
  sig.name = "f";
  sig.args = {TensorSpec{{4, 4}, "f32"}, TensorSpec{{8}, "bf16"}};
  std::vector<Buffer> a = makeInputs(sig, 7), b = makeInputs(sig, 7),
                      c = makeInputs(sig, 8);
  for (int64_t i = 0; i < 16; ++i)
    EXPECT_EQ(a[0].at(i), b[0].at(i));
  EXPECT_NE(a[0].at(0), c[0].at(0));
  for (int64_t i = 0; i < 8; ++i) {
    EXPECT_GE(a[1].at(i), -1.0);
    EXPECT_LE(a[1].at(i), 1.0);
  }
}

TEST(MeasureTest, TolerancesByType) {
  EXPECT_EQ(toleranceFor("i32"), 0);
  EXPECT_LT(toleranceFor("f64"), toleranceFor("f32"));
  EXPECT_LT(toleranceFor("f32"), toleranceFor("f16"));
}
