//===- HtmlReport.h - report/index.html: the tuning run at a glance -*- C++ -*-===//
#ifndef RETUNE_REPORT_HTMLREPORT_H
#define RETUNE_REPORT_HTMLREPORT_H

#include "stages/support/Records.h"

#include <string>
#include <vector>

namespace retune::report {

struct CandidatePoint {
  unsigned index = 0;
  Status status = Status::Ok;
  /// Candidate time / baseline time (Ok points only).
  double ratio = 0;
};

struct DispatchRow {
  std::string id, name, winner, reason;
  double share = 0, baseline = 0, best = 0, speedup = 1;
  unsigned ok = 0, failed = 0;
  std::vector<CandidatePoint> points;
};

struct ModelRow {
  double baseline = 0, tuned = 0, speedup = 0;
  std::string decision;
};

/// A self-contained page (no scripts, no external files): the model result,
/// a table of dispatches and, per dispatch, an SVG chart of every
/// candidate's time relative to the baseline, failures marked by status.
std::string renderHtml(StringRef title, const std::vector<DispatchRow> &rows,
                       const ModelRow &model);

} // namespace retune::report

#endif // RETUNE_REPORT_HTMLREPORT_H
