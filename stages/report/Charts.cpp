//===- Charts.cpp - The report's charts, as inline SVG --------------------===//
#include "stages/report/Charts.h"
#include "stages/core/Statistics.h"
#include "stages/report/Svg.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <ctime>

namespace retune::report {
namespace {

/// Every chart is this wide: the page's column less its padding.
constexpr double kWidth = 1000;

/// The unit of a duration axis whose largest value is `maxSeconds`.
struct TimeUnit {
  double factor;
  const char *name;
};

TimeUnit unitFor(double maxSeconds) {
  if (maxSeconds < 1e-3)
    return {1e6, "µs"};
  if (maxSeconds < 1)
    return {1e3, "ms"};
  return {1, "s"};
}

/// The typical noise of a dispatch's measurements: the median over its
/// measured candidates (stats::estimateRatio).
double typicalNoise(const DispatchReport &d) {
  std::vector<double> noises;
  for (const CandidateRow &c : d.candidates)
    if (c.status == Status::Ok && c.ratio > 0)
      noises.push_back(c.noise);
  return stats::median(std::move(noises));
}

/// "name" shortened to `limit` characters with an ellipsis.
std::string shorten(StringRef name, size_t limit) {
  if (name.size() <= limit)
    return name.str();
  return name.take_front(limit - 1).str() + "…";
}

std::string candidateTitle(const CandidateRow &c, bool winner) {
  std::string title = llvm::formatv("candidate {0}{1}: ", c.index,
                                    winner ? " (the winner)" : "")
                          .str();
  if (c.status == Status::Ok)
    title += llvm::formatv("{0:f3}x the baseline time (noise ±{1:f3}), {2} "
                           "vs {3} baseline",
                           c.ratio, c.noise, formatDuration(c.median),
                           formatDuration(c.baselineMedian))
                 .str();
  else
    title += toString(c.status).str() + ": " + shorten(c.message, 300);
  return title + "\nconfig: " + c.config;
}

/// Tick positions and labels for points at the centres of `n` equal slots.
std::vector<std::pair<double, std::string>>
slotTicks(size_t n, double left, double right,
          llvm::function_ref<std::string(size_t)> label) {
  std::vector<std::pair<double, std::string>> ticks;
  for (size_t i = 0; i < n; ++i)
    ticks.emplace_back(left + (right - left) * (i + 0.5) / n, label(i));
  return ticks;
}

std::vector<std::pair<double, std::string>> valueTicks(const Scale &scale,
                                                       StringRef unit) {
  std::vector<std::pair<double, std::string>> ticks;
  for (double v : scale.ticks())
    ticks.emplace_back(scale(v), tickLabel(v) + unit.str());
  return ticks;
}

} // namespace

std::string formatDuration(double seconds) {
  // Nothing was measured (no candidate ran, or the record has no time).
  if (seconds == 0)
    return "-";
  TimeUnit unit = unitFor(seconds);
  double value = seconds * unit.factor;
  int decimals = value < 10 ? 3 : value < 100 ? 2 : 1;
  return llvm::formatv("{0} {1}", llvm::format("%.*f", decimals, value),
                       unit.name)
      .str();
}

std::string formatDate(double unixSeconds) {
  if (unixSeconds <= 0)
    return "unknown";
  std::time_t time = static_cast<std::time_t>(unixSeconds);
  std::tm parts;
  gmtime_r(&time, &parts);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S UTC", &parts);
  return text;
}

Contribution contributionOf(const DispatchReport &d) {
  double before = d.occurrences * d.baseline;
  double after =
      d.verdict == ModelVerdict::Kept ? d.occurrences * d.best : before;
  return {before, after};
}

std::string candidateChart(const DispatchReport &d, double margin) {
  if (d.candidates.empty())
    return "";
  const double height = 300, left = 72, right = kWidth - 24;
  bool anyFailed = llvm::any_of(d.candidates, [](const CandidateRow &c) {
    return c.status != Status::Ok || c.ratio <= 0;
  });
  const double top = anyFailed ? 52 : 16, bottom = height - 48;
  double noise = typicalNoise(d);
  double threshold = 1 - margin;
  // The points, the baseline and the margin are always in view; noise
  // widens the view by at most 1.5x, so that a noisy machine does not
  // squash the candidates into a corner. Bands and whiskers are clipped.
  double coreLo = std::min(threshold, 1.0), coreHi = 1;
  double lo = std::min(threshold, 1 - noise), hi = 1 + noise;
  for (const CandidateRow &c : d.candidates) {
    if (c.status != Status::Ok || c.ratio <= 0)
      continue;
    coreLo = std::min(coreLo, c.ratio);
    coreHi = std::max(coreHi, c.ratio);
    lo = std::min(lo, c.ratio - c.noise);
    hi = std::max(hi, c.ratio + c.noise);
  }
  Scale y = Scale::fit(std::max(lo, coreLo / 1.5), std::min(hi, coreHi * 1.5),
                       bottom, top, 3.0);
  auto clip = [&](double ratio) {
    return y(std::clamp(ratio, y.low(), y.high()));
  };
  SvgBuilder svg(kWidth, height,
                 "time relative to the baseline of each candidate of " +
                     d.name);
  if (noise > 0)
    svg.rect(left, clip(1 + noise), right - left,
             clip(1 - noise) - clip(1 + noise),
             "noise",
             llvm::formatv("noise band: 1 ± {0:f3} (the median noise of the "
                           "candidates' paired measurements)",
                           noise)
                 .str());
  svg.yAxis(y, left, right,
            y.isLog() ? "time / baseline (log scale)" : "time / baseline",
            "×");
  svg.line(left, y(1), right, y(1), "base");
  svg.text(right - 4, y(1) - 5, "baseline", "note", "end");
  svg.line(left, y(threshold), right, y(threshold), "margin");
  svg.text(right - 4, y(threshold) + 13,
           llvm::formatv("1 − margin = {0:f3}", threshold).str(),
           "note margin-label", "end");

  size_t n = d.candidates.size();
  auto x = [&](size_t i) { return left + (right - left) * (i + 0.5) / n; };
  if (anyFailed) {
    svg.rect(left, 12, right - left, 28, "failstrip");
    svg.text(left - 6, 30, "failed", "tick", "end");
  }
  for (size_t i = 0; i < n; ++i) {
    const CandidateRow &c = d.candidates[i];
    bool winner = d.winner && *d.winner == c.index;
    std::string title = candidateTitle(c, winner);
    if (c.status != Status::Ok || c.ratio <= 0) {
      svg.cross(x(i), 26, 5, "fail fail-" + toString(c.status).str(), title);
      continue;
    }
    if (c.noise > 0)
      svg.line(x(i), clip(c.ratio + c.noise), x(i), clip(c.ratio - c.noise),
               "whisker");
    svg.circle(x(i), y(c.ratio), winner ? 6.5 : 4, winner ? "win" : "ok",
               title);
    if (!winner)
      continue;
    // The label goes on the side with room for it.
    bool leftSide = x(i) > right - 170;
    svg.text(x(i) + (leftSide ? -10 : 10), y(c.ratio) + 4,
             llvm::formatv("winner #{0}: {1:f3}×", c.index, c.ratio).str(),
             "win-label", leftSide ? "end" : "start");
  }
  svg.xAxis(left, right, bottom,
            slotTicks(n, left, right,
                      [&](size_t i) {
                        return std::to_string(d.candidates[i].index);
                      }),
            "candidate, in cost-model order (hover a mark for its "
            "configuration)");
  return svg.finish();
}

std::string modelSamplesChart(const ModelReport &model) {
  std::vector<double> all = model.baselineSamples;
  all.insert(all.end(), model.tunedSamples.begin(), model.tunedSamples.end());
  if (all.empty())
    return "";
  const double height = 150, left = 90, right = kWidth - 40, axisY = 106;
  auto [lowest, highest] = std::minmax_element(all.begin(), all.end());
  TimeUnit unit = unitFor(*highest);
  Scale x = Scale::fit(*lowest * unit.factor, *highest * unit.factor, left,
                       right, 1e9);
  SvgBuilder svg(kWidth, height,
                 "the model's baseline and tuned run times, every sample");
  struct Row {
    const char *name;
    const std::vector<double> &samples;
    double median;
    double y;
  };
  for (const Row &row : {Row{"baseline", model.baselineSamples,
                             model.baseline, 32},
                         Row{"tuned", model.tunedSamples, model.tuned, 72}}) {
    svg.text(left - 10, row.y + 4, row.name, "tick", "end");
    svg.line(left, row.y, right, row.y, "grid");
    std::string cls = std::string(row.name) + "-sample";
    for (double s : row.samples)
      svg.circle(x(s * unit.factor), row.y, 3.5, cls,
                 std::string(row.name) + " sample: " + formatDuration(s));
    if (row.samples.empty() || row.median <= 0)
      continue;
    svg.rect(x(row.median * unit.factor) - 1.5, row.y - 13, 3, 26, "median",
             std::string(row.name) + " median: " +
                 formatDuration(row.median));
  }
  svg.xAxis(left, right, axisY, valueTicks(x, std::string(" ") + unit.name),
            std::string("one model run (") + unit.name +
                "); bars are the medians");
  return svg.finish();
}

std::string contributionChart(const RunReport &run) {
  struct Bar {
    std::string name, detail;
    Contribution value;
  };
  std::vector<Bar> bars;
  for (const DispatchReport &d : run.dispatches) {
    Contribution c = contributionOf(d);
    if (c.before > 0)
      bars.push_back({d.name,
                      llvm::formatv("{0} × {1}", d.occurrences,
                                    formatDuration(d.baseline))
                          .str(),
                      c});
  }
  if (bars.empty())
    return "";
  llvm::stable_sort(bars, [](const Bar &a, const Bar &b) {
    return a.value.before > b.value.before;
  });
  bars.push_back({"model (measured)", "measured end to end",
                  {run.modelResult.baseline, run.modelResult.tuned}});
  const double rowHeight = 30, top = 10, left = 220, right = kWidth - 150;
  const double bottom = top + rowHeight * bars.size() + 4;
  const double height = bottom + 44;
  double highest = 0;
  for (const Bar &b : bars)
    highest = std::max({highest, b.value.before, b.value.after});
  TimeUnit unit = unitFor(highest);
  Scale x(0, highest * unit.factor * 1.04, left, right);
  SvgBuilder svg(kWidth, height,
                 "time per model run of each dispatch, before and after "
                 "tuning");
  for (double v : x.ticks())
    svg.line(x(v), top, x(v), bottom, "grid");
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar &b = bars[i];
    double y = top + rowHeight * i;
    bool isModel = i + 1 == bars.size();
    if (isModel)
      svg.line(10, y - 1, right, y - 1, "axis");
    svg.text(left - 8, y + 17, shorten(b.name, 30),
             isModel ? "tick strong" : "tick", "end");
    svg.rect(left, y + 4, x(b.value.before * unit.factor) - left, 10,
             "bar-before",
             b.name + ": " + formatDuration(b.value.before) +
                 " per model run before tuning (" + b.detail + ")");
    svg.rect(left, y + 15, x(b.value.after * unit.factor) - left, 10,
             "bar-after",
             b.name + ": " + formatDuration(b.value.after) +
                 " per model run after tuning");
    svg.text(x(b.value.before * unit.factor) + 6, y + 17,
             formatDuration(b.value.before) + " → " +
                 formatDuration(b.value.after),
             "note", "start");
  }
  svg.xAxis(left, right, bottom, valueTicks(x, ""),
            std::string("time per model run (") + unit.name +
                "): dispatches estimated from their benchmarks");
  return svg.finish();
}

