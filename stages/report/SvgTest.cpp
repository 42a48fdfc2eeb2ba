#include "stages/report/Svg.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace retune::report;

TEST(Svg, EscapesEverythingMarkupCanStartWith) {
  EXPECT_EQ(escapeHtml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(escapeHtml("plain"), "plain");
}

TEST(Svg, LinearScaleMapsEndsAndHasRoundTicks) {
  Scale y(0, 2, 200, 0);
  EXPECT_DOUBLE_EQ(y(0), 200);
  EXPECT_DOUBLE_EQ(y(2), 0);
  EXPECT_DOUBLE_EQ(y(1), 100);
  // 2 / 6 per tick rounds up to the 1-2-5 step 0.5.
  EXPECT_EQ(y.ticks(), (std::vector<double>{0, 0.5, 1, 1.5, 2}));
  std::vector<double> narrow = Scale(0.93, 1.07, 0, 1).ticks();
  ASSERT_EQ(narrow.size(), 3u);
  EXPECT_NEAR(narrow[0], 0.95, 1e-12);
  EXPECT_NEAR(narrow[2], 1.05, 1e-12);
}

TEST(Svg, FitChoosesLogOnlyForWideSpreads) {
  EXPECT_FALSE(Scale::fit(0.8, 1.2, 100, 0, 3).isLog());
  Scale wide = Scale::fit(0.1, 10, 100, 0, 3);
  ASSERT_TRUE(wide.isLog());
  // The geometric middle is the middle.
  EXPECT_NEAR(wide(1), 50, 1e-9);
  std::vector<double> ticks = wide.ticks();
  EXPECT_NE(std::find(ticks.begin(), ticks.end(), 1.0), ticks.end());
  EXPECT_NE(std::find(ticks.begin(), ticks.end(), 0.1), ticks.end());
}

TEST(Svg, NarrowLogScaleStillHasSeveralTicks) {
  Scale y = Scale::fit(0.3, 1.2, 200, 0, 3);
  ASSERT_TRUE(y.isLog());
  EXPECT_GE(y.ticks().size(), 4u);
}

TEST(Svg, TickLabelsAreShort) {
  EXPECT_EQ(tickLabel(0.30000000000000004), "0.3");
  EXPECT_EQ(tickLabel(1), "1");
  EXPECT_EQ(tickLabel(1234.5), "1234");
}

TEST(Svg, AxisLabelsNeverOverlap) {
  // Fine log ticks (0.3 ... 1.2) on a short axis: some labels must go.
  Scale y = Scale::fit(0.3, 1.2, 60, 0, 3);
  SvgBuilder svg(300, 80, "test");
  svg.yAxis(y, 40, 300, "ratio", "×");
  std::string text = svg.finish();
  std::vector<double> labelled;
  for (size_t at = text.find("class=\"tick\""); at != std::string::npos;
       at = text.find("class=\"tick\"", at + 1)) {
    size_t yAt = text.find("y=\"", at) + 3;
    labelled.push_back(std::stod(text.substr(yAt)));
  }
  ASSERT_GE(labelled.size(), 2u);
  EXPECT_LT(labelled.size(), y.ticks().size());
  for (size_t i = 1; i < labelled.size(); ++i)
    EXPECT_GE(std::abs(labelled[i] - labelled[i - 1]), 14) << i;
}

TEST(Svg, HoverTextIsAnEscapedTitle) {
  SvgBuilder svg(100, 100, "a <chart>");
  svg.circle(1, 2, 3, "ok", "x < y & \"z\"");
  std::string text = svg.finish();
  EXPECT_NE(text.find("aria-label=\"a &lt;chart&gt;\""), std::string::npos);
  EXPECT_NE(text.find("<title>x &lt; y &amp; &quot;z&quot;</title></circle>"),
            std::string::npos);
}
