//===- ModelRun.cpp - Building and timing the whole model -----------------===//
#include "stages/backends/iree/ModelRun.h"

#include "cache/CachedStep.h"
#include "stages/backends/iree/CompileTiming.h"
#include "stages/backends/iree/ConfiguredExecutables.h"
#include "stages/core/Subprocess.h"
#include "stages/support/DeviceLock.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/Host.h"

using namespace llvm;

namespace retune::iree {
std::string familyOfFlags(ArrayRef<std::string> flags) {
  for (StringRef flag : flags) {
    if (flag.contains("llvm-cpu") || flag.ends_with("=local"))
      return "cpu";
    if (flag.ends_with("=cuda"))
      return "cuda";
  }
  return "gpu";
}

namespace {
/// What makes a whole-model build: IREE's compiler, the exact arguments
/// Retune passes it (paths of this build replaced by the content of the
/// model and the spec) and the host (llvm-cpu builds for `host`). Not the
/// stage tool: the flags and model steps share builds (the model step's
/// baseline is the flag search's chosen set). Empty when an input cannot be
/// read (the compile then reports it).
std::string modelBuildKey(const IreeTools &tools, CompileRequest request) {
  FieldHasher key;
  key.add("stage", "iree-model-build")
      .add("iree", tools.version.text)
      .add("iree_compile", tools.compile)
      .add("cpu", sys::getHostCPUName());
  for (auto [tag, path] : {std::pair<StringRef, std::string *>{"model", &request.input},
                           {"spec", &request.specPath}}) {
    if (path->empty())
      continue;
    Expected<std::string> text = readFile(*path);
    if (!text) {
      consumeError(text.takeError());
      return "";
    }
    key.add(tag, blake3Hex(*text));
    *path = ("<" + tag + ">").str();
  }
  // Substituted executables count by their content, not their folder.
  for (std::string &flag : request.flags) {
    StringRef dir(flag);
    if (!dir.consume_front(substituteExecutablesFlag("")))
      continue;
    Expected<std::vector<std::string>> files = listFiles(dir);
    if (!files) {
      consumeError(files.takeError());
      return "";
    }
    for (const std::string &file : *files) {
      Expected<std::string> text = readFile(file);
      if (!text) {
        consumeError(text.takeError());
        return "";
      }
      key.add(sys::path::filename(file), blake3Hex(*text));
    }
    flag = substituteExecutablesFlag("<executables>");
  }
  request.vmfbPath = "<module>";
  request.reproducerPath = "<reproducer>";
  return key.add("args", join(compileArgs(tools.syntax(), request), "\n"))
      .hex(16);
}

/// The compile log rides along in the cache: its pass timing says where
/// the build's time went, replayed or not.
constexpr StringLiteral kLogBlob = "compile.log";
} // namespace

std::string ModelRunOptions::inWork(const Twine &name) const {
  return (Twine(workDir) + "/" + name).str();
}

Expected<ModelRunner> ModelRunner::create(const ModelRunOptions &options,
                                          ProcessRunner &processes) {
  Expected<IreeTools> tools =
      toolsFrom(options.iree, options.workDir, processes);
  if (!tools)
    return tools.takeError();
  Expected<ModelInvocation> invocation = resolveModelInvocation(
      options.modelPath, options.entry, options.iree.benchFlags);
  if (!invocation)
    return invocation.takeError();
  return ModelRunner(options, std::move(*tools), std::move(*invocation));
}

CompileRecord ModelRunner::compile(StringRef tag, StringRef spec,
                                   ArrayRef<std::string> extraFlags,
                                   StringRef input) const {
  CompileRequest request;
  request.input = input.empty() ? runOptions.modelPath : input.str();
  request.specPath = spec.str();
  request.vmfbPath = runOptions.inWork(tag + ".vmfb");
  request.logPath = runOptions.inWork(tag + ".compile.log");
  request.flags = runOptions.iree.compileFlags;
  request.flags.insert(request.flags.end(), extraFlags.begin(),
                       extraFlags.end());
  // Where a large model's compile goes (CompileTiming.h), in the log.
  for (std::string &flag : passTimingFlags())
    request.flags.push_back(std::move(flag));
  request.family = familyOfFlags(request.flags);
  request.fromExecutableSources = false;
  request.timeoutSeconds = runOptions.compileTimeout;
  CompileFiles files{runOptions.inWork(tag + ".compile.json"),
                     request.vmfbPath, "artifact.vmfb"};
  CachedStep step;
  step.key = modelBuildKey(tools, request);
  step.alreadyDone = [&](StringRef key) {
    return compileAlreadyDone(files, key) && sys::fs::exists(request.logPath);
  };
  step.restore = [&](const CacheEntry &entry, StringRef key) -> Error {
    auto log = entry.find(kLogBlob.str());
    if (log == entry.end())
      return makeError("cache entry without its compile log");
    // A replayed build keeps the seconds its compile took: that is what
    // the build costs, and what the flag search reports.
    if (Error err = restoreCompile(files, entry, key, /*keepCompileSeconds=*/true))
      return err;
    return writeFileAtomic(request.logPath, log->second);
  };
  step.run = [&](StringRef key) {
    CompileRecord record = compileCandidate(tools, request);
    record.key = key.str();
    return writeJsonFile(files.recordPath, toJson(record));
  };
  step.outcome = [&]() -> std::optional<CacheEntry> {
    // A timeout or a crash may pass next time.
    std::optional<CacheEntry> entry = compileOutcome(files, [](Status status) {
      return status != Status::Timeout && status != Status::Crash;
    });
    Expected<std::string> log = readFile(request.logPath);
    if (!entry || !log) {
      if (!log)
        consumeError(log.takeError());
      return std::nullopt;
    }
    (*entry)[kLogBlob.str()] = std::move(*log);
    return entry;
  };
  if (Error err = runCachedStep(ContentCache(runOptions.cacheRoot), step)) {
    CompileRecord failed;
    failed.status = Status::CompileError;
    failed.message = toString(std::move(err));
    return failed;
  }
  Expected<CompileRecord> record = readRecord<CompileRecord>(
      files.recordPath, schema::kCompile, compileRecordFromJson);
  if (!record) {
    CompileRecord failed;
    failed.status = Status::CompileError;
    failed.message = toString(record.takeError());
    return failed;
  }
  return *record;
}

std::vector<PassTime> ModelRunner::slowestPasses(StringRef tag) const {
  Expected<std::string> log = readFile(runOptions.inWork(tag + ".compile.log"));
  if (!log) {
    consumeError(log.takeError());
    return {};
  }
  return iree::slowestPasses(*log);
}

Error ModelRunner::makeReference(StringRef referenceTag) {
  if (tools.run.empty()) {
    errs() << "note: no iree-run-module beside " << tools.benchmark
           << "; results are not checked\n";
    return Error::success();
  }
  Expected<std::vector<std::string>> seeded =
      seedInputs(invocation.flags, runOptions.workDir, /*seed=*/1);
  if (!seeded)
    return seeded.takeError();
  // The inputs and the weights (a parameter archive): other benchmark
  // flags are iree-benchmark-module's.
  for (const std::string &flag : *seeded)
    if (StringRef(flag).starts_with("--input") ||
        StringRef(flag).starts_with("--parameters"))
      seededInputs.push_back(flag);
  Expected<Reference> written = writeReference(tools, runRequest(referenceTag),
                                               runOptions.inWork("reference"));
  if (!written)
    return written.takeError();
  reference = std::move(*written);
  return Error::success();
}

Expected<CompileRecord> ModelRunner::buildReference(StringRef referenceTag,
                                                    StringRef how) {
  CompileRecord compiled = compile(referenceTag, "");
  if (compiled.status != Status::Ok)
    return makeError(runOptions.modelPath + ": the model does not compile " +
                     how + " (fix [iree] compile_flags): " + compiled.message);
  if (Error err = makeReference(referenceTag))
    return std::move(err);
  return compiled;
}

OutputCheck ModelRunner::check(StringRef tag) const {
  if (!reference)
    return {};
  return checkOutputs(tools, runRequest(tag), *reference);
}

bool bothSidesTimed(const InterleavedOutcome &timed) {
  return timed.baseline.status == Status::Ok &&
         timed.tuned.status == Status::Ok && !timed.tuned.samplesUs.empty();
}

namespace {
/// Under six pairs no pair's ratio bounds the median with 97.5% confidence,
/// where every cross ratio of three runs a side does.
constexpr size_t kFewestPairs = 6;

/// Under three runs a side, "every tuned run beats every baseline run"
/// happens by chance once in six (two a side): too few to decide on.
constexpr size_t kFewestSteadyRuns = 3;

/// `timed`'s runs, each side without those the machine slowed
/// (stats::slowedRuns); a round with a slowed run on either side is left
/// out whole, so the rounds left stay pairs.
struct SteadyRuns {
  std::vector<double> baseline, tuned;
  /// Whether run k of one side is still beside run k of the other.
  bool paired = false;
  unsigned setAside = 0;

