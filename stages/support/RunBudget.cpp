//===- RunBudget.cpp - A run's time budget, as one step sees it -----------===//
#include "stages/support/RunBudget.h"

#include "stages/support/FaultInjection.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <unistd.h>

using namespace llvm;

namespace retune {
namespace {

struct ProcStat {
  std::string comm;
  long parent = 0;
  double startTicks = 0;
};

/// /proc/<pid>/stat: `pid (comm) state ppid ... starttime(22) ...`; comm may
/// hold spaces and parentheses, so the fields are read after the last `)`.
std::optional<ProcStat> readStat(long pid) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> file =
      MemoryBuffer::getFileAsStream(formatv("/proc/{0}/stat", pid).str());
  if (!file)
    return std::nullopt;
  StringRef text = (*file)->getBuffer();
  size_t open = text.find('('), close = text.rfind(')');
  if (open == StringRef::npos || close == StringRef::npos || close < open)
    return std::nullopt;
  ProcStat stat;
  stat.comm = text.slice(open + 1, close).str();
  SmallVector<StringRef> fields;
  text.drop_front(close + 1).split(fields, ' ', -1, /*KeepEmpty=*/false);
  // fields[0] is field 3 (state): ppid is field 4, starttime field 22.
  if (fields.size() < 20 || fields[1].getAsInteger(10, stat.parent) ||
      fields[19].getAsDouble(stat.startTicks))
    return std::nullopt;
  return stat;
}

std::optional<double> uptimeSeconds() {
  ErrorOr<std::unique_ptr<MemoryBuffer>> file = MemoryBuffer::getFileAsStream("/proc/uptime");
  double up = 0;
  if (!file || (*file)->getBuffer().split(' ').first.getAsDouble(up))
    return std::nullopt;
  return up;
}

} // namespace

std::optional<double> secondsSinceNinjaStarted() {
  long pid = getppid();
  // Ninja runs each command through `/bin/sh -c`: a step is this process's
  // parent or grandparent. A tool that another step starts (the model step
  // benchmarks through retune-bench) is deeper and is never stopped: the
  // step that started it decides.
  for (int depth = 0; depth < 2 && pid > 1; ++depth) {
    std::optional<ProcStat> stat = readStat(pid);
    if (!stat)
      return std::nullopt;
    if (stat->comm == "ninja") {
      std::optional<double> up = uptimeSeconds();
      long ticks = sysconf(_SC_CLK_TCK);
      if (!up || ticks <= 0)
        return std::nullopt;
      return *up - stat->startTicks / static_cast<double>(ticks);
    }
    pid = stat->parent;
  }
  return std::nullopt;
}

std::string formatDuration(double seconds) {
  auto whole = static_cast<long long>(seconds + 0.5);
  std::string text;
  if (whole >= 3600)
    text += std::to_string(whole / 3600) + "h";
  if (whole % 3600 >= 60)
    text += std::to_string(whole % 3600 / 60) + "m";
  if (whole % 60 || text.empty())
    text += std::to_string(whole % 60) + "s";
  return text;
}

std::optional<std::string> budgetSpent(StringRef outputPath) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> file = MemoryBuffer::getFile(kBudgetFile);
  double budgetSeconds = 0;
  if (!file || (*file)->getBuffer().trim().getAsDouble(budgetSeconds) || !(budgetSeconds > 0))
    return std::nullopt;
  if (injectedFault(outputPath) == "budget-spent")
    return formatv("not run: the run's time budget ({0}) was spent (injected); the next "
                   "`ninja tune` runs it",
                   formatDuration(budgetSeconds))
        .str();
  std::optional<double> age = secondsSinceNinjaStarted();
  if (!age || *age <= budgetSeconds)
    return std::nullopt;
  return formatv("not run: the run's time budget ({0}) was spent ({1} in); the next "
                 "`ninja tune` runs it",
                 formatDuration(budgetSeconds), formatDuration(*age))
      .str();
}

Error noteSkipped(StringRef recordPath) {
  if (std::error_code ec = sys::fs::create_directories(sys::path::parent_path(kSkippedLedger)))
    return makeError(Twine(kSkippedLedger) + ": cannot create its folder: " + ec.message());
  // One short line per append (O_APPEND): concurrent steps do not interleave.
  std::error_code ec;
  raw_fd_ostream ledger(kSkippedLedger, ec, sys::fs::OF_Append);
  if (ec)
    return makeError(Twine(kSkippedLedger) + ": cannot open: " + ec.message());
  ledger << recordPath << "\n";
  ledger.flush();
  return Error::success();
}

std::optional<double> parseDuration(StringRef text) {
  text = text.trim();
  if (text.empty())
    return std::nullopt;
  double plain = 0;
  if (!text.getAsDouble(plain))
    return plain >= 0 ? std::optional<double>(plain) : std::nullopt;
  double total = 0;
  while (!text.empty()) {
    size_t digits = text.find_first_not_of("0123456789.");
    if (digits == 0 || digits == StringRef::npos)
      return std::nullopt;
    double value = 0;
    if (text.take_front(digits).getAsDouble(value))
      return std::nullopt;
    char unit = text[digits];
    double scale = unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : 0;
    if (scale == 0)
      return std::nullopt;
    total += value * scale;
    text = text.drop_front(digits + 1);
  }
  return total;
}

} // namespace retune
