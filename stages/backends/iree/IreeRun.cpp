//===- IreeRun.cpp - Compiling and benchmarking with IREE's tools ---------===//
#include "stages/backends/iree/IreeRun.h"

#include "stages/core/Statistics.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"
#include "stages/core/Subprocess.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace llvm;

namespace retune::iree {

std::vector<std::string> compileArgs(const IreeSyntax &syntax,
                                     const CompileRequest &request) {
  std::vector<std::string> args = {request.input};
  if (request.fromExecutableSources)
    args.push_back("--compile-from=executable-sources");
  if (!request.specPath.empty())
    llvm::append_range(
        args, syntax.specLoadingFlags(request.family, request.specPath));
  args.insert(args.end(), request.flags.begin(), request.flags.end());
  std::string reproducer = request.reproducerPath.empty()
                               ? request.vmfbPath + ".crash.mlir"
                               : request.reproducerPath;
  args.push_back("--mlir-pass-pipeline-crash-reproducer=" + reproducer);
  args.push_back("-o");
  args.push_back(request.vmfbPath);
  return args;
}

namespace {
/// iree-compile's first `error:` line in the log, then a newline; empty
/// when there is none. The log's tail (the message) is often the end of a
/// long target attribute, which says nothing about what failed.
std::string firstCompileError(StringRef logPath) {
  Expected<std::string> log = readFile(logPath);
  if (!log) {
    consumeError(log.takeError());
    return "";
  }
  size_t at = StringRef(*log).find("error: ");
  if (at == StringRef::npos)
    return "";
  size_t lineStart = StringRef(*log).rfind('\n', at);
  StringRef line = StringRef(*log).drop_front(
      lineStart == StringRef::npos ? 0 : lineStart + 1);
  return line.take_until([](char c) { return c == '\n'; }).take_front(400).str() +
         "\n";
}
} // namespace

CompileRecord compileCandidate(const IreeTools &tools,
                               const CompileRequest &request) {
  CompileRecord record;
  // A stale vmfb must not pass for this compile's output.
  sys::fs::remove(request.vmfbPath);
  if (Error err = createParentDirs(request.vmfbPath)) {
    record.status = Status::CompileError;
    record.message = toString(std::move(err));
    return record;
  }
  ChildOutcome outcome =
      tools.runTool(tools.compile, compileArgs(tools.syntax(), request),
                    request.timeoutSeconds, request.memoryMB, request.logPath);
  record.seconds = outcome.seconds;
  record.startedAt = outcome.startedAt;
  if (outcome.status != Status::Ok) {
    record.status = outcome.status;
    record.message = firstCompileError(request.logPath) + outcome.message;
    std::string reproducer = request.reproducerPath.empty()
                                 ? request.vmfbPath + ".crash.mlir"
                                 : request.reproducerPath;
    if (sys::fs::exists(reproducer))
      record.message += "\ncrash reproducer: " + reproducer;
    sys::fs::remove(request.vmfbPath);
    return record;
  }
  Expected<std::string> vmfb = readFile(request.vmfbPath);
  if (!vmfb || vmfb->empty()) {
    if (!vmfb)
      consumeError(vmfb.takeError());
    record.status = Status::CompileError;
    record.message = "iree-compile exited 0 but wrote no module to " +
                     request.vmfbPath + "; see " + request.logPath;
    return record;
  }
  record.artifact = request.vmfbPath;
  record.artifactHash = blake3Hex(*vmfb);
  return record;
}

std::vector<std::optional<size_t>>
findDuplicateArtifacts(ArrayRef<CompileRecord> records) {
  std::vector<std::optional<size_t>> firsts(records.size());
  StringMap<size_t> byHash;
  for (auto [i, record] : enumerate(records)) {
    if (record.status != Status::Ok || record.artifactHash.empty())
      continue;
    auto [it, inserted] = byHash.try_emplace(record.artifactHash, i);
    firsts[i] = it->second;
  }
  return firsts;
}

/// Whether the request's own flags (the user's, a profile's) set `option`:
/// then Retune's default for it stays out.
static bool setsFlag(const BenchRequest &request, StringRef option) {
  return llvm::any_of(request.flags, [&](StringRef flag) {
    return flag.starts_with(option);
  });
}

std::vector<std::string> benchEnvironment(const BenchRequest &request) {
  bool dispatchBenchmark = request.function.empty();
  if (dispatchBenchmark && isHostDevice(request.device))
    return {kWrittenMemoryEnvironment.str()};
  return {};
}

std::vector<std::string> benchArgs(const BenchRequest &request) {
  std::vector<std::string> args = {
      "--device=" + request.device, "--module=" + request.vmfbPath,
      "--benchmark_format=json",
      "--benchmark_repetitions=" + std::to_string(request.repetitions)};
  if (!request.jsonPath.empty()) {
    args.push_back("--benchmark_out=" + request.jsonPath);
    args.push_back("--benchmark_out_format=json");
  }
  if (!request.function.empty())
    args.push_back("--function=" + request.function);
  if (!setsFlag(request, "--benchmark_min_time"))
    args.push_back(kSampleTimeFlag.str());
  if (!request.function.empty() &&
      !setsFlag(request, "--benchmark_min_warmup_time"))
    args.push_back(kModelWarmupFlag.str());
  args.insert(args.end(), request.flags.begin(), request.flags.end());
  return args;
}

namespace {
double toMicroseconds(double value, StringRef unit) {
  if (unit == "ns")
    return value / 1000.0;
  if (unit == "ms")
    return value * 1000.0;
  if (unit == "s")
    return value * 1e6;
  return value; // "us", Google Benchmark's and IREE's dispatch default
}

std::string stripBenchmarkName(StringRef name) {
  name.consume_front("BM_");
  return name.split('/').first.str();
}
} // namespace

Expected<BenchmarkRun> parseBenchmarkJson(StringRef text, StringRef where) {
  size_t start = text.find("{\n");
  if (start == StringRef::npos)
    start = text.find('{');
  if (start == StringRef::npos)
    return makeError(where + ": no Google Benchmark JSON in the output; run "
                             "iree-benchmark-module with "
                             "--benchmark_format=json");
  size_t end = text.rfind('}');
  Expected<json::Value> value = json::parse(text.slice(start, end + 1));
  if (!value)
    return makeError(where + ": malformed Google Benchmark JSON: " +
                     toString(value.takeError()));
  const json::Object *root = value->getAsObject();
  const json::Array *rows = root ? root->getArray("benchmarks") : nullptr;
  if (!rows)
    return makeError(where + ": Google Benchmark JSON without 'benchmarks'");
  BenchmarkRun run;
  for (const json::Value &rowValue : *rows) {
    const json::Object *row = rowValue.getAsObject();
    if (!row)
      continue;
    if (std::optional<StringRef> name = row->getString("name"))
      run.names.push_back(name->str());
    if (row->getBoolean("error_occurred").value_or(false)) {
      if (run.error.empty())
        run.error =
            row->getString("error_message").value_or("benchmark error").str();
      continue;
    }
    StringRef unit = row->getString("time_unit").value_or("us");
    std::optional<double> realTime = row->getNumber("real_time");
    if (!realTime)
      continue;
    StringRef type = row->getString("run_type").value_or("iteration");
    if (type == "aggregate") {
      StringRef agg = row->getString("aggregate_name").value_or("");
      StringRef aggUnit = row->getString("aggregate_unit").value_or("time");
      run.aggregates[agg] =
          aggUnit == "percentage" ? *realTime : toMicroseconds(*realTime, unit);
      continue;
    }
    run.samplesUs.push_back(toMicroseconds(*realTime, unit));
  }
  if (run.samplesUs.empty() && run.aggregates.count("mean"))
    run.samplesUs.push_back(run.aggregates["mean"]);
  return run;
}

std::string deviceLockName(StringRef device) {
  return isHostDevice(device) ? "cpu" : device.str();
}

std::vector<std::string>
deviceBenchArgs(const std::vector<std::string> &deviceFlags,
                const BenchRequest &request) {
  std::vector<std::string> args = deviceFlags;
  // Device flags are only given for several workers ([tune] threads > 1).
  if (!deviceFlags.empty() && request.function.empty() &&
      !setsFlag(request, "--batch_size"))
    args.push_back("--batch_size=" + std::to_string(kThreadedDispatchBatch));
  if (!request.function.empty() && isHostDevice(request.device) &&
      !setsFlag(request, "--device_allocator"))
    args.push_back(kCachingAllocatorFlag.str());
  return args;
}

BenchOutcome runBenchmark(const IreeTools &tools, const BenchRequest &request) {
  BenchOutcome outcome;
  if (!request.jsonPath.empty())
    sys::fs::remove(request.jsonPath);
  std::vector<std::string> args = benchArgs(request);
  llvm::append_range(args, deviceBenchArgs(tools.deviceFlags, request));
  ChildOutcome child =
      tools.runTool(tools.benchmark, args, request.timeoutSeconds, 0,
                    request.logPath, benchEnvironment(request));
  outcome.seconds = child.seconds;
  outcome.startedAt = child.startedAt;
  if (child.status != Status::Ok) {
    outcome.status = child.status == Status::CompileError ? Status::BenchError
                                                          : child.status;
    outcome.message = child.message;
    return outcome;
  }
  Expected<std::string> text = request.jsonPath.empty() ||
                                       !sys::fs::exists(request.jsonPath)
                                   ? readFile(request.logPath)
                                   : readFile(request.jsonPath);
  if (!text) {
    outcome.status = Status::BenchError;
    outcome.message = toString(text.takeError());
    return outcome;
  }
  Expected<BenchmarkRun> run = parseBenchmarkJson(*text, request.logPath);
  if (!run) {
    outcome.status = Status::BenchError;
    outcome.message = toString(run.takeError());
    return outcome;
  }
  if (!run->error.empty()) {
    outcome.status = Status::BenchError;
    outcome.message = run->error;
    return outcome;
  }
  if (run->samplesUs.empty()) {
    outcome.status = Status::BenchError;
    outcome.message = "no real_time rows in the benchmark output";
    return outcome;
  }
  outcome.samplesUs = std::move(run->samplesUs);
  return outcome;
}

namespace {
/// The baseline's two measurements' medians may differ by this much before
/// the machine counts as having changed speed between them.
constexpr double kBaselineDriftLimit = 1.10;

/// A baseline whose two measurements disagree by more than the drift limit
/// (the machine changed speed: load, frequency, another job on the cores):
/// a candidate measured in between cannot be told from the drift, so it is
/// ranked against the faster measurement alone. Drift then never makes a
/// winner; on one 2-core machine a conv's baseline ran 25 ms before its
/// candidates and 14 ms after, and the pooled baseline made 15 ms
/// candidates 0.6x "winners" that the whole model did not confirm.
std::optional<std::string> dropDriftedBaseline(BenchRecord &record,
                                               ArrayRef<double> before,
                                               ArrayRef<double> after) {
  double beforeMedian = stats::median({before.begin(), before.end()});
  double afterMedian = stats::median({after.begin(), after.end()});
  if (!(beforeMedian > 0) || !(afterMedian > 0))
    return std::nullopt;
  double drift = afterMedian / beforeMedian;
  int percent =
      static_cast<int>(std::round(std::abs(drift - 1) * 100));
  if (drift > 1 / kBaselineDriftLimit && drift < kBaselineDriftLimit) {
    if (drift > 1.03)
      return formatv("baseline drifted {0}% slower during the run (thermal "
                     "or load?)",
                     percent)
          .str();
    return std::nullopt;
  }
  bool afterIsFaster = drift < 1;
  ArrayRef<double> faster = afterIsFaster ? after : before;
  record.baselineSamples.assign(faster.begin(), faster.end());
  return formatv("baseline drifted {0}% {1} between its runs before and "
                 "after the candidates ({2:f3} -> {3:f3} ms): ranked "
                 "against the faster ({4}) alone",
                 percent, afterIsFaster ? "faster" : "slower",
                 beforeMedian * 1e3, afterMedian * 1e3,
                 afterIsFaster ? "after" : "before")
      .str();
}
} // namespace

BenchRecord makeBenchRecord(const BenchOutcome &candidate,
                            ArrayRef<double> baselineBefore,
                            ArrayRef<double> baselineAfter) {
  BenchRecord record;
  record.status = candidate.status;
  record.message = candidate.message;
  record.samples = candidate.samplesUs;
  record.seconds = candidate.seconds;
  record.startedAt = candidate.startedAt;
  record.baselineSamples.assign(baselineBefore.begin(), baselineBefore.end());
  record.baselineSamples.insert(record.baselineSamples.end(),
                                baselineAfter.begin(), baselineAfter.end());
  if (record.status != Status::Ok)
    return record;
  if (!baselineBefore.empty() && !baselineAfter.empty())
    if (std::optional<std::string> note =
            dropDriftedBaseline(record, baselineBefore, baselineAfter))
      record.message =
          record.message.empty() ? *note : record.message + "; " + *note;
  stats::summarizeSamples(record);
  return record;
}

std::vector<double> baselineFor(const StringMap<std::vector<double>> &perDevice,
                                StringRef device) {
  auto it = perDevice.find(device);
  if (it != perDevice.end() && !it->second.empty())
    return it->second;
  std::vector<double> all;
  for (const auto &entry : perDevice)
    all.insert(all.end(), entry.getValue().begin(), entry.getValue().end());
  return all;
}

std::vector<size_t> rankByRatio(ArrayRef<BenchRecord> records) {
  std::vector<size_t> order(records.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  auto key = [&](size_t i) {
    return records[i].status == Status::Ok
               ? records[i].ratio
               : std::numeric_limits<double>::infinity();
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return key(a) < key(b); });
  return order;
}

Expected<StringMap<double>> readProfile(StringRef text, StringRef fileName) {
  StringMap<double> profile;
  if (text.ltrim().starts_with("{")) {
    Expected<BenchmarkRun> run = parseBenchmarkJson(text, fileName);
    if (!run)
      return run.takeError();
    // Mean real_time per benchmark, from iteration rows.
    Expected<json::Value> value = json::parse(text.ltrim());
    if (!value)
      return makeError(fileName + ": " + toString(value.takeError()));
    StringMap<std::pair<double, unsigned>> sums;
    for (const json::Value &rowValue :
         *value->getAsObject()->getArray("benchmarks")) {
      const json::Object *row = rowValue.getAsObject();
      if (!row || row->getString("run_type").value_or("iteration") !=
                      "iteration")
        continue;
      std::string name = stripBenchmarkName(
          row->getString("run_name").value_or(row->getString("name").value_or("")));
      double us = toMicroseconds(row->getNumber("real_time").value_or(0),
                                 row->getString("time_unit").value_or("us"));
      auto &[sum, count] = sums[name];
      sum += us;
      ++count;
    }
    for (auto &entry : sums)
      profile[entry.getKey()] = entry.getValue().first / entry.getValue().second;
    return profile;
  }
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (auto [index, rawLine] : enumerate(lines)) {
    StringRef line = rawLine.split('#').first.trim();
    if (line.empty())
      continue;
    SmallVector<StringRef> fields;
    line.split(fields, ' ', -1, /*KeepEmpty=*/false);
    double us = 0;
    unsigned count = 1;
    if (fields.size() < 2 || fields.size() > 3 ||
        fields[1].getAsDouble(us) ||
        (fields.size() == 3 && fields[2].getAsInteger(10, count)))
      return makeError(fileName + ":" + Twine(index + 1) +
                       ": expected '<dispatch name> <microseconds> [<count>]'");
    profile[stripBenchmarkName(fields[0])] += us * count;
  }
  return profile;
}

/// HotSelection::gainShares and peakFractions from each candidate's time
/// in the model (`timesUs`, per run, all its calls; `totalUs` their sum).
/// A rate above twice the modelled peak says its FLOPs or calls are
/// miscounted: it neither raises the peak nor loses its time to gain.
static void addTimeToGain(ArrayRef<HotCandidate> candidates,
                          ArrayRef<double> timesUs, double totalUs,
                          HotSelection &selection) {
  constexpr double kMiscounted = 2.0;
  std::vector<double> fractions(candidates.size(), 0);
  double fastest = 1;
  for (auto [i, c] : enumerate(candidates)) {
    if (!(c.peakFlopsPerSecond > 0) || !(timesUs[i] > 0))
      continue;
    double rate = c.flops * c.occurrences / (timesUs[i] * 1e-6);
    fractions[i] = rate / c.peakFlopsPerSecond;
    if (fractions[i] > kMiscounted)
      fractions[i] = 0;
    fastest = std::max(fastest, fractions[i]);
  }
  for (auto [i, fraction] : enumerate(fractions)) {
    fraction /= fastest;
    selection.peakFractions.push_back(fraction);
    selection.peakFlopsPerSecond.push_back(
        fraction > 0 ? candidates[i].peakFlopsPerSecond * fastest : 0);
    selection.gainShares.push_back(
        totalUs > 0 ? timesUs[i] * (1 - fraction) / totalUs : 0);
  }
}

HotSelection selectHotDispatches(ArrayRef<HotCandidate> candidates,
                                 const HotPolicy &policy,
                                 const StringMap<double> *profile) {
  HotSelection selection;
  std::vector<double> weights;
  double total = 0;
  bool timed = !candidates.empty() &&
               llvm::all_of(candidates, [](const HotCandidate &c) {
                 return c.timeUs > 0;
               });
  for (const HotCandidate &c : candidates) {
    double weight = 0;
    if (profile) {
      for (const std::string &name : c.names) {
        auto it = profile->find(stripBenchmarkName(name));
        if (it != profile->end()) {
          weight = it->second;
          break;
        }
      }
    } else {
      weight = (timed ? c.timeUs : c.flops) * c.occurrences;
    }
    weights.push_back(weight);
    total += weight;
  }
  for (double w : weights)
    selection.shares.push_back(total > 0 ? w / total : 0);
  std::vector<double> orderWeights = weights;
  if (profile) {
    addTimeToGain(candidates, weights, total, selection);
    orderWeights = selection.gainShares;
  }
  std::vector<size_t> order(candidates.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return orderWeights[a] > orderWeights[b];
  });
  for (size_t i : order) {
    if (weights[i] <= 0 || selection.shares[i] < policy.minShare)
      continue;
    if (policy.topK && selection.selected.size() >= policy.topK)
      break;
    selection.selected.push_back(i);
  }
  return selection;
}

} // namespace retune::iree

