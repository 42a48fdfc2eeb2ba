//===- History.h - Earlier summaries of a build directory -------*- C++ -*-===//
//
// Each report keeps a copy of its summary.json in report/history/, named by
// when the run's model step started, so that the page can compare runs
// (after a compiler upgrade, a config change, a nightly job). The count is
// bounded: the oldest copies go first.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_REPORT_HISTORY_H
#define RETUNE_REPORT_HISTORY_H

#include "stages/report/ReportData.h"

#include "llvm/Support/JSON.h"

#include <vector>

namespace retune::report {

/// The run-to-run numbers of a summary (schema retune.summary/1).
Expected<HistoryRun> historyRunFromJson(const llvm::json::Value &summary);

/// Writes `summary` (with its `started_at`) to `<dir>/<started_at>.json`
/// (atomically, only when its bytes change) and removes the oldest copies
/// beyond `keep`. A summary without `started_at` is not kept.
Error keepInHistory(StringRef dir, const llvm::json::Value &summary,
                    unsigned keep);

/// Every readable summary in `dir`, oldest first. A file that does not
/// parse is skipped with a warning: history never fails a report.
std::vector<HistoryRun> loadHistory(StringRef dir);

} // namespace retune::report

#endif // RETUNE_REPORT_HISTORY_H
