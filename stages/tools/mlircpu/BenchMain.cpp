//===- BenchMain.cpp - retune-bench: time a candidate against the baseline ===//
//
// Loads the candidate's and the baseline's shared objects, checks the
// candidate's results against the baseline's on seeded random inputs, and
// times both interleaved. The measuring runs in a child process (this
// binary with --child) under a timeout, so a kernel that crashes or hangs
// becomes a record, not a failed build.
//
//===----------------------------------------------------------------------===//
#include "cache/CacheKeys.h"
#include "cache/ContentCache.h"
#include "stages/backends/mlircpu/Measure.h"
#include "stages/support/DeviceLock.h"
#include "stages/support/FileUtil.h"
#include "stages/core/Subprocess.h"
#include "stages/support/Text.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"

#include <chrono>

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-bench options");
static cl::opt<std::string> baselinePath("baseline", cl::Required,
                                         cl::desc("compile record of the baseline"),
                                         cl::cat(category));
static cl::opt<std::string> candidatePath("candidate", cl::Required,
                                          cl::desc("compile record of the candidate"),
                                          cl::cat(category));
static cl::opt<std::string> outputPath("output", cl::Required,
                                       cl::desc("bench record to write"),
                                       cl::cat(category));
static cl::opt<std::string>
    functionName("function", cl::desc("function to time (default: the only one)"),
                 cl::cat(category));
static cl::opt<unsigned> warmup("warmup", cl::init(2),
                                cl::desc("untimed calls before sampling"),
                                cl::cat(category));
static cl::opt<unsigned> repetitions("repetitions", cl::init(10),
                                     cl::desc("timed samples per kernel"),
                                     cl::cat(category));
static cl::opt<double> minSample("min-sample-s", cl::init(0.002),
                                 cl::desc("minimum duration of one sample"),
                                 cl::cat(category));
static cl::opt<unsigned> seed("seed", cl::init(1),
                              cl::desc("seed of the random inputs"),
                              cl::cat(category));
static cl::opt<unsigned> timeoutSeconds("timeout", cl::init(300),
                                        cl::desc("seconds before the bench is killed"),
                                        cl::cat(category));
static cl::opt<std::string>
    cacheDir("cache-dir",
             cl::desc("content-addressed cache (default: $RETUNE_CACHE_DIR, "
                      "else ~/.cache/retune; 'off' disables it)"),
             cl::cat(category));
static cl::opt<bool> child("child", cl::Hidden,
                           cl::desc("internal: measure in this process"));
static cl::opt<std::string> childKey("key", cl::Hidden,
                                     cl::desc("internal: the record's key"));

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

static Expected<CompileRecord> readCompileRecord(StringRef path) {
  return readRecord<CompileRecord>(path, schema::kCompile,
                                   compileRecordFromJson);
}

