//===- IreeRankMain.cpp - retune-iree-rank: measurements -> results -------===//
//
// Relates each candidate's measurement to the baseline of the device it ran
// on (candidate n on device n mod D), measured before and after the
// candidates, and writes results/<id>/<n>.json for retune-select. A device
// whose baseline failed falls back to every device's baseline.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/IreeRun.h"
#include "stages/tools/iree/ToolOptions.h"
#include "stages/support/FileUtil.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;
using namespace retune::iree;

static cl::opt<std::string> candidatesPath("candidates", cl::Required,
                                           cl::desc("candidates/<id>/index.json"),
                                           cl::cat(tools::category()));
static cl::opt<std::string> measureDir("measure-dir", cl::Required,
                                       cl::desc("measure/<id> directory"),
                                       cl::cat(tools::category()));
static cl::opt<std::string> outputDir("output-dir", cl::Required,
                                      cl::desc("results/<id> directory"),
                                      cl::cat(tools::category()));
static cl::list<std::string> devices("devices", cl::CommaSeparated,
                                     cl::OneOrMore,
                                     cl::desc("device URIs, in pool order"),
                                     cl::cat(tools::category()));

namespace {

struct DeviceBaseline {
  std::vector<double> before, after;
  bool complete() const { return !before.empty() && !after.empty(); }
};

/// Samples of a baseline measurement; empty when it failed or is missing.
Expected<std::vector<double>> baselineSamples(size_t device, StringRef when) {
  Expected<BenchRecord> record = tools::readBenchRecord(
      formatv("{0}/baseline.{1}.{2}.json", measureDir, when, device).str());
  if (!record)
    return record.takeError();
  if (record->status != Status::Ok)
    return std::vector<double>();
  return record->samples;
}

BenchRecord rank(const BenchRecord &measured, size_t k,
                 ArrayRef<DeviceBaseline> baselines) {
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
    std::vector<double> &all = perDevice[devices[i]];
    all = b.before;
    all.insert(all.end(), b.after.begin(), b.after.end());
  }
  std::vector<double> fallback = baselineFor(perDevice, devices[k]);
  if (fallback.empty() && outcome.status == Status::Ok) {
    outcome.status = Status::BenchError;
    outcome.message = "the baseline failed on every device; see " +
                      measureDir + "/baseline.*.json";
  }
  BenchRecord record = makeBenchRecord(outcome, fallback, {});
  if (record.status == Status::Ok)
    record.message = "baseline of " + devices[k] +
                     " incomplete; ranked against all devices' baselines";
  return record;
}

Error run() {
  Expected<CandidateIndex> index = readRecord<CandidateIndex>(
      candidatesPath, schema::kCandidates, candidateIndexFromJson);
  if (!index)
    return index.takeError();
  std::vector<DeviceBaseline> baselines(devices.size());
  for (auto [k, b] : enumerate(baselines)) {
    Expected<std::vector<double>> before = baselineSamples(k, "before");
    if (!before)
      return before.takeError();
    Expected<std::vector<double>> after = baselineSamples(k, "after");
    if (!after)
      return after.takeError();
    b = {std::move(*before), std::move(*after)};
  }
  for (const CandidateEntry &c : index->candidates) {
    Expected<BenchRecord> measured = tools::readBenchRecord(
        formatv("{0}/{1}.json", measureDir, c.index).str());
    if (!measured)
      return measured.takeError();
    size_t k = c.index % devices.size();
    BenchRecord record = rank(*measured, k, baselines);
    record.message = (record.message.empty() ? "" : record.message + "; ") +
                     "device " + devices[k];
    if (Error err = writeJsonFile(formatv("{0}/{1}.json", outputDir, c.index).str(),
                                  toJson(record)))
      return err;
  }
  return Error::success();
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-rank: rank each candidate's measurement by its ratio to "
      "the same device's baseline (before and after the candidates) and "
      "write results/<id>/<n>.json.\n");
  return finishTool("retune-iree-rank", run());
}
