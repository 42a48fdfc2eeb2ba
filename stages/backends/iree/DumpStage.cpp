//===- DumpStage.cpp - A model's dispatches, problems and shares -------===//
//
// Dumps the model's dispatch benchmarks with iree-compile, strips their
// configurations with iree-opt, and writes the same files retune-dump does:
// dispatches/index.json (heaviest first, with each dispatch's share of the
// model's work: time from --profile; with --device, its time in the model
// under IREE's profiler (the dump's compile writes the model), or where that
// fails each dispatch's time alone x calls; else FLOPs x calls; calls are
// counted in the model compiled to the flow phase) and per dispatch
// <id>/problem.json and <id>/dispatch.mlir (the stripped benchmark every
// candidate compiles from). A benchmark whose root op is not a contraction,
// convolution or attention is listed on stderr and keeps IREE's default.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/DumpStage.h"

#include "stages/backends/iree/IreeIr.h"
#include "stages/backends/iree/IreeReader.h"
#include "stages/backends/iree/IreeRun.h"
#include "stages/backends/iree/ModelFlags.h"
#include "stages/backends/iree/ModelProfile.h"
#include "stages/backends/iree/ModelRun.h"
#include "stages/support/DeviceLock.h"
#include "stages/support/FileUtil.h"
#include "stages/support/HashedFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <map>

using namespace llvm;
using namespace retune;
using namespace retune::iree;

