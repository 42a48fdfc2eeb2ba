//===- RunBudget.h - A run's time budget, as one step sees it -----*- C++ -*-===//
//
// `[tune] budget` (or `retune plan --budget`) bounds one `ninja tune`: a compile or bench step that
// starts after the budget is spent does not run; it writes a record with
// status `skipped` and notes it in a ledger, so this run selects and links
// what it has and the next run's VERIFY step removes the record and Ninja
// does the step. The
// run's age is that of the ninja process the step descends from (Linux
// /proc); a step started by anything else (a Slurm job) has no run to
// bound.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SUPPORT_RUNBUDGET_H
#define RETUNE_SUPPORT_RUNBUDGET_H

#include "stages/support/LLVM.h"

#include <optional>
#include <string>

namespace retune {

/// Seconds since the ninja process that started this one as a step (its
/// parent, or grandparent through `sh -c`) started; nullopt when there is
/// none.
std::optional<double> secondsSinceNinjaStarted();

/// Where the plan leaves the budget, relative to the build directory (the
/// steps' working directory). A file rather than a flag: changing the
/// budget must not change any step's command line, or Ninja would redo
/// every measurement.
inline constexpr const char *kBudgetFile = ".retune/budget";

/// Why a step writing `outputPath` must not start: the run has used more
/// than the budget in kBudgetFile (none when the file is absent or 0).
/// RETUNE_INJECT_FAULT's `budget-spent:<substring>` spends it for the
/// outputs it names (tests).
std::optional<std::string> budgetSpent(StringRef outputPath);

/// The ledger of skipped records, relative to the build directory: each
/// skipped step adds its record's path, and the next run's VERIFY step
/// removes those records (Ninja then sees the outputs missing and runs the
/// steps) and empties it. A record's age cannot say it: Ninja logs a
/// restat step's start time, not the record's.
inline constexpr const char *kSkippedLedger = ".retune/skipped";

/// Adds `recordPath` (relative to the build directory) to the ledger.
Error noteSkipped(StringRef recordPath);

/// "1h30m", "2m", "45s": whole seconds, the way parseDuration reads them.
std::string formatDuration(double seconds);

/// "90s", "30m", "2h", "1h30m" or a plain number of seconds; 0 is none.
std::optional<double> parseDuration(StringRef text);

} // namespace retune

#endif // RETUNE_SUPPORT_RUNBUDGET_H
