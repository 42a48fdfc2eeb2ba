//===- ModelProfile.cpp - Where a whole model's time goes, per dispatch ---===//
#include "stages/backends/iree/ModelProfile.h"

#include "stages/backends/iree/IreeTools.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace retune::iree {

StringRef profilingModeFor(StringRef device) {
  return isHostDevice(device) ? "host-execution" : "dispatch-events";
}

Expected<std::vector<DispatchTime>> parseDispatchProfile(StringRef jsonl,
                                                         StringRef where) {
  std::vector<DispatchTime> times;
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
    // `dispatch_group` (device timestamps) or `host_dispatch_group`.
    if (!type || !type->ends_with("dispatch_group"))
      continue;
    std::optional<StringRef> key = row->getString("key");
    std::optional<int64_t> count = row->getInteger("count");
    std::optional<double> averageNs = row->getNumber("avg_ns");
    if (!key || !count || *count < 0 || !averageNs || !(*averageNs >= 0))
      return makeError(where + ":" + Twine(lineNumber) +
                       ": a dispatch group without key, count or avg_ns");
    double minNs = row->getNumber("min_ns").value_or(*averageNs);
    times.push_back({key->str(), static_cast<uint64_t>(*count),
                     *averageNs / 1000.0, minNs / 1000.0});
  }
  llvm::stable_sort(times, [](const DispatchTime &a, const DispatchTime &b) {
    return a.averageUs * a.calls > b.averageUs * b.calls;
  });
  return times;
}

} // namespace retune::iree
