//===- HtmlReport.cpp - report/index.html: the tuning run at a glance -----===//
#include "stages/report/HtmlReport.h"
#include "stages/report/Charts.h"
#include "stages/report/Svg.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

namespace retune::report {
namespace {

/// The page's only styling; charts use the same classes.
constexpr const char *kStyle = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1a202c;background:#f4f6f9}
main{max-width:1240px;margin:0 auto;padding:24px 32px 48px}
h1{font-size:26px;margin:0 0 4px}
h2{font-size:21px;margin:40px 0 8px;padding-top:10px;border-top:2px solid #cbd5e0}
h3{font-size:17px;margin:6px 0 6px}
h4{font-size:14px;margin:16px 0 4px}
p{margin:6px 0}
.sub{color:#4a5568;margin:0 0 12px}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:16px 0}
.card{background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:10px 16px;min-width:150px}
.card b{display:block;font-size:22px}
.card span{color:#4a5568;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
nav{margin:8px 0 0}
nav a{margin-right:16px}
section.dispatch{background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:12px 20px 16px;margin:20px 0}
small{color:#718096;font-weight:400}
table{border-collapse:collapse;background:#fff;margin:8px 0}
th,td{padding:4px 10px;border-bottom:1px solid #e2e8f0;text-align:right;vertical-align:top;white-space:nowrap}
th{background:#edf2f7;font-weight:600;white-space:normal}
.l{text-align:left;white-space:normal}
tr.winner-row td{background:#fffaf0;font-weight:600}
table.candidates td:nth-child(2){min-width:300px}
table.candidates td:last-child{min-width:180px}
code{font:12px ui-monospace,Menlo,Consolas,monospace;word-break:break-word}
.msg{font:12px ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;max-width:460px;text-align:left;color:#742a2a}
.good{color:#276749}
.bad{color:#9b2c2c}
.legend{color:#4a5568;font-size:12px}
.legend i{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px;vertical-align:-1px;border-radius:2px}
details summary{cursor:pointer;font-weight:600;margin:12px 0 4px}
.msg details summary{font:12px system-ui,sans-serif;color:#4a5568;margin:2px 0}
svg.chart{display:block;width:100%;height:auto;background:#fff;border:1px solid #e2e8f0;border-radius:6px;margin:8px 0}
svg .grid{stroke:#edf2f7}
svg .axis{stroke:#4a5568}
svg text{font-family:system-ui,sans-serif}
svg .tick{font-size:11px;fill:#4a5568}
svg .axis-label{font-size:12px;fill:#1a202c;font-weight:600}
svg .note{font-size:11px;fill:#4a5568}
svg .strong{font-weight:700;fill:#1a202c}
svg .noise{fill:#bee3f8;opacity:.6}
svg .base{stroke:#1a202c;stroke-width:1.2}
svg .margin{stroke:#38a169;stroke-width:1.5;stroke-dasharray:6 4}
svg .margin-label{fill:#276749}
svg .ok{fill:#3182ce;stroke:#fff}
svg .win{fill:#dd6b20;stroke:#1a202c;stroke-width:1.5}
svg .win-label{font-size:12px;font-weight:700;fill:#c05621}
svg .whisker{stroke:#90cdf4;stroke-width:2}
svg .failstrip{fill:#fff5f5;stroke:#fed7d7}
svg .fail{stroke-width:2.5;fill:none;stroke:#718096}
svg .fail-wrong_result{stroke:#c53030}
svg .fail-timeout{stroke:#d69e2e}
svg .fail-crash{stroke:#805ad5}
svg .fail-bench_error{stroke:#dd6b20}
svg .bar-before{fill:#a0aec0}
svg .bar-after{fill:#3182ce}
svg .baseline-sample{fill:#a0aec0;opacity:.85}
svg .tuned-sample{fill:#3182ce;opacity:.85}
svg .median{fill:#1a202c}
svg .step{fill:#4299e1;opacity:.9}
svg .step-compile{fill:#805ad5}
svg .step-bench{fill:#dd6b20}
svg .step-model{fill:#38a169}
svg .cached{fill:#a0aec0}
svg .trend{fill:none;stroke:#3182ce;stroke-width:2}
)css";

std::string td(StringRef html, bool left = false) {
  return (left ? "<td class=\"l\">" : "<td>") + html.str() + "</td>";
}

/// A table's opening tag and header row; headers are plain text. Columns
/// of text (`leftColumns`, by index) are left-aligned, numbers right.
std::string tableHead(StringRef cls, ArrayRef<StringRef> headers,
                      ArrayRef<size_t> leftColumns = {0}) {
  std::string html = "<table class=\"" + cls.str() + "\"><tr>";
  for (size_t i = 0; i < headers.size(); ++i)
    html += (llvm::is_contained(leftColumns, i) ? "<th class=\"l\">" : "<th>") +
            escapeHtml(headers[i]) + "</th>";
  return html + "</tr>\n";
}

/// A record's message in a monospace block: its first line, and the rest
/// (a stack trace, a compiler's diagnostics) folded, cut at 4000 characters.
std::string messageHtml(StringRef message) {
  auto [first, rest] = message.trim().split('\n');
  std::string html = "<div class=\"msg\">" + escapeHtml(first);
  if (!rest.empty())
    html += "<details><summary>" +
            std::to_string(rest.count('\n') + 1) + " more lines</summary>" +
            escapeHtml(rest.size() > 4000 ? rest.take_front(4000).str() + "…"
                                          : rest.str()) +
            "</details>";
  return html + "</div>";
}

std::string times(double factor) {
  return llvm::formatv("{0:f3}×", factor).str();
}

std::string percent(double fraction) {
  return llvm::formatv("{0:f1}%", 100 * fraction).str();
}

std::string anchorOf(const DispatchReport &d) {
  return "d-" + escapeHtml(d.id);
}

std::string verdictHtml(const DispatchReport &d) {
  if (d.verdict == ModelVerdict::NoWinner)
    return toString(d.verdict).str();
  bool kept = d.verdict == ModelVerdict::Kept;
  std::string html = llvm::formatv("<span class=\"{0}\">{1}</span>",
                                   kept ? "good" : "bad", toString(d.verdict))
                         .str();
  if (kept)
    return d.appliedInModel.empty()
               ? html
               : html + " (" + escapeHtml(d.appliedInModel) + ")";
  return html + ": " + escapeHtml(d.droppedReason);
}

std::string winnerText(const DispatchReport &d) {
  return d.winner ? "#" + std::to_string(*d.winner) : "none";
}

/// The headline numbers at the top of the page.
std::string headline(const RunReport &run) {
  unsigned kept = 0, ok = 0, failed = 0, cached = 0, steps = 0;
  for (const DispatchReport &d : run.dispatches) {
    kept += d.verdict == ModelVerdict::Kept;
    for (const CandidateRow &c : d.candidates)
      ++(c.status == Status::Ok ? ok : failed);
  }
  double wall = 0;
  for (const StageTiming &s : run.stages) {
    wall += s.wall;
    if (s.name == "compile" || s.name == "bench") {
      cached += s.cachedCount;
      steps += s.stepCount;
    }
  }
  const ModelReport &m = run.modelResult;
  auto card = [](StringRef value, StringRef label, StringRef cls = "") {
    return llvm::formatv("<div class=\"card\"><b class=\"{0}\">{1}</b>"
                         "<span>{2}</span></div>\n",
                         cls, value, label)
        .str();
  };
  std::string html = "<div class=\"cards\">\n";
  double speedup = m.headlineSpeedup();
  html += card(times(speedup), "model speedup",
               speedup > 1 ? "good" : speedup < 1 ? "bad" : "");
  if (m.flagsSpeedup) {
    html += card(formatDuration(m.headlineBaseline()) + " → " +
                     formatDuration(m.tuned),
                 "compiler defaults → Retune (flags + spec)");
    html += card(times(*m.flagsSpeedup) + " · " + times(m.speedup),
                 "flags · spec");
  } else {
    html += card(formatDuration(m.baseline) + " → " + formatDuration(m.tuned),
                 "model baseline → tuned");
  }
  html += card(llvm::formatv("{0} / {1}", kept, run.dispatches.size()).str(),
               "dispatches tuned (winners kept)");
  html += card(llvm::formatv("{0} ok · {1} failed", ok, failed).str(),
               "candidates measured", failed ? "bad" : "");
  html += card(llvm::formatv("{0} / {1}", cached, steps).str(),
               "cache hits (compile + bench)");
  html += card(llvm::formatv("{0:f1} s", wall).str(), "stage wall time");
  return html + "</div>\n";
}

std::string modelSection(const RunReport &run) {
  const ModelReport &m = run.modelResult;
  std::string html =
      "<section id=\"model\">\n<h2>Model: baseline vs tuned</h2>\n";
  html += llvm::formatv("<p>One run of the whole model takes <b>{0}</b> "
                        "without the spec and <b>{1}</b> with it: "
                        "<b class=\"{2}\">{3}</b> faster (noise ±{4}).</p>\n",
                        formatDuration(m.baseline), formatDuration(m.tuned),
                        m.speedup >= 1 ? "good" : "bad", times(m.speedup),
                        percent(m.noise))
              .str();
  if (!m.status.empty() && m.status != "ok")
    html += "<p class=\"bad\">The tuned model's measurement failed: " +
            escapeHtml(m.status) + ": " + escapeHtml(m.message) + "</p>\n";
  if (m.flagsSpeedup)
    html += llvm::formatv("<p>With the compiler's default flags it takes "
                          "<b>{0}</b>; the chosen flags make it {1} faster "
                          "and the spec {2}: <b>{3}</b> in all.</p>\n",
                          formatDuration(m.headlineBaseline()),
                          times(*m.flagsSpeedup), times(m.speedup),
                          times(m.headlineSpeedup()))
                .str();
  html += "<p><b>Model step:</b> " + escapeHtml(m.decision) + "</p>\n";
  if (!run.noWinnerWhy.empty())
    html += "<p><b>Why nothing was kept:</b> " + escapeHtml(run.noWinnerWhy) +
            "</p>\n";
  html += modelSamplesChart(m);
  html += "<p class=\"legend\"><i style=\"background:#a0aec0\"></i>baseline "
          "sample<i style=\"background:#3182ce\"></i>tuned sample"
          "<i style=\"background:#1a202c\"></i>median</p>\n";
  html += "<h3 id=\"contribution\">Per-dispatch contribution</h3>\n"
          "<p>Each dispatch's time in one model run, estimated from its own "
          "benchmark (occurrences × its baseline time), before and after "
          "tuning; a winner the model step dropped saves nothing. Ops that "
          "are not dispatches (elementwise, copies) make up the rest of the "
          "measured model time.</p>\n";
  html += contributionChart(run);
  html += "<p class=\"legend\"><i style=\"background:#a0aec0\"></i>before "
          "tuning<i style=\"background:#3182ce\"></i>after tuning</p>\n";
  html += tableHead("contribution",
                    {"dispatch", "occurrences", "share of FLOPs",
                     "est. time before", "est. time after", "est. saving",
                     "of the model's baseline", "model step"},
                    {0, 7});
  for (const DispatchReport &d : run.dispatches) {
    Contribution c = contributionOf(d);
    html += "<tr>" +
            td("<a href=\"#" + anchorOf(d) + "\">" + escapeHtml(d.name) +
                   "</a>",
               true) +
            td(std::to_string(d.occurrences)) + td(percent(d.share)) +
            td(formatDuration(c.before)) + td(formatDuration(c.after)) +
            td(formatDuration(c.before - c.after)) +
            td(m.baseline > 0 ? percent((c.before - c.after) / m.baseline)
                              : "-") +
            td(verdictHtml(d), true) + "</tr>\n";
  }
  html += "<tr>" + td("<b>model (measured)</b>", true) + td("") + td("") +
          td(formatDuration(m.baseline)) + td(formatDuration(m.tuned)) +
          td(formatDuration(m.baseline - m.tuned)) +
          td(m.baseline > 0 ? percent((m.baseline - m.tuned) / m.baseline)
                            : "-") +
          td("") + "</tr>\n</table>\n</section>\n";
  return html;
}

std::string overviewSection(const RunReport &run) {
  std::string html = "<section id=\"dispatches\">\n<h2>Dispatches</h2>\n";
  // Each dispatch's time inside the whole model (IREE's profiler), beside
  // its time alone in the dispatch benchmark, when the model step had one.
  bool inModel = llvm::any_of(run.dispatches, [](const DispatchReport &d) {
    return d.inModel.has_value();
  });
  std::vector<StringRef> headers = {"dispatch", "share", "candidates ok",
                                      "failed", "baseline", "best", "speedup",
                                      "winner", "model step"};
  if (inModel)
    headers.insert(headers.begin() + 5, "in the model");
  size_t verdictColumn = inModel ? 9 : 8;
  html += tableHead("overview", headers, {0, verdictColumn});
  for (const DispatchReport &d : run.dispatches) {
    unsigned ok = 0;
    for (const CandidateRow &c : d.candidates)
      ok += c.status == Status::Ok;
    html += "<tr>" +
            td("<a href=\"#" + anchorOf(d) + "\">" + escapeHtml(d.name) +
                   "</a>",
               true) +
            td(percent(d.share)) + td(std::to_string(ok)) +
            td(std::to_string(d.candidates.size() - ok)) +
            td(formatDuration(d.baseline)) +
            (inModel ? td(d.inModel ? formatDuration(*d.inModel) : "–")
                     : std::string()) +
            td(formatDuration(d.best)) + td(times(d.speedup)) +
            td(winnerText(d)) + td(verdictHtml(d), true) + "</tr>\n";
  }
  return html + "</table>\n</section>\n";
}

/// Failed candidates grouped by status, with the first message of each.
std::string failureTable(const DispatchReport &d) {
  std::map<std::string, std::vector<const CandidateRow *>> byStatus;
  for (const CandidateRow &c : d.candidates)
    if (c.status != Status::Ok)
      byStatus[toString(c.status).str()].push_back(&c);
  if (byStatus.empty())
    return "<p>No candidate failed.</p>\n";
  std::string html = tableHead(
      "failures", {"reason", "candidates", "which", "first message"}, {0, 3});
  for (const auto &[status, rows] : byStatus) {
    std::string which;
    for (const CandidateRow *c : rows)
      which += (which.empty() ? "#" : ", #") + std::to_string(c->index);
    html += "<tr>" + td("<code>" + escapeHtml(status) + "</code>", true) +
            td(std::to_string(rows.size())) + td(which) +
            td(messageHtml(rows.front()->message), true) + "</tr>\n";
  }
  return html + "</table>\n";
}

std::string candidateTable(const DispatchReport &d) {
  // Long lists start folded; <details> needs no script.
  std::string html = llvm::formatv("<details{0}><summary>All {1} "
                                   "candidates (configuration and "
                                   "measurement)</summary>\n",
                                   d.candidates.size() <= 16 ? " open" : "",
                                   d.candidates.size())
                         .str();
  html += tableHead("candidates", {"#", "configuration", "cost", "status",
                                   "vs baseline", "noise", "time",
                                   "baseline", "cached", "message"},
                    {0, 1, 9});
  for (const CandidateRow &c : d.candidates) {
    bool ok = c.status == Status::Ok;
    bool winner = d.winner && *d.winner == c.index;
    std::string cached = c.compileCached && c.benchCached ? "compile, bench"
                         : c.compileCached               ? "compile"
                         : c.benchCached                 ? "bench"
                                                         : "";
    html += std::string(winner ? "<tr class=\"winner-row\">" : "<tr>") +
            td(std::to_string(c.index) + (winner ? " ★" : ""), true) +
            td("<code>" + escapeHtml(c.config) + "</code>", true) +
            td(llvm::formatv("{0}", llvm::format("%.3g", c.cost)).str()) +
            td(ok ? "ok" : "<span class=\"bad\">" +
                               escapeHtml(toString(c.status)) + "</span>") +
            td(ok ? times(c.ratio) : "-") +
            td(ok ? llvm::formatv("±{0:f3}", c.noise).str() : "-") +
            td(ok ? formatDuration(c.median) : "-") +
            td(ok ? formatDuration(c.baselineMedian) : "-") + td(cached) +
            td(ok ? "" : messageHtml(c.message), true) +
            "</tr>\n";
  }
  return html + "</table>\n</details>\n";
}

std::string dispatchSection(const DispatchReport &d, double margin) {
  std::string html = llvm::formatv("<section class=\"dispatch\" id=\"{0}\">\n"
                                   "<h3>{1} <small>{2}</small></h3>\n",
                                   anchorOf(d), escapeHtml(d.name),
                                   escapeHtml(d.id))
                         .str();
  html += llvm::formatv("<p>{0} of the model's FLOPs, {1} occurrence(s); "
                        "{2} valid configurations, {3} tried.</p>\n",
                        percent(d.share), d.occurrences, d.solutions,
                        d.candidates.size())
              .str();
  if (!d.note.empty())
    html += "<p>" + escapeHtml(d.note) + "</p>\n";
  if (!d.spaceWarning.empty())
    html += "<p class=\"bad\"><b>Warning:</b> " + escapeHtml(d.spaceWarning) +
            "</p>\n";
  if (!d.reverify.empty())
    html += "<p><b>After the compiler change:</b> the previous winner was " +
            escapeHtml(d.reverify) + ": " + escapeHtml(d.reverifyWhy) +
            ".</p>\n";
  html += "<p><b>Selection:</b> " + escapeHtml(d.reason) +
          " <b>Model step:</b> " + verdictHtml(d) + ".</p>\n";
  html += candidateChart(d, margin);
  if (!d.candidates.empty())
    html += "<p class=\"legend\"><i style=\"background:#3182ce\"></i>"
            "measured (bar: ± noise)<i style=\"background:#dd6b20\"></i>"
            "winner<i style=\"background:#bee3f8\"></i>noise band"
            "<i style=\"background:#38a169\"></i>1 − margin: a winner must be "
            "below it and below 1 − its own noise<i style=\"background:"
            "#c53030\"></i>failed (colour by reason, hover for the message)"
            "</p>\n";
  html += "<h4>Failures by reason</h4>\n" + failureTable(d);
  if (!d.candidates.empty())
    html += candidateTable(d);
  return html + "</section>\n";
}

std::string runSection(const RunReport &run) {
  std::string html = "<section id=\"run\">\n<h2 id=\"timeline\">Run: stage "
                     "timeline and cache</h2>\n";
  unsigned hidden = 0;
  std::string chart = timelineChart(run.stages, &hidden);
  html += chart.empty() ? "<p>No step recorded when it started.</p>\n" : chart;
  html += "<p class=\"legend\"><i style=\"background:#4299e1\"></i>candidates"
          "<i style=\"background:#805ad5\"></i>compile<i style=\"background:"
          "#dd6b20\"></i>bench<i style=\"background:#38a169\"></i>model"
          "<i style=\"background:#a0aec0\"></i>replayed from the cache</p>\n";
  if (hidden)
    html += llvm::formatv("<p>{0} step(s) of earlier sessions (more than a "
                          "minute before these) are not drawn; the table "
                          "counts them.</p>\n",
                          hidden)
                .str();
  html += "<p>Wall time is the union of a stage's steps; busy time is their "
          "sum, above the wall time when steps ran in parallel.</p>\n";
  html += tableHead("stages", {"stage", "steps", "from cache", "cache hit rate",
                               "wall", "busy", "busy / wall"});
  for (const StageTiming &s : run.stages)
    html += "<tr>" + td(escapeHtml(s.name), true) +
            td(std::to_string(s.stepCount)) +
            td(std::to_string(s.cachedCount)) +
            td(s.stepCount ? percent(double(s.cachedCount) / s.stepCount)
                           : "-") +
            td(llvm::formatv("{0:f2} s", s.wall).str()) +
            td(llvm::formatv("{0:f2} s", s.busy).str()) +
            td(s.wall > 0 ? llvm::formatv("{0:f2}", s.busy / s.wall).str()
                          : "-") +
            "</tr>\n";
  return html + "</table>\n</section>\n";
}

std::string historySection(const RunReport &run) {
  std::string html = "<section id=\"history\">\n<h2>Run to run</h2>\n";
  if (run.history.size() < 2)
    return html + "<p>Only this run is recorded so far. From the second run "
                  "on, this section compares runs (their summaries are kept "
                  "in <code>report/history/</code>).</p>\n</section>\n";
  html += historyChart(run.history);
  std::vector<std::string> headers = {"run", "model baseline", "tuned",
                                      "speedup", "winners kept"};
  for (const DispatchReport &d : run.dispatches)
    headers.push_back(d.name);
  std::vector<StringRef> headerRefs(headers.begin(), headers.end());
  html += tableHead("history", headerRefs);
  // Newest first: the run a reader compares against is usually the last.
  for (auto it = run.history.rbegin(); it != run.history.rend(); ++it) {
    html += "<tr>" +
            td(formatDate(it->startedAt) +
                   (it == run.history.rbegin() ? " (this run)" : ""),
               true) +
            td(formatDuration(it->baseline)) + td(formatDuration(it->tuned)) +
            td(times(it->speedup)) + td(std::to_string(it->winnersKept));
    for (const DispatchReport &d : run.dispatches) {
      auto same = llvm::find_if(it->dispatches, [&](const auto &past) {
        return past.id == d.id;
      });
      html += td(same == it->dispatches.end() ? "-" : times(same->speedup));
    }
    html += "</tr>\n";
  }
  return html + "</table>\n<p>Dispatch columns: the dispatch's speedup in "
                "its own benchmark (- when that run did not have it).</p>\n"
                "</section>\n";
}

} // namespace

std::string renderHtml(const RunReport &run) {
  std::string html = "<!doctype html>\n<html lang=\"en\"><head><meta "
                     "charset=\"utf-8\">\n<meta name=\"viewport\" "
                     "content=\"width=device-width, initial-scale=1\">\n";
  html += "<title>retune report: " + escapeHtml(run.model) + "</title>\n";
  html += std::string("<style>") + kStyle + "</style>\n</head><body><main>\n";
  html += "<h1>retune report: " + escapeHtml(run.model) + "</h1>\n";
  html += llvm::formatv("<p class=\"sub\">backend <b>{0}</b> · margin {1} · "
                        "model step started {2}</p>\n",
                        escapeHtml(run.backend), percent(run.margin),
                        formatDate(run.modelResult.startedAt))
              .str();
  html += headline(run);
  html += "<nav>Jump to: <a href=\"#model\">model</a><a "
          "href=\"#dispatches\">dispatches</a><a href=\"#run\">timeline and "
          "cache</a><a href=\"#history\">run to run</a></nav>\n";
  html += modelSection(run);
  html += overviewSection(run);
  for (const DispatchReport &d : run.dispatches)
    html += dispatchSection(d, run.margin);
  html += runSection(run);
  html += historySection(run);
  return html + "</main></body></html>\n";
}

} // namespace retune::report