namespace {

/// Steps of the last session: the steps that follow each other with gaps
/// under a minute, ending with the latest one. Earlier sessions (a run
/// killed and resumed the next day) would squash the timeline.
double sessionStart(const std::vector<StageTiming> &stages) {
  std::vector<std::pair<double, double>> spans;
  for (const StageTiming &stage : stages)
    for (const StepTime &step : stage.steps)
      spans.emplace_back(step.start, step.end);
  if (spans.empty())
    return 0;
  llvm::sort(spans);
  double start = spans.front().first, end = spans.front().second;
  for (const auto &[from, to] : spans) {
    if (from > end + 60)
      start = from;
    end = std::max(end, to);
  }
  return start;
}

/// Assigns each step (sorted by start) the first lane free at its start,
/// at most `maxLanes`; returns the lane per step and the lane count.
std::vector<unsigned> packLanes(const std::vector<const StepTime *> &steps,
                                unsigned maxLanes, unsigned *lanes) {
  std::vector<double> laneEnds;
  std::vector<unsigned> lane;
  for (const StepTime *step : steps) {
    auto freeLane = llvm::find_if(
        laneEnds, [&](double end) { return end <= step->start + 1e-6; });
    unsigned index = freeLane - laneEnds.begin();
    if (freeLane == laneEnds.end()) {
      if (laneEnds.size() < maxLanes)
        laneEnds.push_back(0);
      else
        index = std::min_element(laneEnds.begin(), laneEnds.end()) -
                laneEnds.begin();
    }
    index = std::min<unsigned>(index, laneEnds.size() - 1);
    laneEnds[index] = std::max(laneEnds[index], step->end);
    lane.push_back(index);
  }
  *lanes = std::max<unsigned>(laneEnds.size(), 1);
  return lane;
}

} // namespace

