//===- BenchStage.cpp - Check and time a candidate against the baseline --===//
//
// Loads the candidate's and the baseline's shared objects, checks the
// candidate's results against the baseline's on seeded random inputs, and
// times both interleaved. The measuring runs in a child process (this
// binary with --child) under a timeout, so a kernel that crashes or hangs
// becomes a record, not a failed build.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/BenchStage.h"

#include "cache/CacheKeys.h"
#include "cache/CachedStep.h"
#include "stages/backends/mlircpu/Measure.h"
#include "stages/core/Subprocess.h"
#include "stages/support/DeviceLock.h"
#include "stages/support/FaultInjection.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Text.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <thread>

using namespace llvm;
using namespace retune;

namespace retune::mlircpu {

/// The options of this process's run (one per process).
static BenchOptions options;

/// The device of the mlir-cpu backend: this machine's CPU.
static constexpr StringLiteral kDevice = "cpu";
/// A measuring process that had less of a CPU than this was disturbed;
/// RETUNE_MIN_CPU_SHARE overrides it (0: never disturbed), e.g. for tests
/// of the cache on a machine that is busy anyway.
static double minCpuShare() {
  double share = 0.9;
  if (const char *env = std::getenv("RETUNE_MIN_CPU_SHARE"))
    if (StringRef(env).getAsDouble(share))
      share = 0.9;
  return share;
}

static Expected<FuncSignature> pickFunction(const CompileRecord &record,
                                            StringRef path) {
  if (!options.functionName.empty()) {
    for (const FuncSignature &f : record.functions)
      if (f.name == options.functionName)
        return f;
    return makeError(path + ": no function @" + options.functionName +
                     "; set [model] entry in tune.toml to one of the "
                     "model's public functions");
  }
  if (record.functions.size() != 1)
    return makeError(path + ": " + Twine(record.functions.size()) +
                     " public functions; name the one to time with "
                     "[model] entry in tune.toml");
  return record.functions.front();
}

static Error runChild() {
  double startedAt = unixSeconds();
  auto start = std::chrono::steady_clock::now();
  Expected<CompileRecord> baseline = readCompileRecord(options.baselinePath);
  if (!baseline)
    return baseline.takeError();
  Expected<CompileRecord> candidate = readCompileRecord(options.candidatePath);
  if (!candidate)
    return candidate.takeError();
  Expected<FuncSignature> signature =
      pickFunction(*baseline, options.baselinePath);
  if (!signature)
    return signature.takeError();
  auto baseKernel = bench::Kernel::load(baseline->artifact, *signature);
  if (!baseKernel)
    return baseKernel.takeError();
  auto candKernel = bench::Kernel::load(candidate->artifact, *signature);
  if (!candKernel)
    return candKernel.takeError();
  // A measurement that never ends, where a test asks for one
  // (RETUNE_INJECT_FAULT="bench-hang:<part of the result's path>"): a bench
  // step to time out or to cancel while it measures, on any machine.
  if (injectedFault(options.outputPath) == "bench-hang")
    for (;;)
      std::this_thread::sleep_for(std::chrono::seconds(1));
  bench::MeasureOptions measure;
  measure.warmup = options.warmup;
  measure.repetitions = std::max(1u, options.repetitions);
  measure.minSampleSeconds = options.minSample;
  measure.seed = options.seed;
  BenchRecord record =
      bench::compareKernels(**baseKernel, **candKernel, measure);
  record.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  record.startedAt = startedAt;
  // Keyed from the start: a run killed right after this write finds the
  // measurement done.
  record.key = options.childKey;
  record.slurm = slurmPlacementFromEnv();
  return writeJsonFile(options.outputPath, toJson(record));
}

/// A compiled object that is not what its record says (truncated, replaced)
/// is damaged state: its compile must run again.
static Error checkArtifact(StringRef recordPath, const CompileRecord &record) {
  if (record.status != Status::Ok)
    return Error::success();
  Expected<std::string> bytes = readFile(record.artifact);
  if (bytes && blake3Hex(*bytes) == record.artifactHash)
    return Error::success();
  if (!bytes)
    consumeError(bytes.takeError());
  return damagedRecord(recordPath, record.artifact +
                                       " is missing or does not match "
                                       "'artifact_hash'");
}

/// A record for a candidate that never reached the measurement.
static Error writeFailure(Status status, const Twine &message,
                          double seconds = 0,
                          double startedAt = unixSeconds()) {
  BenchRecord record;
  record.status = status;
  record.message = message.str();
  record.seconds = seconds;
  record.startedAt = startedAt;
  // Keyed from the start: a run killed right after this write finds the
  // measurement done.
  record.key = options.childKey;
  record.slurm = slurmPlacementFromEnv();
  return writeJsonFile(options.outputPath, toJson(record));
}

/// Timings belong to this device and these exact binaries and settings.
static std::string benchKey(const char *argv0, const CompileRecord &baseline,
                            const CompileRecord &candidate) {
  return hostKey("bench", argv0)
      .add("candidate", candidate.artifactHash)
      .add("baseline", baseline.artifactHash)
      .add("function", options.functionName)
      .add("warmup", options.warmup)
      .add("repetitions", options.repetitions)
      .add("min-sample", formatNumber(options.minSample))
      .add("seed", options.seed)
      .hex(16);
}

/// Replays a cached measurement into this build's record.
static Error restore(const CacheEntry &entry, StringRef key) {
  Expected<BenchRecord> record =
      replayedRecord<BenchRecord>(entry, key, benchRecordFromJson);
  if (!record)
    return record.takeError();
  // The job replaying it, not the one that measured it.
  record->slurm = slurmPlacementFromEnv();
  return writeJsonFile(options.outputPath, toJson(*record));
}

/// Outcomes that repeat: crashes and timeouts of a measurement may not.
static bool isFinal(const BenchRecord &record) {
  return record.status == Status::Ok || record.status == Status::WrongResult;
}

/// Whether this build already holds exactly this measurement (a run killed
/// after the record was written, before Ninja logged it).
static bool alreadyDone(StringRef key) {
  if (!sys::fs::exists(options.outputPath))
    return false;
  Expected<BenchRecord> record = readRecord<BenchRecord>(
      options.outputPath, schema::kBench, benchRecordFromJson);
  if (!record) {
    consumeError(record.takeError());
    return false;
  }
  return record->key == key && isFinal(*record);
}

/// What the cache keeps: checked outcomes (ok, wrong result) measured
/// undisturbed.
static std::optional<CacheEntry> outcome() {
  Expected<BenchRecord> record = readRecord<BenchRecord>(
      options.outputPath, schema::kBench, benchRecordFromJson);
  if (!record) {
    consumeError(record.takeError());
    return std::nullopt;
  }
  // A disturbed measurement serves this run only: cached, it would spoil
  // every later one.
  if (!isFinal(*record) || record->disturbed)
    return std::nullopt;
  return CacheEntry{{"record.json", formatv("{0}", toJson(*record)).str()}};
}

static Error measureInChild(const char *argv0, StringRef key);

static Error runParent(const char *argv0) {
  Expected<CompileRecord> baseline = readCompileRecord(options.baselinePath);
  if (!baseline)
    return baseline.takeError();
  Expected<CompileRecord> candidate = readCompileRecord(options.candidatePath);
  if (!candidate)
    return candidate.takeError();
  if (candidate->status != Status::Ok)
    return writeFailure(candidate->status, "compile: " + candidate->message);
  for (auto [path, record] : {std::pair{options.candidatePath, &*candidate},
                              {options.baselinePath, &*baseline}})
    if (Error err = checkArtifact(path, *record))
      return err;
  if (baseline->status == Status::Skipped)
    return writeFailure(Status::Skipped, "the baseline: " + baseline->message);
  if (baseline->status != Status::Ok)
    return writeFailure(Status::BenchError,
                        "the baseline did not compile: " + baseline->message);
  // The compile is deterministic: the same bytes as the baseline's mean the
  // spec changed nothing here (its matcher did not hit this dispatch, or it
  // asked for the default's own config). Nothing to measure.
  if (!options.measureIdentical &&
      candidate->artifactHash == baseline->artifactHash)
    return writeFailure(Status::NotApplied,
                        "the compiled code is byte-identical to the "
                        "baseline's: the spec does not change this dispatch");
  // An injected fault must really happen: it bypasses the cache.
  bool faulty = !injectedFault(options.outputPath).empty();
  ContentCache cache(faulty ? "" : ContentCache::rootFor(options.cacheDir));
  CachedStep step;
  step.key = benchKey(argv0, *baseline, *candidate);
  // One measurement at a time on this machine, whichever run asks.
  step.deviceLock = kDevice;
  step.alreadyDone = [](StringRef key) {
    if (!alreadyDone(key))
      return false;
    keepNewerThanInputs(options.outputPath,
                        {options.baselinePath, options.candidatePath});
    return true;
  };
  step.restore = restore;
  step.run = [argv0](StringRef key) { return measureInChild(argv0, key); };
  step.outcome = outcome;
  return runCachedStep(cache, step);
}

/// Adds to the options.child's record how much of the CPU it had: another
/// process running beside a measurement takes CPU time from it.
static Error recordLoad(const ChildOutcome &outcome, StringRef key) {
  Expected<BenchRecord> record = readRecord<BenchRecord>(
      options.outputPath, schema::kBench, benchRecordFromJson);
  if (!record)
    return record.takeError();
  record->key = key.str();
  record->cpuShare =
      outcome.seconds > 0 ? outcome.cpuSeconds / outcome.seconds : 0;
  record->loadAverage = loadAverage();
  record->disturbed =
      outcome.cpuSeconds > 0 && record->cpuShare < minCpuShare();
  return writeJsonFile(options.outputPath, toJson(*record));
}

static Error measureInChild(const char *argv0, StringRef key) {
  sys::fs::remove(options.outputPath);
  std::vector<std::string> args = {
      "--child",
      "--key=" + key.str(),
      "--baseline=" + options.baselinePath,
      "--candidate=" + options.candidatePath,
      "--output=" + options.outputPath,
      "--warmup=" + std::to_string(options.warmup),
      "--repetitions=" + std::to_string(options.repetitions),
      "--min-sample-s=" + std::to_string(options.minSample),
      "--seed=" + std::to_string(options.seed)};
  if (!options.functionName.empty())
    args.push_back("--function=" + options.functionName);
  std::string logPath = options.outputPath + ".log";
  sys::fs::remove(logPath);
  ChildOutcome outcome =
      runLimited(currentExecutable(argv0), args, options.timeoutSeconds,
                 /*memoryMB=*/0, logPath);
  if (outcome.status == Status::Ok && sys::fs::exists(options.outputPath)) {
    sys::fs::remove(logPath);
    return recordLoad(outcome, key);
  }
  Status status = outcome.status;
  if (status == Status::Ok || status == Status::CompileError)
    status = Status::BenchError;
  return writeFailure(status, outcome.message, outcome.seconds,
                      outcome.startedAt);
}

Error runBenchStage(const BenchOptions &stageOptions, const char *argv0) {
  options = stageOptions;
  if (options.child)
    return runChild();
  return runParent(argv0);
}

} // namespace retune::mlircpu
