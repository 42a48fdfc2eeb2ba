//===- IreeDumpMain.cpp - retune-iree-dump: model -> dispatches -----------===//
//
// Dumps the model's dispatch benchmarks with iree-compile, strips their
// configurations with iree-opt, and writes the same files retune-dump does:
// dispatches/index.json (heaviest first, with each dispatch's share of the
// model's work: with --device, each dispatch's measured time x calls; time
// from --profile; else FLOPs x calls; calls are counted in the model
// compiled to the flow phase) and per dispatch
// <id>/problem.json and <id>/dispatch.mlir (the stripped benchmark every
// candidate compiles from). A benchmark whose root op is not a contraction,
// convolution or attention is listed on stderr and keeps IREE's default.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/IreeReader.h"
#include "stages/backends/iree/IreeRun.h"
#include "stages/tools/iree/ToolOptions.h"
#include "stages/support/DeviceLock.h"
#include "stages/support/FileUtil.h"
#include "stages/support/ToolMain.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <map>

using namespace llvm;
using namespace retune;
using namespace retune::iree;

static cl::opt<std::string> modelPath("model", cl::Required,
                                      cl::desc("the model iree-compile reads"),
                                      cl::cat(tools::category()));
static cl::opt<std::string> outputDir("output-dir", cl::Required,
                                      cl::desc("dispatches directory"),
                                      cl::cat(tools::category()));
static cl::opt<std::string> workDir("work-dir", cl::Required,
                                    cl::desc("scratch directory (benchmarks, "
                                             "logs)"),
                                    cl::cat(tools::category()));
static cl::opt<std::string> profilePath("profile",
                                        cl::desc("weigh dispatches by this "
                                                 "profile's times"),
                                        cl::cat(tools::category()));
static cl::opt<unsigned> timeoutSeconds("timeout", cl::init(1800),
                                        cl::desc("seconds the dump may take"),
                                        cl::cat(tools::category()));
static cl::opt<std::string>
    timeDevice("device",
               cl::desc("time each dispatch with IREE's default config on "
                        "this device: shares are time x calls (empty: "
                        "FLOPs x calls)"),
               cl::cat(tools::category()));
static cl::opt<unsigned> repetitions("repetitions", cl::init(3),
                                     cl::desc("benchmark repetitions of each "
                                              "dispatch's timing"),
                                     cl::cat(tools::category()));

namespace {

/// One distinct dispatch (benchmarks with the same Problem are one).
struct Found {
  IreeDispatch dispatch;
  std::string preparedPath;
  std::string preparedText;
  unsigned occurrences = 1;
  /// One call with IREE's default config (0: not timed).
  double timeUs = 0;
};

HotCandidate hotCandidate(const Found &f) {
  const IreeDispatch &d = f.dispatch;
  return {d.problem.stableId(),
          {d.exportName, d.funcName, d.benchmarkFunction, d.executable},
          d.problem.flops(),
          f.occurrences,
          f.timeUs};
}

/// Shares by time: every distinct dispatch compiled with IREE's default
/// config (compiles in parallel) and timed on `timeDevice`, one at a time
/// under the device's lock. FLOPs mislead on CPU (a matvec called 38 times
/// weighs little by FLOPs and much by time). Any failure leaves every
/// dispatch untimed, so the shares fall back to FLOPs x calls together.
Error timeDispatches(const IreeTools &ireeTools, std::vector<Found> &found) {
  std::string dir = workDir + "/timed";
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
        request.flags = tools::compileFlags();
        request.family =
            tools::targetFamily(found[i].preparedText, found[i].preparedPath);
        request.timeoutSeconds = 300;
        compiled[i] = compileCandidate(ireeTools, request);
      });
    pool.wait();
  }
  Expected<DeviceLock> lock = DeviceLock::acquire(deviceLockName(timeDevice));
  if (!lock)
    return lock.takeError();
  std::vector<double> times;
  for (size_t i = 0; i < found.size(); ++i) {
    if (compiled[i].status != Status::Ok)
      return makeError(found[i].preparedPath + " does not compile (" +
                       toString(compiled[i].status) + "): " +
                       compiled[i].message);
    BenchRequest request;
    request.vmfbPath = compiled[i].artifact;
    request.device = timeDevice;
    request.repetitions = repetitions;
    request.jsonPath = formatv("{0}/{1}.bench.json", dir, i).str();
    request.logPath = formatv("{0}/{1}.bench.log", dir, i).str();
    request.timeoutSeconds = 300;
    BenchOutcome timed = runBenchmark(ireeTools, request);
    if (timed.status != Status::Ok || timed.samplesUs.empty())
      return makeError(found[i].preparedPath + " could not be timed (" +
                       toString(timed.status) + "): " + timed.message);
    times.push_back(median(timed.samplesUs));
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

Expected<std::vector<Found>>
prepareAll(const IreeTools &ireeTools, ArrayRef<std::string> files,
           const std::optional<StringMap<unsigned>> &calls) {
  std::vector<Found> found;
  std::map<std::string, size_t> byId;
  for (const std::string &file : files) {
    std::string stem = sys::path::stem(file).str();
    std::string prepared = workDir + "/prepared/" + stem + ".mlir";
    Expected<IreeDispatch> dispatch = prepareDispatch(
        ireeTools, file, prepared, workDir + "/logs/" + stem + ".strip.log");
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
      continue;
    }
    Expected<std::string> text = readFile(prepared);
    if (!text)
      return text.takeError();
    byId[id] = found.size();
    found.push_back({std::move(*dispatch), prepared, std::move(*text),
                     occurrences});
  }
  return found;
}

