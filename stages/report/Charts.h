//===- Charts.h - The report's charts, as inline SVG ------------*- C++ -*-===//
//
// Each function returns one <svg> element (or "" when there is nothing to
// draw). Hover text is in <title> children, so no chart needs JavaScript;
// the tables next to each chart carry the same numbers for readers without
// a mouse.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_REPORT_CHARTS_H
#define RETUNE_REPORT_CHARTS_H

#include "stages/report/ReportData.h"

#include <string>

namespace retune::report {

/// "12.3 µs", "1.234 ms", "2.50 s"; "-" for 0 (not measured).
std::string formatDuration(double seconds);
/// "2025-06-01 12:34 UTC" ("unknown" for 0).
std::string formatDate(double unixSeconds);

/// A dispatch's estimated time per model run, before and after tuning:
/// occurrences times the dispatch benchmark's baseline and (when the model
/// kept its winner) best time.
struct Contribution {
  double before = 0, after = 0;
};
Contribution contributionOf(const DispatchReport &dispatch);

/// Every candidate's time relative to the baseline (log scale when they
/// span more than 3x), with the noise band, the margin line, the winner and
/// the failed candidates in a strip above.
std::string candidateChart(const DispatchReport &dispatch, double margin);

/// The model's baseline and tuned samples on one time axis, medians marked.
std::string modelSamplesChart(const ModelReport &model);

/// Per dispatch, the estimated time in the model before and after tuning.
std::string contributionChart(const RunReport &run);

/// The steps of the latest session (steps less than a minute apart) per
/// stage, parallel steps in lanes. `hidden` receives how many earlier steps
/// were left out.
std::string timelineChart(const std::vector<StageTiming> &stages,
                          unsigned *hidden);

/// The model's speedup over the kept runs, oldest left.
std::string historyChart(const std::vector<HistoryRun> &runs);

} // namespace retune::report

#endif // RETUNE_REPORT_CHARTS_H
