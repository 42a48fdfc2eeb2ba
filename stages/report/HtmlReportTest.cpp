#include "stages/report/HtmlReport.h"

#include "gtest/gtest.h"

#include <regex>
#include <set>

using namespace retune;
using namespace retune::report;

namespace {

/// Names, configs and messages come from records and tools; any of them may
/// hold markup.
constexpr const char *kHostileName = "mm<img src=x onerror=alert(1)>&\"q'";
constexpr const char *kHostileConfig = "tile=\"<8>\"&evil</td></tr>";

CandidateRow measured(unsigned index, double ratio, double noise = 0.01) {
  CandidateRow c;
  c.index = index;
  c.config = "tile=[" + std::to_string(8 << index) + ", 16]";
  c.ratio = ratio;
  c.noise = noise;
  c.median = ratio * 1e-4;
  c.baselineMedian = 1e-4;
  return c;
}

CandidateRow failed(unsigned index, Status status, std::string message) {
  CandidateRow c;
  c.index = index;
  c.status = status;
  c.message = std::move(message);
  c.config = kHostileConfig;
  return c;
}

DispatchReport dispatch(std::string id, std::string name,
                        std::vector<CandidateRow> candidates) {
  DispatchReport d;
  d.id = std::move(id);
  d.name = std::move(name);
  d.share = 0.6;
  d.occurrences = 2;
  d.solutions = 120;
  d.candidates = std::move(candidates);
  d.baseline = 1e-4;
  d.best = 1e-4;
  return d;
}

StageTiming stage(std::string name, double start, double seconds,
                  bool cached = false) {
  StageTiming s;
  s.name = std::move(name);
  s.steps.push_back({start, start + seconds, "step <1>", cached});
  s.stepCount = 1;
  s.cachedCount = cached;
  s.wall = s.busy = seconds;
  return s;
}

HistoryRun historyRun(double startedAt, double speedup) {
  HistoryRun run;
  run.startedAt = startedAt;
  run.baseline = 2e-3;
  run.tuned = 2e-3 / speedup;
  run.speedup = speedup;
  run.dispatches.push_back({"d1", kHostileName, speedup});
  return run;
}

/// A run with one tuned dispatch whose winner the model kept, one whose
/// winner it dropped, hostile strings everywhere, and two kept runs.
RunReport fixture() {
  RunReport run;
  run.model = "<script>alert(\"x\")</script>&'m.mlir";
  run.backend = "mlir-cpu";
  run.margin = 0.02;
  DispatchReport kept = dispatch(
      "d1", kHostileName,
      {measured(0, 0.8), measured(1, 1.3),
       failed(2, Status::Crash, "signal 11 <in 'apply'> & \"more\""),
       failed(3, Status::WrongResult, "max relative error 0.5 > 1e-3")});
  kept.winner = 0;
  kept.best = 0.8e-4;
  kept.speedup = 1.25;
  kept.reason = "candidate 0 runs in 0.800x the baseline time <ok>";
  kept.verdict = ModelVerdict::Kept;
  DispatchReport dropped =
      dispatch("d2", "matmul_64x64x64_f32", {measured(0, 0.9)});
  dropped.winner = 0;
  dropped.verdict = ModelVerdict::Dropped;
  dropped.droppedReason = "alone it gives wrong_result: <b>bad</b>";
  run.dispatches = {kept, dropped};
  run.modelResult.decision = "kept 1 of 2 winners <because>";
  run.modelResult.baseline = 2e-3;
  run.modelResult.tuned = 1.8e-3;
  run.modelResult.speedup = 2.0 / 1.8;
  run.modelResult.baselineSamples = {2.1e-3, 2e-3, 1.9e-3};
  run.modelResult.tunedSamples = {1.8e-3, 1.7e-3, 1.9e-3};
  run.modelResult.startedAt = 1.7e9 + 30;
  run.stages = {stage("candidates", 1.7e9, 1), stage("compile", 1.7e9 + 1, 5),
                stage("bench", 1.7e9 + 6, 20, true),
                stage("model", 1.7e9 + 30, 10)};
  run.history = {historyRun(1.6e9, 1.05), historyRun(1.7e9 + 30, 2.0 / 1.8)};
  return run;
}

/// Every tag that the page may contain. Text that was not escaped shows up
/// as a tag outside this list (img, script, td inside a config cell...).
const std::set<std::string> kAllowedTags = {
    "!doctype", "html", "head", "meta", "title", "style", "body", "main",
    "h1",       "h2",   "h3",   "h4",   "p",     "b",     "i",    "div",
    "span",     "nav",  "a",    "section", "table", "tr", "th",   "td",
    "code",     "small", "details", "summary", "svg", "line", "rect",
    "circle",   "path", "text", "polyline"};

std::map<std::string, int> tagCounts(const std::string &html) {
  std::map<std::string, int> counts;
  std::regex tag("<(/?)([!a-zA-Z0-9]+)");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), tag);
       it != std::sregex_iterator(); ++it) {
    std::string name = (*it)[2];
    for (char &c : name)
      c = std::tolower(c);
    counts[(*it)[1].str() + name]++;
  }
  return counts;
}

