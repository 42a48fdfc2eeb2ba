//===- IreeBenchMain.cpp - retune-iree-bench: vmfb -> measurement ---------===//
//
// Runs iree-benchmark-module on one device and writes the samples (seconds)
// as a bench record without a baseline: retune-iree-rank relates it to the
// same device's baseline. With --reuse-dir, a module whose hash was already
// measured on this device reuses that measurement (identical vmfbs of
// different candidates are benchmarked once). With --baseline-record, a
// module identical to the baseline's is `not_applied` and not measured.
// Failures are records.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/IreeRun.h"
#include "stages/tools/iree/ToolOptions.h"
#include "stages/support/DeviceLock.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace retune;
using namespace retune::iree;

static cl::opt<std::string> compileRecordPath("compile-record", cl::Required,
                                              cl::desc("artifacts/<id>/<n>.json"),
                                              cl::cat(tools::category()));
static cl::opt<std::string> outputPath("output", cl::Required,
                                       cl::desc("measurement record to write"),
                                       cl::cat(tools::category()));
static cl::opt<std::string> device("device", cl::Required,
                                   cl::desc("IREE device URI (hip://0, "
                                            "local-task, ...)"),
                                   cl::cat(tools::category()));
static cl::opt<unsigned> repetitions("repetitions", cl::init(5),
                                     cl::desc("--benchmark_repetitions"),
                                     cl::cat(tools::category()));
static cl::opt<unsigned> timeoutSeconds("timeout", cl::init(300),
                                        cl::desc("seconds before the "
                                                 "benchmark is killed"),
                                        cl::cat(tools::category()));
static cl::opt<std::string>
    baselineRecordPath("baseline-record",
                       cl::desc("the baseline's compile record: a candidate "
                                "whose module is identical is not_applied"),
                       cl::cat(tools::category()));
static cl::opt<std::string> reuseDir("reuse-dir",
                                     cl::desc("measurements by module hash "
                                              "and device"),
                                     cl::cat(tools::category()));

namespace {

std::string reusePath(const CompileRecord &compiled) {
  FieldHasher key;
  key.add("module", compiled.artifactHash).add("device", device.getValue());
  return reuseDir + "/" + key.hex(16) + ".json";
}

BenchRecord measure(const IreeTools &ireeTools, const CompileRecord &compiled) {
  BenchRequest request;
  request.vmfbPath = compiled.artifact;
  request.device = device;
  request.repetitions = repetitions;
  request.jsonPath = outputPath + ".gbench.json";
  request.logPath = outputPath + ".log";
  request.timeoutSeconds = timeoutSeconds;
  BenchOutcome outcome = runBenchmark(ireeTools, request);
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

Error run() {
  Expected<CompileRecord> compiled = tools::readCompileRecord(compileRecordPath);
  if (!compiled)
    return compiled.takeError();
  if (compiled->status != Status::Ok) {
    BenchRecord failed;
    failed.status = compiled->status;
    failed.message = "compile: " + compiled->message;
    return writeJsonFile(outputPath, toJson(failed));
  }
  if (!baselineRecordPath.empty()) {
    Expected<CompileRecord> baseline =
        tools::readCompileRecord(baselineRecordPath);
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
      return writeJsonFile(outputPath, toJson(same));
    }
  }
  if (!reuseDir.empty() && sys::fs::exists(reusePath(*compiled))) {
    Expected<BenchRecord> earlier = tools::readBenchRecord(reusePath(*compiled));
    if (earlier) {
      earlier->message = "identical module (" +
                         compiled->artifactHash.substr(0, 16) +
                         ") measured before on " + device + "; reused";
      earlier->startedAt = unixSeconds();
      earlier->seconds = 0;
      return writeJsonFile(outputPath, toJson(*earlier));
    }
    consumeError(earlier.takeError()); // A damaged entry: measure again.
  }
  Expected<IreeTools> ireeTools =
      tools::toolsFromOptions(sys::path::parent_path(outputPath));
  if (!ireeTools)
    return ireeTools.takeError();
  // One measurement per device on this machine, whichever run asks (two
  // build directories, a nightly job beside a developer).
  Expected<DeviceLock> lock = DeviceLock::acquire(deviceLockName(device));
  if (!lock)
    return lock.takeError();
  BenchRecord record = measure(*ireeTools, *compiled);
  if (!reuseDir.empty() && record.status == Status::Ok)
    if (Error err = writeJsonFile(reusePath(*compiled), toJson(record)))
      return err;
  return writeJsonFile(outputPath, toJson(record));
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-bench: benchmark a compiled module with "
      "iree-benchmark-module on one device and write its samples.\n\nA "
      "module that did not compile, crashes, hangs or reports an error gets "
      "a record with that status and exit code 0.\n");
  return finishTool("retune-iree-bench", run());
}