Expected<std::optional<StringMap<double>>> readProfileOption() {
  if (profilePath.empty())
    return std::nullopt;
  Expected<std::string> text = readFile(profilePath);
  if (!text)
    return text.takeError();
  Expected<StringMap<double>> profile = readProfile(*text, profilePath);
  if (!profile)
    return profile.takeError();
  return std::optional<StringMap<double>>(std::move(*profile));
}

Error run() {
  if (!sys::fs::exists(modelPath))
    return makeError(modelPath + ": no such file; check [model] path in "
                                 "tune.toml");
  Expected<IreeTools> ireeTools = tools::toolsFromOptions(workDir + "/logs");
  if (!ireeTools)
    return ireeTools.takeError();
  std::string benchmarks = workDir + "/benchmarks";
  // Benchmarks of an earlier model version must not be read as this one's.
  sys::fs::remove_directories(benchmarks);
  Expected<std::vector<std::string>> files =
      runDump(*ireeTools, modelPath, tools::compileFlags(), benchmarks,
              workDir + "/logs/dump.log", timeoutSeconds);
  if (!files)
    return files.takeError();
  // Shares weigh each dispatch by its calls, not by its benchmark files
  // (IREE dumps one per executable however often the model calls it).
  std::optional<StringMap<unsigned>> calls;
  Expected<StringMap<unsigned>> counted = runDispatchCallCount(
      *ireeTools, modelPath, tools::compileFlags(), workDir + "/model.flow.mlir",
      workDir + "/logs/flow.log", timeoutSeconds);
  if (counted)
    calls = std::move(*counted);
  else
    errs() << "retune-iree-dump: note: counting one call per dispatch: "
           << toString(counted.takeError()) << "\n";
  Expected<std::vector<Found>> found = prepareAll(*ireeTools, *files, calls);
  if (!found)
    return found.takeError();
  Expected<std::optional<StringMap<double>>> profile = readProfileOption();
  if (!profile)
    return profile.takeError();
  if (!*profile && !timeDevice.empty())
    if (Error err = timeDispatches(*ireeTools, *found))
      errs() << "retune-iree-dump: note: shares from FLOPs x calls: "
             << toString(std::move(err)) << "\n";
  std::vector<HotCandidate> hot;
  for (const Found &f : *found)
    hot.push_back(hotCandidate(f));
  // Shares only: min_share and top_k are applied by the planner, which
  // records why a dispatch is skipped.
  HotSelection weights = selectHotDispatches(
      hot, {}, *profile ? &**profile : nullptr);
  DispatchIndex index;
  index.model = modelPath;
  for (auto [i, f] : enumerate(*found)) {
    const IreeDispatch &d = f.dispatch;
    DispatchEntry entry{hot[i].id, d.exportName, d.funcName, d.problem.flops(),
                        weights.shares[i], f.occurrences, d.problem};
    index.totalFlops += entry.flops * entry.occurrences;
    std::string dir = outputDir + "/" + entry.id;
    if (Error err = writeFileIfChanged(dir + "/dispatch.mlir", f.preparedText))
      return err;
    if (Error err = writeJsonFile(dir + "/problem.json",
                                  toJson(DispatchIndex{modelPath, entry.flops,
                                                       {entry}})))
      return err;
    index.dispatches.push_back(std::move(entry));
  }
  llvm::stable_sort(index.dispatches,
                    [](const DispatchEntry &a, const DispatchEntry &b) {
                      return a.share > b.share;
                    });
  return writeJsonFile(outputDir + "/index.json", toJson(index));
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-dump: dump a model's dispatch benchmarks with iree-compile, "
      "strip their configurations with iree-opt and write "
      "<output-dir>/index.json, <id>/problem.json and <id>/dispatch.mlir "
      "(unchanged files keep their mtime).\n");
  return finishTool("retune-iree-dump", run());
}