  size_t fewest() const { return std::min(baseline.size(), tuned.size()); }
};

SteadyRuns steadyRuns(const InterleavedOutcome &timed) {
  const std::vector<double> &tuned = timed.tuned.runMediansUs,
                            &baseline = timed.baseline.runMediansUs;
  std::vector<bool> slowTuned = stats::slowedRuns(tuned, kSlowedRunFactor),
                    slowBaseline =
                        stats::slowedRuns(baseline, kSlowedRunFactor);
  SteadyRuns steady;
  steady.paired = tuned.size() == baseline.size();
  for (size_t i = 0; i < tuned.size(); ++i)
    if (!slowTuned[i] && !(steady.paired && slowBaseline[i]))
      steady.tuned.push_back(tuned[i]);
  for (size_t i = 0; i < baseline.size(); ++i)
    if (!slowBaseline[i] && !(steady.paired && slowTuned[i]))
      steady.baseline.push_back(baseline[i]);
  steady.setAside =
      static_cast<unsigned>(tuned.size() + baseline.size() -
                            steady.tuned.size() - steady.baseline.size());
  return steady;
}
} // namespace

unsigned runsSetAside(const InterleavedOutcome &timed) {
  return steadyRuns(timed).setAside;
}

stats::RatioEstimate estimateInterleaved(const InterleavedOutcome &timed) {
  SteadyRuns steady = steadyRuns(timed);
  if (steady.setAside > 0) {
    if (steady.paired && steady.tuned.size() >= kFewestPairs)
      return stats::estimatePairedRatio(steady.tuned, steady.baseline);
    stats::RatioEstimate estimate =
        stats::estimateRatio(steady.tuned, steady.baseline);
    // Too few steady runs to bound the ratio: the bound stays that of all
    // the runs, which the slowed ones widen, until more rounds are timed.
    if (steady.fewest() < kFewestSteadyRuns)
      estimate.upper = std::max(
          estimate.upper, stats::estimateRatio(timed.tuned.runMediansUs,
                                               timed.baseline.runMediansUs)
                              .upper);
    return estimate;
  }
  stats::RatioEstimate estimate =
      stats::estimateRatio(timed.tuned.samplesUs, timed.baseline.samplesUs);
  const std::vector<double> &tuned = timed.tuned.runMediansUs,
                            &baseline = timed.baseline.runMediansUs;
  // Round k's runs of the two sides ran one right after the other
  // (benchRoundRobin): paired, a drift of the machine's speed between
  // rounds cancels.
  estimate.upper =
      tuned.size() == baseline.size() && tuned.size() >= kFewestPairs
          ? stats::estimatePairedRatio(tuned, baseline).upper
          : stats::estimateRatio(tuned, baseline).upper;
  return estimate;
}

bool tooFewSteadyRuns(const InterleavedOutcome &timed) {
  SteadyRuns steady = steadyRuns(timed);
  return steady.setAside > 0 && steady.fewest() < kFewestSteadyRuns;
}

bool needsMoreSamples(const InterleavedOutcome &timed, double margin) {
  if (!bothSidesTimed(timed))
    return false;
  // A slowed machine left too few steady runs to judge by, whichever way
  // the rest points (a phase over the tuned side's runs reads "slower").
  if (tooFewSteadyRuns(timed))
    return true;
  stats::RatioEstimate estimate = estimateInterleaved(timed);
  return estimate.ratio < 1 - margin && estimate.upper >= 1;
}

InterleavedOutcome ModelRunner::timeDecisively(StringRef referenceTag,
                                               StringRef tag, double margin,
                                               unsigned maxMore) const {
  InterleavedOutcome timed = timeAgainst(referenceTag, tag);
  for (unsigned more = 0; more < maxMore && needsMoreSamples(timed, margin);
       ++more) {
    InterleavedOutcome again = timeAgainst(referenceTag, tag);
    if (!bothSidesTimed(again))
      break;
    appendTiming(timed, again);
  }
  return timed;
}

void appendRuns(BenchOutcome &runs, const BenchOutcome &more) {
  llvm::append_range(runs.samplesUs, more.samplesUs);
  llvm::append_range(runs.runMediansUs, more.runMediansUs);
  runs.seconds += more.seconds;
}

void appendTiming(InterleavedOutcome &timed, const InterleavedOutcome &again) {
  appendRuns(timed.baseline, again.baseline);
  appendRuns(timed.tuned, again.tuned);
}

InterleavedOutcome ModelRunner::timeAgainst(StringRef referenceTag,
                                            StringRef tag) const {
  return std::move(timeAllAgainst(referenceTag, {tag.str()}).front());
}

std::vector<InterleavedOutcome>
ModelRunner::timeAllAgainst(StringRef referenceTag,
                            ArrayRef<std::string> tags) const {
  std::vector<InterleavedOutcome> timed(tags.size());
  // The device is measured by one process at a time, across runs.
  Expected<DeviceLock> lock =
      DeviceLock::acquire(deviceLockName(runOptions.device));
  if (!lock) {
    std::string why = toString(lock.takeError());
    for (InterleavedOutcome &t : timed) {
      t.baseline.status = Status::BenchError;
      t.baseline.message = why;
    }
    return timed;
  }
  std::vector<BenchRequest> requests = {benchRequest(referenceTag)};
  for (const std::string &tag : tags)
    requests.push_back(benchRequest(tag));
  std::vector<BenchOutcome> runs =
      benchRoundRobin(tools, requests, runOptions.rounds);
  for (auto [k, t] : enumerate(timed)) {
    t.baseline = runs[0];
    t.tuned = std::move(runs[k + 1]);
  }
  return timed;
}

Expected<std::vector<DispatchTime>>
ModelRunner::profile(StringRef tag, unsigned runs, StringRef filesTag) const {
  if (tools.profile.empty())
    return makeError("no iree-profile beside " + tools.benchmark);
  std::string files = (filesTag.empty() ? tag : filesTag).str();
  std::string bundle = runOptions.inWork(files + ".ireeprof");
  BenchRequest request = benchRequest(tag);
  request.repetitions = 1;
  request.jsonPath = runOptions.inWork(files + ".profile.bench.json");
  request.logPath = runOptions.inWork(files + ".profile.log");
  // Exactly `runs` calls, none to warm up: the counts divide into calls
  // per run.
  request.flags.push_back(formatv("--benchmark_min_time={0}x", runs).str());
  request.flags.push_back("--benchmark_min_warmup_time=0");
  request.flags.push_back(
      ("--device_profiling_mode=" + profilingModeFor(runOptions.device)).str());
  request.flags.push_back("--device_profiling_output=" + bundle);
  {
    Expected<DeviceLock> lock =
        DeviceLock::acquire(deviceLockName(runOptions.device));
    if (!lock)
      return lock.takeError();
    BenchOutcome run = runBenchmark(tools, request);
    if (run.status != Status::Ok)
      return makeError("profiling " + tag + ".vmfb: " + run.message);
  }
  std::string reduced = runOptions.inWork(files + ".profile.jsonl");
  // Every call, for the median, where the rows were recorded from IREE
  // 3.13 (host-timed `host_dispatch_event`, with `duration_ns`); the groups
  // of each function elsewhere (a GPU's device-timed events are unseen).
  std::vector<std::string> args = {"dispatch", "--format=jsonl", bundle};
  if (isHostDevice(runOptions.device))
    args.insert(args.begin() + 1, "--dispatch_events");
  ChildOutcome child = tools.runTool(tools.profile, args,
                                     runOptions.benchTimeout, 0, reduced);
  if (child.status != Status::Ok)
    return makeError("iree-profile dispatch " + bundle + ": " + child.message);
  Expected<std::string> text = readFile(reduced);
  if (!text)
    return text.takeError();
  return parseDispatchProfile(*text, reduced);
}

BenchRequest ModelRunner::benchRequest(StringRef tag) const {
  BenchRequest request;
  request.vmfbPath = runOptions.inWork(tag + ".vmfb");
  request.device = runOptions.device;
  request.repetitions = runOptions.repetitions;
  request.function = invocation.function;
  request.flags = invocation.flags;
  request.jsonPath = runOptions.inWork(tag + ".bench.json");
  request.logPath = runOptions.inWork(tag + ".bench.log");
  request.timeoutSeconds = runOptions.benchTimeout;
  return request;
}

RunRequest ModelRunner::runRequest(StringRef tag) const {
  return {runOptions.inWork(tag + ".vmfb"),
          runOptions.device,
          invocation.function,
          seededInputs,
          runOptions.inWork(tag + ".run.log"),
          runOptions.benchTimeout};
}

} // namespace retune::iree
