//===- BenchStage.cpp - Check and time a candidate against the baseline --===//
//
// Loads the candidate's and the baseline's shared objects, checks the
// candidate's results against the baseline's on seeded random inputs, and
// times both interleaved. The measuring runs in a child process
// (retune-bench-worker, BenchWorker.h) under a timeout, so a kernel that
// crashes or hangs becomes a record, not a failed build.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/BenchStage.h"

#include "cache/CacheKeys.h"
#include "cache/CachedStep.h"
#include "stages/core/Records.h"
#include "stages/core/Subprocess.h"
#include "stages/support/DeviceLock.h"
#include "stages/support/FaultInjection.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Text.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace retune;

namespace retune::mlircpu {

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
static Error writeFailure(const BenchOptions &options, Status status,
                          const Twine &message, double seconds = 0,
                          double startedAt = unixSeconds()) {
  BenchRecord record;
  record.status = status;
  record.message = message.str();
  record.seconds = seconds;
  record.startedAt = startedAt;
  record.slurm = slurmPlacementFromEnv();
  return writeJsonFile(options.outputPath, toJson(record));
}

/// The worker beside this tool: its bytes are part of every bench's key.
static std::string workerPath(const char *argv0) {
  return siblingTool(argv0, "retune-bench-worker");
}

/// Timings belong to this device and these exact binaries and settings.
static std::string benchKey(const BenchOptions &options, const char *argv0,
                            const CompileRecord &baseline,
                            const CompileRecord &candidate) {
  return hostKey("bench", argv0)
      .add("worker", toolIdentity(workerPath(argv0).c_str()))
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
static Error restore(const BenchOptions &options, const CacheEntry &entry,
                     StringRef key) {
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
static bool alreadyDone(const BenchOptions &options, StringRef key) {
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
static std::optional<CacheEntry> outcome(const BenchOptions &options) {
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

static Error measureInChild(const BenchOptions &options, const char *argv0,
                            ProcessRunner &processes, StringRef key);

Error runBenchStage(const BenchOptions &options, const char *argv0,
                    ProcessRunner &processes) {
  Expected<CompileRecord> baseline = readCompileRecord(options.baselinePath);
  if (!baseline)
    return baseline.takeError();
  Expected<CompileRecord> candidate = readCompileRecord(options.candidatePath);
  if (!candidate)
    return candidate.takeError();
  if (candidate->status != Status::Ok)
    return writeFailure(options, candidate->status,
                        "compile: " + candidate->message);
  for (auto [path, record] : {std::pair{options.candidatePath, &*candidate},
                              {options.baselinePath, &*baseline}})
    if (Error err = checkArtifact(path, *record))
      return err;
  if (baseline->status == Status::Skipped)
    return writeFailure(options, Status::Skipped,
                        "the baseline: " + baseline->message);
  if (baseline->status != Status::Ok)
    return writeFailure(options, Status::BenchError,
                        "the baseline did not compile: " + baseline->message);
  // The compile is deterministic: the same bytes as the baseline's mean the
  // spec changed nothing here (its matcher did not hit this dispatch, or it
  // asked for the default's own config). Nothing to measure.
  if (!options.measureIdentical &&
      candidate->artifactHash == baseline->artifactHash)
    return writeFailure(options, Status::NotApplied,
                        "the compiled code is byte-identical to the "
                        "baseline's: the spec does not change this dispatch");
  // An injected fault must really happen: it bypasses the cache.
  bool faulty = !injectedFault(options.outputPath).empty();
  ContentCache cache(faulty ? "" : ContentCache::rootFor(options.cacheDir));
  CachedStep step;
  step.key = benchKey(options, argv0, *baseline, *candidate);
  // One measurement at a time on this machine, whichever run asks.
  step.deviceLock = kDevice;
  step.alreadyDone = [&](StringRef key) {
    if (!alreadyDone(options, key))
      return false;
    keepNewerThanInputs(options.outputPath,
                        {options.baselinePath, options.candidatePath});
    return true;
  };
  step.restore = [&](const CacheEntry &entry, StringRef key) {
    return restore(options, entry, key);
  };
  step.run = [&](StringRef key) {
    return measureInChild(options, argv0, processes, key);
  };
  step.outcome = [&] { return outcome(options); };
  return runCachedStep(cache, step);
}

/// Adds to the worker's record how much of the CPU it had: another
/// process running beside a measurement takes CPU time from it.
static Error recordLoad(const BenchOptions &options,
                        const ChildOutcome &outcome, StringRef key) {
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

static Error measureInChild(const BenchOptions &options, const char *argv0,
                            ProcessRunner &processes, StringRef key) {
  sys::fs::remove(options.outputPath);
  std::vector<std::string> args = {
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
      processes.run(workerPath(argv0), args, options.timeoutSeconds,
                    /*memoryMB=*/0, logPath);
  if (outcome.status == Status::Ok && sys::fs::exists(options.outputPath)) {
    sys::fs::remove(logPath);
    return recordLoad(options, outcome, key);
  }
  Status status = outcome.status;
  if (status == Status::Ok || status == Status::CompileError)
    status = Status::BenchError;
  return writeFailure(options, status, outcome.message, outcome.seconds,
                      outcome.startedAt);
}

} // namespace retune::mlircpu
