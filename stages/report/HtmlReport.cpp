//===- HtmlReport.cpp - report/index.html: the tuning run at a glance -----===//
#include "stages/report/HtmlReport.h"

#include <algorithm>
#include <fmt/format.h>

namespace retune::report {
namespace {

std::string escape(StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

const char *colorOf(Status status) {
  switch (status) {
  case Status::Ok:
    return "#2b6cb0";
  case Status::WrongResult:
    return "#c53030";
  case Status::Timeout:
    return "#d69e2e";
  default:
    return "#718096";
  }
}

/// Candidates left to right, time relative to the baseline bottom to top;
/// the dashed line is the baseline. Failed candidates sit on the top edge.
std::string chart(const DispatchRow &row) {
  const double width = 640, height = 180, pad = 30;
  double top = 1.2;
  for (const CandidatePoint &p : row.points)
    if (p.status == Status::Ok)
      top = std::max(top, p.ratio * 1.1);
  size_t n = std::max<size_t>(row.points.size(), 1);
  auto x = [&](size_t i) { return pad + (width - 2 * pad) * (i + 0.5) / n; };
  auto y = [&](double ratio) {
    return height - pad - (height - 2 * pad) * std::min(ratio, top) / top;
  };
  std::string svg = fmt::format(
      "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"candidate "
      "times of {}\">\n",
      width, height, escape(row.name));
  svg += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" "
                     "stroke=\"#555\" stroke-dasharray=\"4\"/>\n",
                     pad, width - pad, y(1.0), y(1.0));
  svg += fmt::format("<text x=\"2\" y=\"{:.1f}\" font-size=\"10\">1.0</text>\n",
                     y(1.0) + 3);
  for (size_t i = 0; i < row.points.size(); ++i) {
    const CandidatePoint &p = row.points[i];
    bool ok = p.status == Status::Ok;
    bool winner = row.winner == std::to_string(p.index);
    svg += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"><title>"
        "candidate {}: {}</title></circle>\n",
        x(i), ok ? y(p.ratio) : pad / 2, winner ? 6 : 4, colorOf(p.status),
        p.index,
        ok ? fmt::format("{:.3f}x the baseline time", p.ratio)
           : std::string(toString(p.status)));
  }
  svg += "</svg>\n";
  return svg;
}

} // namespace

std::string renderHtml(StringRef title, const std::vector<DispatchRow> &rows,
                       const ModelRow &model) {
  std::string html = fmt::format(
      "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>retune: "
      "{0}</title>\n<style>body{{font-family:sans-serif;margin:2em}}"
      "table{{border-collapse:collapse}}td,th{{padding:4px 10px;border-bottom:"
      "1px solid #ddd;text-align:right}}td:first-child,th:first-child{{text-"
      "align:left}}</style></head><body>\n<h1>retune: {0}</h1>\n",
      escape(title));
  html += fmt::format("<p>Model: {:.3f} ms → {:.3f} ms, <b>{:.2f}x</b>. {}</p>\n",
                      1e3 * model.baseline, 1e3 * model.tuned, model.speedup,
                      escape(model.decision));
  html += "<table><tr><th>dispatch</th><th>share</th><th>baseline</th>"
          "<th>tuned</th><th>speedup</th><th>ok</th><th>failed</th></tr>\n";
  for (const DispatchRow &r : rows)
    html += fmt::format("<tr><td><a href=\"#{}\">{}</a></td><td>{:.1f}%</td>"
                        "<td>{:.3f} ms</td><td>{:.3f} ms</td><td>{:.2f}x</td>"
                        "<td>{}</td><td>{}</td></tr>\n",
                        r.id, escape(r.name), 100 * r.share, 1e3 * r.baseline,
                        1e3 * r.best, r.speedup, r.ok, r.failed);
  html += "</table>\n";
  for (const DispatchRow &r : rows) {
    html += fmt::format("<h2 id=\"{}\">{}</h2>\n<p>{}</p>\n", r.id,
                        escape(r.name), escape(r.reason));
    html += chart(r);
  }
  html += "<p>Blue: measured (large: the winner). Red: wrong result. Yellow: "
          "timeout. Grey: other failures.</p>\n</body></html>\n";
  return html;
}

} // namespace retune::report
