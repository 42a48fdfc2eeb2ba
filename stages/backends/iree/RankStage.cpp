//===- RankStage.cpp - Measurements -> results against baselines ----------===//
//
// Relates each candidate's measurement to the baseline of the device it ran
// on (candidate n on device n mod D), measured before and after the
// candidates, and writes results/<id>/<n>.json for retune-select. A device
// whose baseline failed falls back to every device's baseline.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/RankStage.h"

#include "stages/backends/iree/IreeRun.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <cassert>

using namespace llvm;

namespace retune::iree {
namespace {

/// Samples of a baseline measurement; empty when it failed.
Expected<std::vector<double>> baselineSamples(const RankOptions &options,
                                              size_t device, StringRef when) {
  Expected<BenchRecord> record = readBenchRecord(
      formatv("{0}/baseline.{1}.{2}.json", options.measureDir, when, device)
          .str());
  if (!record)
    return record.takeError();
  if (record->status != Status::Ok)
    return std::vector<double>();
  return record->samples;
}

BenchRecord rank(const BenchRecord &measured, size_t k,
                 ArrayRef<DeviceBaseline> baselines,
                 const RankOptions &options) {
  BenchOutcome outcome;
  outcome.status = measured.status;
  outcome.message = measured.message;
  outcome.samplesUs = measured.samples; // seconds: the ratio is unit-free
  outcome.seconds = measured.seconds;
  outcome.startedAt = measured.startedAt;
  if (baselines[k].complete())
    return makeBenchRecord(outcome, baselines[k].before, baselines[k].after);
  StringMap<std::vector<double>> perDevice;
  for (auto [i, b] : enumerate(baselines)) {
    std::vector<double> &all = perDevice[options.devices[i]];
    all = b.before;
    all.insert(all.end(), b.after.begin(), b.after.end());
  }
  std::vector<double> fallback = baselineFor(perDevice, options.devices[k]);
  if (fallback.empty() && outcome.status == Status::Ok) {
    outcome.status = Status::BenchError;
    outcome.message = "the baseline failed on every device; see " +
                      options.measureDir + "/baseline.*.json";
  }
  BenchRecord record = makeBenchRecord(outcome, fallback, {});
  if (record.status == Status::Ok)
    record.message = "baseline of " + options.devices[k] +
                     " incomplete; ranked against all devices' baselines";
  return record;
}

} // namespace

BenchRecord rankCandidate(const BenchRecord &measured, size_t index,
                          ArrayRef<DeviceBaseline> baselines,
                          const RankOptions &options) {
  assert(!options.devices.empty() &&
         baselines.size() == options.devices.size() &&
         "one baseline per device");
  size_t k = index % options.devices.size();
  BenchRecord record = rank(measured, k, baselines, options);
  record.message = (record.message.empty() ? "" : record.message + "; ") +
                   "device " + options.devices[k];
  return record;
}

Error runRankStage(const RankOptions &options) {
  if (options.devices.empty())
    return makeError("no device to rank against (--devices)");
  Expected<CandidateIndex> index = readRecord<CandidateIndex>(
      options.candidatesPath, retune::schema::kCandidates,
      candidateIndexFromJson);
  if (!index)
    return index.takeError();
  std::vector<DeviceBaseline> baselines(options.devices.size());
  for (auto [k, b] : enumerate(baselines)) {
    Expected<std::vector<double>> before =
        baselineSamples(options, k, "before");
    if (!before)
      return before.takeError();
    Expected<std::vector<double>> after = baselineSamples(options, k, "after");
    if (!after)
      return after.takeError();
    b = {std::move(*before), std::move(*after)};
  }
  for (const CandidateEntry &c : index->candidates) {
    Expected<BenchRecord> measured = readBenchRecord(
        formatv("{0}/{1}.json", options.measureDir, c.index).str());
    if (!measured)
      return measured.takeError();
    BenchRecord record = rankCandidate(*measured, c.index, baselines, options);
    if (Error err = writeJsonFile(
            formatv("{0}/{1}.json", options.outputDir, c.index).str(),
            toJson(record)))
      return err;
  }
  return Error::success();
}

} // namespace retune::iree
