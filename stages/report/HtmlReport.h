//===- HtmlReport.h - report/index.html: the tuning run at a glance -*- C++ -*-===//
#ifndef RETUNE_REPORT_HTMLREPORT_H
#define RETUNE_REPORT_HTMLREPORT_H

#include "stages/report/ReportData.h"

#include <string>

namespace retune::report {

/// A self-contained page (no scripts, no external files, inline SVG charts
/// with hover text in <title>s, every number also in a table):
///  - the model: baseline vs tuned samples, each dispatch's contribution and
///    what the model step kept or dropped;
///  - per dispatch: every candidate's time relative to the baseline with the
///    noise band and the margin, the winner, failures by reason, and every
///    candidate's configuration;
///  - the run: a stage timeline (wall and busy time) and cache hits;
///  - run to run: the kept summaries, when there are at least two.
std::string renderHtml(const RunReport &run);

} // namespace retune::report

#endif // RETUNE_REPORT_HTMLREPORT_H
