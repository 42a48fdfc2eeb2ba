//===- History.cpp - Earlier summaries of a build directory ---------------===//
#include "stages/report/History.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>

using namespace llvm;

namespace retune::report {

Expected<HistoryRun> historyRunFromJson(const json::Value &summary) {
  const json::Object *object = summary.getAsObject();
  const json::Object *model = object ? object->getObject("model") : nullptr;
  std::optional<double> startedAt =
      object ? object->getNumber("started_at") : std::nullopt;
  if (!model || !startedAt)
    return makeError("a summary needs \"model\" and \"started_at\"");
  HistoryRun run;
  run.startedAt = *startedAt;
  run.baseline = model->getNumber("baseline_s").value_or(0);
  run.tuned = model->getNumber("tuned_s").value_or(0);
  run.speedup = model->getNumber("speedup").value_or(0);
  if (const json::Array *kept = model->getArray("winners_kept"))
    run.winnersKept = kept->size();
  if (const json::Array *dispatches = object->getArray("dispatches"))
    for (const json::Value &d : *dispatches) {
      const json::Object *entry = d.getAsObject();
      if (!entry)
        continue;
      run.dispatches.push_back(
          {entry->getString("id").value_or("").str(),
           entry->getString("name").value_or("").str(),
           entry->getNumber("speedup").value_or(1)});
    }
  return run;
}

/// The kept summaries in `dir` as (path, started_at from the name).
static std::vector<std::pair<std::string, double>> listHistory(StringRef dir) {
  std::vector<std::pair<std::string, double>> files;
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    double startedAt = 0;
    // Names are "<started_at>.json"; anything else (a temp file of a
    // concurrent write) is not ours to list.
    if (!name.consume_back(".json") || name.getAsDouble(startedAt))
      continue;
    files.emplace_back(it->path(), startedAt);
  }
  llvm::sort(files, [](const auto &a, const auto &b) {
    return a.second < b.second;
  });
  return files;
}

Error keepInHistory(StringRef dir, const json::Value &summary, unsigned keep) {
  const json::Object *object = summary.getAsObject();
  double startedAt =
      object ? object->getNumber("started_at").value_or(0) : 0;
  if (startedAt <= 0)
    return Error::success();
  std::string path = formatv("{0}/{1:f3}.json", dir, startedAt).str();
  if (Error err = writeJsonFile(path, summary))
    return err;
  std::vector<std::pair<std::string, double>> files = listHistory(dir);
  for (size_t i = 0; i + keep < files.size(); ++i)
    sys::fs::remove(files[i].first);
  return Error::success();
}

/// A kept summary that cannot be read is left out, not fatal.
static void warnSkipped(const Twine &why) {
  WithColor::warning(errs(), "retune-report")
      << "a kept summary is left out of the run-to-run view: " << why << "\n";
}

std::vector<HistoryRun> loadHistory(StringRef dir) {
  std::vector<HistoryRun> runs;
  for (const auto &file : listHistory(dir)) {
    Expected<json::Value> value = readJsonFile(file.first, schema::kSummary);
    if (!value) {
      warnSkipped(toString(value.takeError()));
      continue;
    }
    Expected<HistoryRun> run = historyRunFromJson(*value);
    if (!run) {
      warnSkipped(file.first + ": " + toString(run.takeError()));
      continue;
    }
    runs.push_back(std::move(*run));
  }
  return runs;
}

} // namespace retune::report