std::string timelineChart(const std::vector<StageTiming> &stages,
                          unsigned *hidden) {
  *hidden = 0;
  double start = sessionStart(stages);
  if (start <= 0)
    return "";
  double end = start;
  std::vector<std::vector<const StepTime *>> shown(stages.size());
  for (size_t s = 0; s < stages.size(); ++s) {
    if (stages[s].timedByNinja)
      continue;
    for (const StepTime &step : stages[s].steps) {
      if (step.start < start) {
        ++*hidden;
        continue;
      }
      shown[s].push_back(&step);
      end = std::max(end, step.end);
    }
    llvm::stable_sort(shown[s], [](const StepTime *a, const StepTime *b) {
      return a->start < b->start;
    });
  }
  const double left = 110, right = kWidth - 20, top = 8, laneHeight = 8;
  Scale x(0, std::max(end - start, 1e-3) * 1.02, left, right);
  // Lanes first: the chart's height depends on them.
  std::vector<std::vector<unsigned>> lanes(stages.size());
  std::vector<unsigned> laneCounts(stages.size());
  double bottom = top;
  for (size_t s = 0; s < stages.size(); ++s) {
    if (stages[s].timedByNinja)
      continue;
    lanes[s] = packLanes(shown[s], 8, &laneCounts[s]);
    bottom += laneCounts[s] * laneHeight + 14;
  }
  SvgBuilder svg(kWidth, bottom + 44,
                 "when each step of the latest session ran, per stage");
  double y = top;
  for (size_t s = 0; s < stages.size(); ++s) {
    if (stages[s].timedByNinja)
      continue;
    double rowHeight = laneCounts[s] * laneHeight + 14;
    svg.text(left - 8, y + rowHeight / 2 + 4, stages[s].name, "tick", "end");
    svg.line(left, y + rowHeight, right, y + rowHeight, "grid");
    for (size_t i = 0; i < shown[s].size(); ++i) {
      const StepTime &step = *shown[s][i];
      double from = x(step.start - start), to = x(step.end - start);
      std::string title =
          step.cached ? step.label + ": replayed from the cache"
                      : llvm::formatv("{0}: {1:f2} s, from {2:f2} s",
                                      step.label, step.end - step.start,
                                      step.start - start)
                            .str();
      svg.rect(from, y + 7 + lanes[s][i] * laneHeight, std::max(to - from, 2.0),
               laneHeight - 2,
               step.cached ? "step cached" : "step step-" + stages[s].name,
               title);
    }
    y += rowHeight;
  }
  svg.xAxis(left, right, bottom, valueTicks(x, " s"),
            "seconds since " + formatDate(start) +
                " (parallel steps in separate lanes)");
  return svg.finish();
}

