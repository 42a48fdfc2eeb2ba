//===- BenchStage.cpp - A compiled module -> its measurement --------------===//
//
// Runs iree-benchmark-module on one device and writes the samples (seconds)
// as a bench record without a baseline: retune-iree-rank relates it to the
// same device's baseline. With a reuse directory, a module whose hash was
// already measured on this device reuses that measurement (identical vmfbs
// of different candidates are benchmarked once). With the baseline's
// compile record, a module identical to the baseline's is `not_applied` and
// not measured. Failures are records.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/BenchStage.h"

#include "stages/core/Statistics.h"
#include "stages/support/DeviceLock.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace retune::iree {
namespace {

/// Where the measurement of `compiled`'s module on the device is kept.
std::string reusePath(const BenchOptions &options,
                      const CompileRecord &compiled) {
  FieldHasher key;
  key.add("module", compiled.artifactHash).add("device", options.device);
  return options.reuseDir + "/" + key.hex(16) + ".json";
}

/// The median of the device's earlier baseline measurement, if there is a
/// good one.
std::optional<double> baselineMedian(const BenchOptions &options) {
  if (options.baselineMeasurePath.empty())
    return std::nullopt;
  Expected<BenchRecord> baseline = readBenchRecord(options.baselineMeasurePath);
  if (!baseline) {
    consumeError(baseline.takeError());
    return std::nullopt;
  }
  if (baseline->status != Status::Ok || !(baseline->median > 0))
    return std::nullopt;
  return baseline->median;
}

/// With a baseline to compare with, the first repetition runs alone: a
/// candidate far slower than the baseline stops there (status ok, one
/// sample, the message says why); any other gets the rest of its
/// repetitions, all samples kept.
BenchRecord measure(const BenchOptions &options, const IreeTools &ireeTools,
                    const CompileRecord &compiled) {
  BenchRequest request;
  request.vmfbPath = compiled.artifact;
  request.device = options.device;
  request.repetitions = options.repetitions;
  request.jsonPath = options.outputPath + ".gbench.json";
  request.logPath = options.outputPath + ".log";
  request.timeoutSeconds = options.timeoutSeconds;
  std::optional<double> baseline = baselineMedian(options);
  if (!baseline || options.repetitions < 2)
    return measuredRecord(runBenchmark(ireeTools, request));
  request.repetitions = 1;
  BenchRecord first = measuredRecord(runBenchmark(ireeTools, request));
  if (first.status != Status::Ok)
    return first;
  double ratio = first.median / *baseline;
  if (ratio > kHopelessRatio) {
    first.message = formatv("stopped after its first repetition: {0:f1}x the "
                            "baseline's median; a candidate over {1:f1}x "
                            "cannot win",
                            ratio, kHopelessRatio)
                        .str();
    return first;
  }
  request.repetitions = options.repetitions - 1;
  BenchRecord rest = measuredRecord(runBenchmark(ireeTools, request));
  if (rest.status != Status::Ok)
    return rest;
  rest.samples.insert(rest.samples.begin(), first.samples.begin(),
                      first.samples.end());
  rest.median = stats::median(rest.samples);
  rest.seconds += first.seconds;
  rest.startedAt = first.startedAt;
  return rest;
}

} // namespace

BenchRecord measuredRecord(const BenchOutcome &outcome) {
  BenchRecord record;
  record.status = outcome.status;
  record.message = outcome.message;
  record.seconds = outcome.seconds;
  record.startedAt = outcome.startedAt;
  for (double us : outcome.samplesUs)
    record.samples.push_back(us * 1e-6);
  record.median = stats::median(record.samples);
  return record;
}

Error runBenchStage(const BenchOptions &options, ProcessRunner &runner) {
  Expected<CompileRecord> compiled =
      readCompileRecord(options.compileRecordPath);
  if (!compiled)
    return compiled.takeError();
  if (compiled->status != Status::Ok) {
    BenchRecord failed;
    failed.status = compiled->status;
    failed.message = "compile: " + compiled->message;
    return writeJsonFile(options.outputPath, toJson(failed));
  }
  if (!options.baselineRecordPath.empty()) {
    Expected<CompileRecord> baseline =
        readCompileRecord(options.baselineRecordPath);
    if (!baseline)
      return baseline.takeError();
    // The spec changed nothing: the classic silent failure of a matcher
    // that does not hit (iree#22134). Never measured, never a winner.
    if (baseline->status == Status::Ok &&
        baseline->artifactHash == compiled->artifactHash) {
      BenchRecord same;
      same.status = Status::NotApplied;
      same.message = "the spec did not apply: the module is byte-identical "
                     "to the baseline's (" +
                     compiled->artifactHash.substr(0, 16) + ")";
      same.startedAt = unixSeconds();
      return writeJsonFile(options.outputPath, toJson(same));
    }
  }
  if (!options.reuseDir.empty() &&
      sys::fs::exists(reusePath(options, *compiled))) {
    Expected<BenchRecord> earlier =
        readBenchRecord(reusePath(options, *compiled));
    if (earlier) {
      earlier->message = "identical module (" +
                         compiled->artifactHash.substr(0, 16) +
                         ") measured before on " + options.device + "; reused";
      earlier->startedAt = unixSeconds();
      earlier->seconds = 0;
      return writeJsonFile(options.outputPath, toJson(*earlier));
    }
    consumeError(earlier.takeError()); // A damaged entry: measure again.
  }
  Expected<IreeTools> ireeTools =
      toolsFrom(options.iree, sys::path::parent_path(options.outputPath),
                runner);
  if (!ireeTools)
    return ireeTools.takeError();
  // One measurement per device on this machine, whichever run asks (two
  // build directories, a nightly job beside a developer).
  Expected<DeviceLock> lock =
      DeviceLock::acquire(deviceLockName(options.device));
  if (!lock)
    return lock.takeError();
  BenchRecord record = measure(options, *ireeTools, *compiled);
  if (!options.reuseDir.empty() && record.status == Status::Ok)
    if (Error err =
            writeJsonFile(reusePath(options, *compiled), toJson(record)))
      return err;
  return writeJsonFile(options.outputPath, toJson(record));
}

} // namespace retune::iree
