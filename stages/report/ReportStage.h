//===- ReportStage.h - The report of a build: summary, page, table -*- C++
//-*-===//
//
// Reads the records of a build directory by following the indexes
// (dispatches -> candidates -> artifacts/results -> best -> model) into a
// RunReport, and writes report/summary.json, report/index.html, a copy of
// the summary in report/history/ and a table on stdout. Every backend's
// build is read the same way: the records are shared (docs/file-formats.md).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_REPORT_REPORTSTAGE_H
#define RETUNE_REPORT_REPORTSTAGE_H

#include "stages/report/ReportData.h"
#include "stages/support/LLVM.h"

#include <string>

namespace retune::report {

struct ReportOptions {
  /// The tuning build directory.
  std::string buildDir = ".";
  /// The summary to write, relative to buildDir.
  std::string outputPath = "report/summary.json";
  /// The backend the run used.
  std::string backend = "mlir-cpu";
  /// The selection margin; negative: build.ninja's `margin`, else 0.02.
  double margin = -1;
  /// Summaries of earlier runs kept in report/history/ (0: none).
  unsigned historyKeep = 20;
};

Error writeReport(const ReportOptions &options);

/// Why no dispatch of `run` had a winner, in one line a person reads: how
/// many candidates were measured (and did not apply or failed), and how
/// close the best came to the default and to what a winner had to beat;
/// empty when a dispatch has a winner.
std::string explainNoWinner(const RunReport &run);

/// For a dispatch whose best measured candidate took more than
/// kWrongSpaceRatio times the default config's time: one line that says
/// its search space is wrong; empty otherwise (or when none was measured).
std::string wrongSpaceWarning(const DispatchReport &dispatch);

} // namespace retune::report

#endif // RETUNE_REPORT_REPORTSTAGE_H