static Expected<FuncSignature> pickFunction(const CompileRecord &record,
                                            StringRef path) {
  if (!functionName.empty()) {
    for (const FuncSignature &f : record.functions)
      if (f.name == functionName)
        return f;
    return makeError(path + ": no function @" + functionName +
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
  Expected<CompileRecord> baseline = readCompileRecord(baselinePath);
  if (!baseline)
    return baseline.takeError();
  Expected<CompileRecord> candidate = readCompileRecord(candidatePath);
  if (!candidate)
    return candidate.takeError();
  Expected<FuncSignature> signature = pickFunction(*baseline, baselinePath);
  if (!signature)
    return signature.takeError();
  auto baseKernel = bench::Kernel::load(baseline->artifact, *signature);
  if (!baseKernel)
    return baseKernel.takeError();
  auto candKernel = bench::Kernel::load(candidate->artifact, *signature);
  if (!candKernel)
    return candKernel.takeError();
  bench::MeasureOptions options;
  options.warmup = warmup;
  options.repetitions = std::max(1u, repetitions.getValue());
  options.minSampleSeconds = minSample;
  options.seed = seed;
  BenchRecord record = bench::compareKernels(**baseKernel, **candKernel, options);
  record.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  record.startedAt = startedAt;
  // Keyed from the start: a run killed right after this write finds the
  // measurement done.
  record.key = childKey;
  record.slurm = slurmPlacementFromEnv();
  return writeJsonFile(outputPath, toJson(record));
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
                          double seconds = 0, double startedAt = unixSeconds()) {
  BenchRecord record;
  record.status = status;
  record.message = message.str();
  record.seconds = seconds;
  record.startedAt = startedAt;
  // Keyed from the start: a run killed right after this write finds the
  // measurement done.
  record.key = childKey;
  record.slurm = slurmPlacementFromEnv();
  return writeJsonFile(outputPath, toJson(record));
}

/// Timings belong to this device and these exact binaries and settings.
static std::string benchKey(const char *argv0, const CompileRecord &baseline,
                            const CompileRecord &candidate) {
  return hostKey("bench", argv0)
      .add("candidate", candidate.artifactHash)
      .add("baseline", baseline.artifactHash)
      .add("function", functionName.getValue())
      .add("warmup", warmup.getValue())
      .add("repetitions", repetitions.getValue())
      .add("min-sample", formatNumber(minSample))
      .add("seed", seed.getValue())
      .hex(16);
}

/// Replays a cached measurement; false when the entry is unusable.
static bool replay(const ContentCache &cache, StringRef key) {
  auto entry = cache.lookup(key);
  if (!entry || !entry->count("record.json"))
    return false;
  Expected<json::Value> value = json::parse(entry->at("record.json"));
  Expected<BenchRecord> record =
      value ? benchRecordFromJson(*value) : Expected<BenchRecord>(value.takeError());
  if (!record) {
    consumeError(record.takeError());
    return false;
  }
  // This build spent (almost) no time on it.
  record->cached = true;
  record->key = key.str();
  record->startedAt = unixSeconds();
  record->seconds = 0;
  // The job replaying it, not the one that measured it.
  record->slurm = slurmPlacementFromEnv();
  if (Error err = writeJsonFile(outputPath, toJson(*record))) {
    consumeError(std::move(err));
    return false;
  }
  return true;
}

/// Outcomes that repeat: crashes and timeouts of a measurement may not.
static bool isFinal(const BenchRecord &record) {
  return record.status == Status::Ok || record.status == Status::WrongResult;
}

/// Whether this build already holds exactly this measurement (a run killed
/// after the record was written, before Ninja logged it).
static bool alreadyDone(StringRef key) {
  if (!sys::fs::exists(outputPath))
    return false;
  Expected<BenchRecord> record =
      readRecord<BenchRecord>(outputPath, schema::kBench, benchRecordFromJson);
  if (!record) {
    consumeError(record.takeError());
    return false;
  }
  return record->key == key && isFinal(*record);
}

/// Remembers checked outcomes (ok, wrong result) measured undisturbed.
static void remember(const ContentCache &cache, StringRef key) {
  Expected<BenchRecord> record =
      readRecord<BenchRecord>(outputPath, schema::kBench, benchRecordFromJson);
  if (!record) {
    consumeError(record.takeError());
    return;
  }
  // A disturbed measurement serves this run only: cached, it would spoil
  // every later one.
  if (!isFinal(*record) || record->disturbed)
    return;
  consumeError(cache.store(key, {{"record.json",
                                  formatv("{0}", toJson(*record)).str()}}));
}

static Error measureInChild(const char *argv0, StringRef key);

static Error runParent(const char *argv0) {
  Expected<CompileRecord> baseline = readCompileRecord(baselinePath);
  if (!baseline)
    return baseline.takeError();
  Expected<CompileRecord> candidate = readCompileRecord(candidatePath);
  if (!candidate)
    return candidate.takeError();
  if (candidate->status != Status::Ok)
    return writeFailure(candidate->status, "compile: " + candidate->message);
  for (auto [path, record] : {std::pair{candidatePath.getValue(), &*candidate},
                              {baselinePath.getValue(), &*baseline}})
    if (Error err = checkArtifact(path, *record))
      return err;
  if (baseline->status != Status::Ok)
    return writeFailure(Status::BenchError,
                        "the baseline did not compile: " + baseline->message);
  ContentCache cache(ContentCache::rootFor(cacheDir));
  std::string key = benchKey(argv0, *baseline, *candidate);
  if (alreadyDone(key)) {
    keepNewerThanInputs(outputPath, {baselinePath, candidatePath});
    return Error::success();
  }
  if (cache.enabled() && replay(cache, key))
    return Error::success();
  // One measurement at a time on this machine, whichever run asks.
  Expected<DeviceLock> lock = DeviceLock::acquire(kDevice);
  if (!lock)
    return lock.takeError();
  // Another run may have measured exactly this while we waited.
  if (cache.enabled() && replay(cache, key))
    return Error::success();
  if (Error err = measureInChild(argv0, key))
    return err;
  if (cache.enabled())
    remember(cache, key);
  return Error::success();
}

/// Adds to the child's record how much of the CPU it had: another process
/// running beside a measurement takes CPU time from it.
static Error recordLoad(const ChildOutcome &outcome, StringRef key) {
  Expected<BenchRecord> record =
      readRecord<BenchRecord>(outputPath, schema::kBench, benchRecordFromJson);
  if (!record)
    return record.takeError();
  record->key = key.str();
  record->cpuShare = outcome.seconds > 0 ? outcome.cpuSeconds / outcome.seconds
                                         : 0;
  record->loadAverage = loadAverage();
  record->disturbed = outcome.cpuSeconds > 0 && record->cpuShare < minCpuShare();
  return writeJsonFile(outputPath, toJson(*record));
}

static Error measureInChild(const char *argv0, StringRef key) {
  sys::fs::remove(outputPath);
  std::vector<std::string> args = {
      "--child",
      "--key=" + key.str(),
      "--baseline=" + baselinePath,
      "--candidate=" + candidatePath,
      "--output=" + outputPath,
      "--warmup=" + std::to_string(warmup),
      "--repetitions=" + std::to_string(repetitions),
      "--min-sample-s=" + std::to_string(minSample),
      "--seed=" + std::to_string(seed)};
  if (!functionName.empty())
    args.push_back("--function=" + functionName);
  std::string logPath = outputPath + ".log";
  sys::fs::remove(logPath);
  ChildOutcome outcome = runLimited(currentExecutable(argv0), args,
                                    timeoutSeconds, /*memoryMB=*/0, logPath);
  if (outcome.status == Status::Ok && sys::fs::exists(outputPath)) {
    sys::fs::remove(logPath);
    return recordLoad(outcome, key);
  }
  Status status = outcome.status;
  if (status == Status::Ok || status == Status::CompileError)
    status = Status::BenchError;
  return writeFailure(status, outcome.message, outcome.seconds,
                      outcome.startedAt);
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-bench: check a compiled candidate against the baseline and "
      "time both, interleaved.\n\nA candidate that failed to compile, "
      "crashes, hangs or computes wrong numbers gets a record with that "
      "status and exit code 0.\n");
  if (child)
    return finishTool("retune-bench", runChild());
  return finishTool("retune-bench", runParent(argv[0]));
}
