//===- ModelProfile.cpp - Where a whole model's time goes, per dispatch ---===//
#include "stages/backends/iree/ModelProfile.h"

#include "stages/backends/iree/IreeTools.h"
#include "stages/core/Statistics.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"

#include <numeric>

using namespace llvm;

namespace retune::iree {

StringRef profilingModeFor(StringRef device) {
  return isHostDevice(device) ? "host-execution" : "dispatch-events";
}

namespace {
/// One function's calls, microseconds (at least one).
DispatchTime fromCalls(StringRef function, std::vector<double> callsUs) {
  double sum = std::accumulate(callsUs.begin(), callsUs.end(), 0.0);
  return {function.str(), callsUs.size(), sum / callsUs.size(),
          *llvm::min_element(callsUs), stats::median(callsUs)};
}
} // namespace

Expected<std::vector<DispatchTime>> parseDispatchProfile(StringRef jsonl,
                                                         StringRef where) {
  std::vector<DispatchTime> times;
  // Calls per function, in the order functions first appear.
  std::vector<std::pair<std::string, std::vector<double>>> calls;
  StringMap<size_t> callsOf;
  unsigned lineNumber = 0;
  for (StringRef rest = jsonl; !rest.empty();) {
    auto [line, next] = rest.split('\n');
    rest = next;
    ++lineNumber;
    // Only the JSON rows: the log also holds what the tool says on stderr.
    if (!line.trim().starts_with("{"))
      continue;
    Expected<json::Value> value = json::parse(line);
    if (!value)
      return makeError(where + ":" + Twine(lineNumber) +
                       ": not JSON: " + toString(value.takeError()));
    const json::Object *row = value->getAsObject();
    std::optional<StringRef> type = row ? row->getString("type") : std::nullopt;
    std::optional<StringRef> key = row ? row->getString("key") : std::nullopt;
    // `dispatch_event` (device timestamps) or `host_dispatch_event`.
    if (type && type->ends_with("dispatch_event")) {
      std::optional<double> durationNs = row->getNumber("duration_ns");
      if (!key || !durationNs || !(*durationNs >= 0))
        return makeError(where + ":" + Twine(lineNumber) +
                         ": a dispatch event without key or duration_ns");
      if (!row->getBoolean("valid").value_or(true))
        continue;
      auto [at, added] = callsOf.try_emplace(*key, calls.size());
      if (added)
        calls.push_back({key->str(), {}});
      calls[at->second].second.push_back(*durationNs / 1000.0);
      continue;
    }
    // `dispatch_group` (device timestamps) or `host_dispatch_group`.
    if (!type || !type->ends_with("dispatch_group"))
      continue;
    std::optional<int64_t> count = row->getInteger("count");
    std::optional<double> averageNs = row->getNumber("avg_ns");
    if (!key || !count || *count < 0 || !averageNs || !(*averageNs >= 0))
      return makeError(where + ":" + Twine(lineNumber) +
                       ": a dispatch group without key, count or avg_ns");
    double minNs = row->getNumber("min_ns").value_or(*averageNs);
    times.push_back({key->str(), static_cast<uint64_t>(*count),
                     *averageNs / 1000.0, minNs / 1000.0, *averageNs / 1000.0});
  }
  StringMap<size_t> groups;
  for (auto [i, t] : enumerate(times))
    groups[t.function] = i;
  for (auto &[function, us] : calls) {
    DispatchTime fromEvents = fromCalls(function, std::move(us));
    if (auto group = groups.find(function); group != groups.end())
      times[group->second].medianUs = fromEvents.medianUs;
    else
      times.push_back(std::move(fromEvents));
  }
  llvm::stable_sort(times, [](const DispatchTime &a, const DispatchTime &b) {
    return a.averageUs * a.calls > b.averageUs * b.calls;
  });
  return times;
}

} // namespace retune::iree