std::string historyChart(const std::vector<HistoryRun> &runs) {
  if (runs.size() < 2)
    return "";
  const double height = 230, left = 72, right = kWidth - 24, top = 16,
               bottom = height - 48;
  double lo = 1, hi = 1;
  for (const HistoryRun &run : runs) {
    lo = std::min(lo, run.speedup);
    hi = std::max(hi, run.speedup);
  }
  Scale y = Scale::fit(std::max(lo, 1e-3), hi, bottom, top, 3.0);
  SvgBuilder svg(kWidth, height, "the model's speedup in each kept run");
  svg.yAxis(y, left, right, "model speedup", "×");
  svg.line(left, y(1), right, y(1), "base");
  size_t n = runs.size();
  auto x = [&](size_t i) { return left + (right - left) * (i + 0.5) / n; };
  std::vector<std::pair<double, double>> points;
  for (size_t i = 0; i < n; ++i)
    points.emplace_back(x(i), y(runs[i].speedup));
  svg.polyline(points, "trend");
  for (size_t i = 0; i < n; ++i) {
    const HistoryRun &run = runs[i];
    svg.circle(points[i].first, points[i].second, 4.5,
               i + 1 == n ? "win" : "ok",
               llvm::formatv("run of {0}: {1:f3}× ({2} → {3}), {4} winners "
                             "kept",
                             formatDate(run.startedAt), run.speedup,
                             formatDuration(run.baseline),
                             formatDuration(run.tuned), run.winnersKept)
                   .str());
  }
  svg.xAxis(left, right, bottom,
            slotTicks(n, left, right,
                      [&](size_t i) {
                        // "MM-DD HH:MM:SS" of "YYYY-MM-DD HH:MM:SS UTC".
                        std::string date = formatDate(runs[i].startedAt);
                        return date.size() > 19 ? date.substr(5, 14) : date;
                      }),
            "run (when its model step started, UTC); the last is this run");
  return svg.finish();
}

} // namespace retune::report