void expectContains(const std::string &html,
                    std::initializer_list<const char *> fragments) {
  for (const char *fragment : fragments)
    EXPECT_NE(html.find(fragment), std::string::npos) << fragment;
}

TEST(HtmlReport, HostileStringsAreEscapedEverywhere) {
  std::string html = renderHtml(fixture());
  std::map<std::string, int> counts = tagCounts(html);
  for (const auto &[tag, n] : counts) {
    std::string name = tag[0] == '/' ? tag.substr(1) : tag;
    EXPECT_TRUE(kAllowedTags.count(name)) << "unexpected tag <" << tag << ">";
  }
  // Balanced: a config ending in </td></tr> must not close the page's cells.
  for (StringRef name : {"td", "tr", "table", "section", "svg", "title"})
    EXPECT_EQ(counts[name.str()], counts["/" + name.str()]) << name.str();
  expectContains(html,
                 {"mm&lt;img src=x onerror=alert(1)&gt;&amp;&quot;q&#39;",
                  "tile=&quot;&lt;8&gt;&quot;&amp;evil&lt;/td&gt;",
                  "&lt;script&gt;alert(&quot;x&quot;)",
                  "signal 11 &lt;in &#39;apply&#39;&gt;",
                  "wrong_result: &lt;b&gt;bad&lt;/b&gt;"});
}

TEST(HtmlReport, SelfContainedWithoutScripts) {
  std::string html = renderHtml(fixture());
  for (const char *forbidden :
       {"<script", "http://", "https://", "url(", " src=\"", "<link",
        "<img", "@import"})
    EXPECT_EQ(html.find(forbidden), std::string::npos) << forbidden;
}

TEST(HtmlReport, DispatchChartHasAxesBandsWinnerAndFailures) {
  std::string html = renderHtml(fixture());
  expectContains(
      html, {">time / baseline</text>", "candidate, in cost-model order",
             "class=\"noise\"", "class=\"margin\"", "1 − margin = 0.980",
             "class=\"win\"", "winner #0: 0.800×",
             "class=\"fail fail-crash\"", "class=\"fail fail-wrong_result\"",
             "<h4>Failures by reason</h4>", "<code>crash</code>",
             "<code>wrong_result</code>", "<tr class=\"winner-row\">",
             "tile=[8, 16]", ">failed</text>"});
}

TEST(HtmlReport, LogScaleOnlyWhenRatiosSpreadWide) {
  RunReport run = fixture();
  EXPECT_EQ(renderHtml(run).find("(log scale)"), std::string::npos);
  run.dispatches[1].candidates = {measured(0, 0.2), measured(1, 4.0)};
  EXPECT_NE(renderHtml(run).find("time / baseline (log scale)"),
            std::string::npos);
}

TEST(HtmlReport, ModelSectionShowsContributionAndVerdicts) {
  std::string html = renderHtml(fixture());
  expectContains(
      html, {"<section id=\"model\">", "Model: baseline vs tuned",
             "class=\"baseline-sample\"", "class=\"tuned-sample\"",
             "Per-dispatch contribution", "class=\"bar-before\"",
             "class=\"bar-after\"", "model (measured)",
             "kept 1 of 2 winners &lt;because&gt;", ">kept</span>",
             ">dropped</span>: alone it gives",
             // Two occurrences of 0.1 ms before, 0.08 ms after.
             "<td>200.0 µs</td><td>160.0 µs</td><td>40.00 µs"});
}

TEST(HtmlReport, TimelineAndCacheHits) {
  std::string html = renderHtml(fixture());
  expectContains(html, {"<section id=\"run\">", "class=\"step step-compile\"",
                        "class=\"step cached\"",
                        "step &lt;1&gt;: replayed from the cache",
                        ">1 / 2</b><span>cache hits (compile + bench)"});
}

TEST(HtmlReport, HistoryNeedsTwoRuns) {
  RunReport run = fixture();
  std::string html = renderHtml(run);
  expectContains(html, {"class=\"trend\"", "(this run)"});
  run.history.resize(1);
  html = renderHtml(run);
  EXPECT_EQ(html.find("class=\"trend\""), std::string::npos);
  expectContains(html, {"Only this run is recorded so far"});
}

} // namespace
