//===- Svg.cpp - Inline SVG charts for the HTML report --------------------===//
#include "stages/report/Svg.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace retune::report {

std::string escapeHtml(StringRef text) {
  std::string out;
  out.reserve(text.size());
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
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

Scale::Scale(double lo, double hi, double from, double to, bool logarithmic)
    : lo(lo), hi(hi), from(from), to(to), logarithmic(logarithmic) {}

Scale Scale::fit(double lo, double hi, double from, double to,
                 double logAbove) {
  if (lo > hi)
    std::swap(lo, hi);
  bool log = lo > 0 && hi / lo > logAbove;
  if (log)
    return Scale(lo / 1.12, hi * 1.12, from, to, true);
  double air = (hi - lo) * 0.08;
  // A single value still needs a visible range around it.
  if (air <= 0)
    air = hi != 0 ? std::abs(hi) * 0.05 : 1;
  return Scale(std::max(lo - air, lo >= 0 ? 0.0 : lo - air), hi + air, from,
               to);
}

double Scale::operator()(double value) const {
  double t;
  if (logarithmic)
    t = std::log(std::max(value, 1e-300) / lo) / std::log(hi / lo);
  else
    t = (value - lo) / (hi - lo);
  return from + (to - from) * t;
}

/// The round step (1, 2 or 5 times a power of ten) nearest above `raw`.
static double niceStep(double raw) {
  double magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * magnitude >= raw)
      return m * magnitude;
  return 10 * magnitude;
}

std::vector<double> Scale::ticks(unsigned count) const {
  std::vector<double> out;
  if (!logarithmic) {
    double step = niceStep((hi - lo) / std::max(count, 1u));
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9;
         v += step)
      out.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
    return out;
  }
  // Decades alone when the domain spans several; 1-2-5 or finer mantissas
  // when it spans only a few, so that there are always a few labels.
  double decades = std::log10(hi / lo);
  std::vector<double> mantissas =
      decades > 2.5 ? std::vector<double>{1}
      : decades > 0.8
          ? std::vector<double>{1, 2, 5}
          : std::vector<double>{1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9};
  for (int e = static_cast<int>(std::floor(std::log10(lo)));
       e <= static_cast<int>(std::ceil(std::log10(hi))); ++e)
    for (double m : mantissas) {
      double v = m * std::pow(10, e);
      if (v >= lo && v <= hi)
        out.push_back(v);
    }
  return out;
}

std::string tickLabel(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g", value);
  return text;
}

SvgBuilder::SvgBuilder(double width, double height, StringRef label)
    : height(height) {
  // viewBox plus a max-width lets the chart shrink on a narrow window.
  svg = llvm::formatv("<svg class=\"chart\" width=\"{0}\" height=\"{1}\" "
                      "viewBox=\"0 0 {0} {1}\" role=\"img\" "
                      "aria-label=\"{2}\">\n",
                      width, height, escapeHtml(label))
            .str();
}

/// A <title> child (hover text), or nothing.
static std::string titleElement(StringRef title) {
  if (title.empty())
    return "";
  return "<title>" + escapeHtml(title) + "</title>";
}

void SvgBuilder::line(double x1, double y1, double x2, double y2,
                      StringRef cls) {
  svg += llvm::formatv("<line class=\"{0}\" x1=\"{1:f1}\" y1=\"{2:f1}\" "
                       "x2=\"{3:f1}\" y2=\"{4:f1}\"/>\n",
                       cls, x1, y1, x2, y2);
}

void SvgBuilder::rect(double x, double y, double w, double h, StringRef cls,
                      StringRef title) {
  svg += llvm::formatv("<rect class=\"{0}\" x=\"{1:f1}\" y=\"{2:f1}\" "
                       "width=\"{3:f1}\" height=\"{4:f1}\">{5}</rect>\n",
                       cls, x, y, std::max(w, 0.0), std::max(h, 0.0),
                       titleElement(title));
}

void SvgBuilder::circle(double cx, double cy, double r, StringRef cls,
                        StringRef title) {
  svg += llvm::formatv("<circle class=\"{0}\" cx=\"{1:f1}\" cy=\"{2:f1}\" "
                       "r=\"{3:f1}\">{4}</circle>\n",
                       cls, cx, cy, r, titleElement(title));
}

void SvgBuilder::cross(double cx, double cy, double r, StringRef cls,
                       StringRef title) {
  svg += llvm::formatv("<path class=\"{0}\" d=\"M{1:f1},{2:f1} L{3:f1},{4:f1} "
                       "M{1:f1},{4:f1} L{3:f1},{2:f1}\">{5}</path>\n",
                       cls, cx - r, cy - r, cx + r, cy + r,
                       titleElement(title));
}

void SvgBuilder::polyline(const std::vector<std::pair<double, double>> &points,
                          StringRef cls) {
  std::string coordinates;
  for (const auto &[x, y] : points)
    coordinates += llvm::formatv("{0:f1},{1:f1} ", x, y).str();
  svg += llvm::formatv("<polyline class=\"{0}\" points=\"{1}\"/>\n", cls,
                       StringRef(coordinates).rtrim());
}

void SvgBuilder::text(double x, double y, StringRef content, StringRef cls,
                      StringRef anchor, int rotate) {
  std::string transform =
      rotate ? llvm::formatv(" transform=\"rotate({0} {1:f1} {2:f1})\"",
                             rotate, x, y)
                   .str()
             : "";
  svg += llvm::formatv("<text class=\"{0}\" x=\"{1:f1}\" y=\"{2:f1}\" "
                       "text-anchor=\"{3}\"{4}>{5}</text>\n",
                       cls, x, y, anchor, transform, escapeHtml(content));
}

void SvgBuilder::yAxis(const Scale &yScale, double x, double right,
                       StringRef label, StringRef unit) {
  // Labels closer than a line of text to the previous one are skipped, so
  // that fine log ticks never overlap; their grid lines stay.
  double lastLabelled = 1e9;
  for (double v : yScale.ticks()) {
    double y = yScale(v);
    line(x, y, right, y, "grid");
    if (std::abs(y - lastLabelled) < 14)
      continue;
    lastLabelled = y;
    line(x - 4, y, x, y, "axis");
    text(x - 6, y + 4, tickLabel(v) + unit.str(), "tick", "end");
  }
  double top = std::min(yScale(yScale.low()), yScale(yScale.high()));
  double bottom = std::max(yScale(yScale.low()), yScale(yScale.high()));
  line(x, top, x, bottom, "axis");
  text(14, (top + bottom) / 2, label, "axis-label", "middle", -90);
}

void SvgBuilder::xAxis(double left, double right, double y,
                       const std::vector<std::pair<double, std::string>> &ticks,
                       StringRef label) {
  line(left, y, right, y, "axis");
  double lastLabelled = -1e9;
  for (const auto &[x, tick] : ticks) {
    line(x, y, x, y + 4, "axis");
    // Roughly 7 px per character at the tick font size.
    if (x - lastLabelled < 7.0 * tick.size() + 8)
      continue;
    lastLabelled = x;
    text(x, y + 16, tick, "tick", "middle");
  }
  text((left + right) / 2, height - 6, label, "axis-label", "middle");
}

std::string SvgBuilder::finish() {
  svg += "</svg>\n";
  return std::move(svg);
}

} // namespace retune::report