namespace retune::iree {

std::vector<BenchOutcome> benchRoundRobin(const IreeTools &tools,
                                          ArrayRef<BenchRequest> requests,
                                          unsigned rounds) {
  std::vector<BenchOutcome> results(requests.size());
  auto suffixed = [](BenchRequest request, unsigned round) {
    std::string suffix = "." + std::to_string(round);
    request.logPath += suffix;
    if (!request.jsonPath.empty())
      request.jsonPath += suffix;
    return request;
  };
  auto append = [](BenchOutcome &into, const BenchOutcome &run) {
    if (into.startedAt == 0)
      into.startedAt = run.startedAt;
    into.seconds += run.seconds;
    into.samplesUs.insert(into.samplesUs.end(), run.samplesUs.begin(),
                          run.samplesUs.end());
    if (!run.samplesUs.empty())
      into.runMediansUs.push_back(stats::median(run.samplesUs));
    if (run.status != Status::Ok) {
      into.status = run.status;
      into.message = run.message;
    }
  };
  // Every build against the first: without it, or with nothing else left
  // to compare with it, the rounds stop.
  auto comparable = [&] {
    return results[0].status == Status::Ok &&
           llvm::any_of(llvm::drop_begin(results), [](const BenchOutcome &o) {
             return o.status == Status::Ok;
           });
  };
  size_t n = requests.size();
  // Round r starts with build r mod n: a disturbance that fades over the
  // rounds (seen at 2 threads on this machine right after a compile: a
  // baseline's first five samples 12.3-15.1 ms, its last 9.6-11.8 ms)
  // then slows every build in turn, not always the first.
  for (unsigned round = 0; round < rounds && n > 1 && comparable(); ++round)
    for (size_t i = 0; i < n; ++i) {
      size_t k = (round + i) % n;
      if (results[k].status != Status::Ok)
        continue;
      append(results[k], runBenchmark(tools, suffixed(requests[k], round)));
      if (!comparable())
        break;
    }
  return results;
}

InterleavedOutcome benchInterleaved(const IreeTools &tools,
                                    const BenchRequest &baseline,
                                    const BenchRequest &tuned,
                                    unsigned rounds) {
  std::vector<BenchOutcome> both =
      benchRoundRobin(tools, {baseline, tuned}, rounds);
  return {std::move(both[0]), std::move(both[1])};
}

} // namespace retune::iree