namespace retune::iree {

namespace {

/// One distinct dispatch (benchmarks with the same Problem are one).
struct Found {
  IreeDispatch dispatch;
  std::string preparedPath;
  std::string preparedText;
  unsigned occurrences = 1;
  /// One call with IREE's default config (0: not timed).
  double timeUs = 0;
  /// The exports of every executable with this problem: the profiler's
  /// names for the dispatch.
  std::vector<std::string> exports;
};

/// Workers of the device the model's profile ran on: `local-sync` runs on
/// the caller's thread, `local-task` on `--task_topology_group_count`
/// workers ([tune] threads) or one a core.
unsigned profileWorkers(const DumpOptions &options) {
  if (unsigned workers = deviceWorkers(options.iree.deviceFlags))
    return workers;
  if (StringRef(options.timeDevice).starts_with("local-task"))
    return std::max(1u, hardware_concurrency().compute_thread_count());
  return 1;
}

/// Bits of a floating-point element type ("f32", "bf16"); 0 for others,
/// whose peak rate (integer dot products) the CPU model does not know.
unsigned floatBits(StringRef type) {
  unsigned bits = 0;
  if ((type.consume_front("f") || type.consume_front("bf")) &&
      !type.getAsInteger(10, bits))
    return bits;
  return 0;
}

/// The FLOP rate `workers` cores can reach on a dispatch whose time its
/// FLOPs bound (contractions, convolutions, attention on a CPU); 0 for
/// the rest.
double peakFlopsPerSecond(const IreeDispatch &d, unsigned workers) {
  const Problem &p = d.problem;
  if (d.target.isGpu() || p.kind == OpKind::Elementwise ||
      p.elementTypes.empty())
    return 0;
  unsigned bits = floatBits(p.elementTypes.front());
  return bits ? d.target.cpuHost().peakFlopsPerCore(bits) * workers : 0;
}

HotCandidate hotCandidate(const Found &f, unsigned workers) {
  const IreeDispatch &d = f.dispatch;
  return {d.problem.stableId(),
          {d.exportName, d.funcName, d.benchmarkFunction, d.executable},
          d.problem.flops(),
          f.occurrences,
          f.timeUs,
          peakFlopsPerSecond(d, workers)};
}

/// The model the dump's compile writes beside the benchmarks
/// (`<workDir>/<kModelTag>.vmfb`), for the profile.
constexpr StringLiteral kModelTag = "model";

/// Shares by the model's own time: IREE's profiler runs the model the dump
/// compiled kProfiledRuns times on `options.timeDevice`, and each dispatch
/// weighs what all its executables took in a run, by its export name.
/// A dispatch the runs never called weighs nothing (an initializer's, run
/// once when the module loads). In the model, not alone: a dispatch whose
/// operands arrive cold, or that a benchmark's repeated calls keep in
/// cache, weighs what it costs the model.
Expected<StringMap<double>> profileModel(const DumpOptions &options,
                                         ProcessRunner &processes,
                                         ArrayRef<Found> found) {
  ModelRunOptions run;
  run.iree = options.iree;
  run.modelPath = options.modelPath;
  run.workDir = options.workDir;
  run.device = options.timeDevice;
  run.entry = options.entry;
  run.benchTimeout = options.timeoutSeconds;
  Expected<ModelRunner> runner = ModelRunner::create(run, processes);
  if (!runner)
    return runner.takeError();
  Expected<std::vector<DispatchTime>> times =
      runner->profile(kModelTag, kProfiledRuns);
  if (!times)
    return times.takeError();
  // Per run, as a profile file gives them (the time to gain compares them
  // with one run's FLOPs).
  StringMap<double> usByExport;
  for (const DispatchTime &t : *times)
    usByExport[t.function] += t.averageUs * t.calls / kProfiledRuns;
  StringMap<double> weights;
  double total = 0;
  for (const Found &f : found) {
    double us = 0;
    for (const std::string &name : f.exports)
      us += usByExport.lookup(name);
    weights[f.dispatch.exportName] = us;
    total += us;
  }
  // Names that never meet would weigh every dispatch nothing, silently.
  if (!found.empty() && !(total > 0))
    return makeError("the profile names none of the dumped dispatches");
  return weights;
}

/// Shares by time: every distinct dispatch compiled with IREE's default
/// config (compiles in parallel) and timed on `options.timeDevice`, one at a
/// time under the device's lock. FLOPs mislead on CPU (a matvec called 38 times
/// weighs little by FLOPs and much by time). Any failure leaves every
/// dispatch untimed, so the shares fall back to FLOPs x calls together.
Error timeDispatches(const DumpOptions &options, const IreeTools &ireeTools,
                     std::vector<Found> &found) {
  std::string dir = options.workDir + "/timed";
  if (std::error_code ec = sys::fs::create_directories(dir))
    return makeError(dir + ": " + ec.message());
  std::vector<CompileRecord> compiled(found.size());
  {
    DefaultThreadPool pool(hardware_concurrency());
    for (size_t i = 0; i < found.size(); ++i)
      pool.async([&, i] {
        CompileRequest request;
        request.input = found[i].preparedPath;
        request.vmfbPath = formatv("{0}/{1}.vmfb", dir, i).str();
        request.logPath = formatv("{0}/{1}.compile.log", dir, i).str();
        request.flags = options.iree.compileFlags;
        request.family = found[i].dispatch.target.family();
        request.timeoutSeconds = 300;
        compiled[i] = compileCandidate(ireeTools, request);
      });
    pool.wait();
  }
  Expected<DeviceLock> lock =
      DeviceLock::acquire(deviceLockName(options.timeDevice));
  if (!lock)
    return lock.takeError();
  std::vector<double> times;
  for (size_t i = 0; i < found.size(); ++i) {
    if (compiled[i].status != Status::Ok)
      return makeError(found[i].preparedPath + " does not compile (" +
                       toString(compiled[i].status) +
                       "): " + compiled[i].message);
    BenchRequest request;
    request.vmfbPath = compiled[i].artifact;
    request.device = options.timeDevice;
    request.repetitions = options.repetitions;
    request.jsonPath = formatv("{0}/{1}.bench.json", dir, i).str();
    request.logPath = formatv("{0}/{1}.bench.log", dir, i).str();
    request.timeoutSeconds = 300;
    BenchOutcome timed = runBenchmark(ireeTools, request);
    if (timed.status != Status::Ok || timed.samplesUs.empty())
      return makeError(found[i].preparedPath + " could not be timed (" +
                       toString(timed.status) + "): " + timed.message);
    times.push_back(stats::median(timed.samplesUs));
  }
  for (auto [f, us] : zip(found, times))
    f.timeUs = us;
  return Error::success();
}

/// Calls of `executable` in the model: from the flow-phase count, or 1 (one
/// benchmark file) when the count is unavailable.
unsigned callsOf(const std::optional<StringMap<unsigned>> &calls,
                 StringRef executable) {
  if (!calls)
    return 1;
  auto it = calls->find(executable);
  return it == calls->end() ? 1 : std::max(1u, it->second);
}

/// The prepared dispatch of a dumped benchmark `file`.
std::string preparedPathOf(const DumpOptions &options, StringRef file) {
  return options.workDir + "/prepared/" + sys::path::stem(file).str() +
         ".mlir";
}

/// iree-opt strips every benchmark in parallel (a process each): per file,
/// why it could not (none when it could).
std::vector<std::optional<std::string>>
stripAll(const DumpOptions &options, const IreeTools &ireeTools,
         ArrayRef<std::string> files) {
  std::vector<std::optional<std::string>> failures(files.size());
  DefaultThreadPool pool(hardware_concurrency());
  for (size_t i = 0; i < files.size(); ++i)
    pool.async([&, i] {
      StringRef file = files[i];
      if (Error err = stripConfiguration(
              ireeTools, file, strippedPathFor(preparedPathOf(options, file)),
              options.workDir + "/logs/" + sys::path::stem(file).str() +
                  ".strip.log"))
        failures[i] = toString(std::move(err));
    });
  pool.wait();
  return failures;
}

Expected<std::vector<Found>>
prepareAll(const DumpOptions &options, const IreeTools &ireeTools,
           ArrayRef<std::string> files,
           const std::optional<StringMap<unsigned>> &calls) {
  // Without IREE's compiler library the dispatches are read as text, which
  // knows fewer op kinds: said once, where the dispatches to tune are read.
  if (findCompilerLibrary(ireeTools.compile).empty())
    errs() << "retune-iree-dump: note: no libIREECompiler.so in the IREE "
              "installation of "
           << ireeTools.compile
           << " (looked beside it, in <prefix>/lib and in its Python "
              "site-packages or dist-packages); its dispatches are read as "
              "text, which tunes fewer op kinds (softmax, pack and unpack "
              "keep IREE's configuration): install IREE with pip "
              "(scripts/setup.sh) or from a build that ships the library\n";
  // Reading the stripped files stays in order, on this thread.
  std::vector<std::optional<std::string>> stripFailures =
      stripAll(options, ireeTools, files);
  std::vector<Found> found;
  std::map<std::string, size_t> byId;
  for (auto [file, failure] : zip(files, stripFailures)) {
    std::string prepared = preparedPathOf(options, file);
    Expected<IreeDispatch> dispatch =
        failure ? Expected<IreeDispatch>(makeError(*failure))
                : readStripped(ireeTools, file, strippedPathFor(prepared),
                               prepared);
    if (!dispatch) {
      errs() << "retune-iree-dump: note: " << file
             << " keeps IREE's default configuration: "
             << toString(dispatch.takeError()) << "\n";
      continue;
    }
    std::string id = dispatch->problem.stableId();
    unsigned occurrences = callsOf(calls, dispatch->executable);
    if (auto it = byId.find(id); it != byId.end()) {
      found[it->second].occurrences += occurrences;
      found[it->second].exports.push_back(dispatch->exportName);
      continue;
    }
    Expected<std::string> text = readFile(prepared);
    if (!text)
      return text.takeError();
    byId[id] = found.size();
    std::string exportName = dispatch->exportName;
    found.push_back({std::move(*dispatch), prepared, std::move(*text),
                     occurrences, 0, {exportName}});
  }
  return found;
}

Expected<std::optional<StringMap<double>>>
readProfileOption(const DumpOptions &options) {
  if (options.profilePath.empty())
    return std::nullopt;
  Expected<std::string> text = readFile(options.profilePath);
  if (!text)
    return text.takeError();
  Expected<StringMap<double>> profile = readProfile(*text, options.profilePath);
  if (!profile)
    return profile.takeError();
  return std::optional<StringMap<double>>(std::move(*profile));
}

/// `options` with the flag search's choice applied (DumpOptions::
/// flagChoicePath): its flags added, its model compiled.
Expected<DumpOptions> withFlagChoice(DumpOptions options) {
  if (options.flagChoicePath.empty())
    return options;
  Expected<FlagChoice> choice = readRecord<FlagChoice>(
      options.flagChoicePath, schema::kFlags, flagChoiceFromJson);
  // A damaged one is removed, and the error says to run again: the flag
  // search, whose output it is, makes it again then.
  if (!choice)
    return choice.takeError();
  llvm::append_range(options.iree.compileFlags, choice->chosen);
  if (!choice->chosenInput.empty())
    options.modelPath = choice->chosenInput;
  return options;
}

Error run(const DumpOptions &options, ProcessRunner &processes) {
  if (!sys::fs::exists(options.modelPath))
    return makeError(options.modelPath +
                     ": no such file; check [model] path in "
                     "tune.toml");
  Expected<IreeTools> ireeTools =
      toolsFrom(options.iree, options.workDir + "/logs", processes);
  if (!ireeTools)
    return ireeTools.takeError();
  std::string benchmarks = options.workDir + "/benchmarks";
  // Benchmarks of an earlier model version must not be read as this one's.
  sys::fs::remove_directories(benchmarks);
  // Shares weigh each dispatch by its calls, not by its benchmark files
  // (IREE dumps one per executable however often the model calls it). The
  // compile to the flow phase that counts them runs beside the dump's.
  std::optional<StringMap<unsigned>> calls;
  std::string countFailure;
  DefaultThreadPool beside(hardware_concurrency(1));
  beside.async([&] {
    Expected<StringMap<unsigned>> counted = runDispatchCallCount(
        *ireeTools, options.modelPath, options.iree.compileFlags,
        options.workDir + "/model.flow.mlir",
        options.workDir + "/logs/flow.log", options.timeoutSeconds);
    if (counted)
      calls = std::move(*counted);
    else
      countFailure = toString(counted.takeError());
  });
  // On this CPU the dump's compile also writes the model, to profile.
  std::string module =
      options.timeDevice.empty()
          ? std::string("/dev/null")
          : (options.workDir + "/" + kModelTag + ".vmfb").str();
  Expected<std::vector<std::string>> files = runDump(
      *ireeTools, options.modelPath, options.iree.compileFlags, benchmarks,
      options.workDir + "/logs/dump.log", options.timeoutSeconds, module);
  beside.wait();
  if (!files)
    return files.takeError();
  if (!calls)
    errs() << "retune-iree-dump: note: counting one call per dispatch: "
           << countFailure << "\n";
  Expected<std::vector<Found>> found =
      prepareAll(options, *ireeTools, *files, calls);
  if (!found)
    return found.takeError();
  Expected<std::optional<StringMap<double>>> profile =
      readProfileOption(options);
  if (!profile)
    return profile.takeError();
  if (!*profile && !options.timeDevice.empty()) {
    Expected<StringMap<double>> inModel =
        profileModel(options, processes, *found);
    if (inModel) {
      *profile = std::move(*inModel);
    } else {
      errs() << "retune-iree-dump: note: each dispatch timed alone for the "
                "shares: the model could not be profiled: "
             << toString(inModel.takeError()) << "\n";
      if (Error err = timeDispatches(options, *ireeTools, *found))
        errs() << "retune-iree-dump: note: shares from FLOPs x calls: "
               << toString(std::move(err)) << "\n";
    }
  }
  std::vector<HotCandidate> hot;
  unsigned workers = profileWorkers(options);
  for (const Found &f : *found)
    hot.push_back(hotCandidate(f, workers));
  // Shares only: min_share and top_k are applied by the planner, which
  // records why a dispatch is skipped.
  HotSelection weights =
      selectHotDispatches(hot, {}, *profile ? &**profile : nullptr);
  DispatchIndex index;
  index.model = options.modelPath;
  for (auto [i, f] : enumerate(*found)) {
    const IreeDispatch &d = f.dispatch;
    DispatchEntry entry{hot[i].id,         d.exportName,      d.funcName,
                        d.problem.flops(), weights.shares[i], f.occurrences,
                        d.problem};
    entry.exports = f.exports;
    if (!weights.gainShares.empty()) {
      entry.gainShare = weights.gainShares[i];
      entry.peakFraction = weights.peakFractions[i];
      entry.peakFlopsPerSecond = weights.peakFlopsPerSecond[i];
    }
    index.totalFlops += entry.flops * entry.occurrences;
    std::string dir = options.outputDir + "/" + entry.id;
    if (Error err = writeHashedFile(dir + "/dispatch.mlir", f.preparedText))
      return err;
    if (Error err = writeHashedJsonFile(
            dir + "/problem.json",
            toJson(DispatchIndex{options.modelPath, entry.flops, {entry}})))
      return err;
    index.dispatches.push_back(std::move(entry));
  }
  llvm::stable_sort(index.dispatches,
                    [](const DispatchEntry &a, const DispatchEntry &b) {
                      return a.share > b.share;
                    });
  return writeHashedJsonFile(options.outputDir + "/index.json", toJson(index));
}

} // namespace

Error runDumpStage(const DumpOptions &given, ProcessRunner &processes) {
  Expected<DumpOptions> options = withFlagChoice(given);
  if (!options)
    return options.takeError();
  // A model a step wrote with its hash (the flag search's rewrite) that is
  // no longer what it wrote: this build's VERIFY removes it and the flag
  // search writes it again, then this step runs.
  if (sys::fs::exists(hashPathOf(options->modelPath)) &&
      isDamagedInput(options->modelPath, "retune-iree-dump"))
    return Error::success();
  return run(*options, processes);
}

} // namespace retune::iree
