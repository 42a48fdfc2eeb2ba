//===- Svg.h - Inline SVG charts for the HTML report ------------*- C++ -*-===//
//
// The report is one self-contained HTML file that must read well without
// JavaScript, so its charts are inline SVG written here: scales with "nice"
// ticks (linear or logarithmic), labelled axes, and marks whose <title>
// child is the hover text. Every string that reaches the page goes through
// escapeHtml: dispatch names, configs and messages come from records.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_REPORT_SVG_H
#define RETUNE_REPORT_SVG_H

#include "stages/support/LLVM.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace retune::report {

/// `text` with &, <, >, " and ' replaced by entities: safe in element
/// content and in quoted attribute values.
std::string escapeHtml(StringRef text);

/// Maps data values in [lo, hi] to pixels in [from, to] (to < from for a
/// y axis that grows upwards), linearly or logarithmically.
class Scale {
public:
  Scale(double lo, double hi, double from, double to, bool logarithmic = false);

  /// A scale over values spanning [lo, hi], logarithmic when they span more
  /// than `logAbove` times (positive values only), widened by a little air.
  static Scale fit(double lo, double hi, double from, double to,
                   double logAbove);

  double operator()(double value) const;
  bool isLog() const { return logarithmic; }
  double low() const { return lo; }
  double high() const { return hi; }

  /// About `count` round values inside the domain: 1-2-5 steps on a linear
  /// scale; 1-2-5 decades (or finer when the domain is narrow) on a log one.
  std::vector<double> ticks(unsigned count = 6) const;

private:
  double lo, hi, from, to;
  bool logarithmic;
};

/// A number as a tick label: four significant digits at most, no trailing
/// zeros ("0.25", "1", "1.5", "120").
std::string tickLabel(double value);

/// Builds one <svg> element. Coordinates are pixels; `title` arguments
/// become hover text (escaped here).
class SvgBuilder {
public:
  SvgBuilder(double width, double height, StringRef label);

  void line(double x1, double y1, double x2, double y2, StringRef cls);
  void rect(double x, double y, double width, double height, StringRef cls,
            StringRef title = "");
  void circle(double cx, double cy, double r, StringRef cls,
              StringRef title = "");
  /// A cross (two strokes) centred on (cx, cy): a failed candidate.
  void cross(double cx, double cy, double r, StringRef cls, StringRef title);
  /// A line through `points` (x, y), in order.
  void polyline(const std::vector<std::pair<double, double>> &points,
                StringRef cls);
  /// `anchor` is start, middle or end; `rotate` turns the text around its
  /// anchor point (-90: reads bottom to top).
  void text(double x, double y, StringRef content, StringRef cls,
            StringRef anchor = "start", int rotate = 0);

  /// A left y axis along `x` from `yScale`'s range: ticks, grid lines across
  /// to `right` and, rotated, `label`.
  void yAxis(const Scale &yScale, double x, double right, StringRef label,
             StringRef unit);
  /// A bottom x axis at `y` with the given tick positions and labels, and
  /// `label` centred below.
  void xAxis(double left, double right, double y,
             const std::vector<std::pair<double, std::string>> &ticks,
             StringRef label);

  std::string finish();

private:
  std::string svg;
  double height;
};

} // namespace retune::report

#endif // RETUNE_REPORT_SVG_H
