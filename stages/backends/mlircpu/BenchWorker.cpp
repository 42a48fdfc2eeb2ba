//===- BenchWorker.cpp - The measurement itself, in its own process -------===//
#include "stages/backends/mlircpu/BenchWorker.h"

#include "stages/backends/mlircpu/Measure.h"
#include "stages/support/FaultInjection.h"
#include "stages/support/FileUtil.h"

#include <chrono>
#include <thread>

using namespace llvm;
using namespace retune;

namespace retune::mlircpu {

static Expected<FuncSignature> pickFunction(const BenchWorkerOptions &options,
                                            const CompileRecord &record,
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

Error runBenchWorker(const BenchWorkerOptions &options) {
  double startedAt = unixSeconds();
  auto start = std::chrono::steady_clock::now();
  Expected<CompileRecord> baseline = readCompileRecord(options.baselinePath);
  if (!baseline)
    return baseline.takeError();
  Expected<CompileRecord> candidate = readCompileRecord(options.candidatePath);
  if (!candidate)
    return candidate.takeError();
  Expected<FuncSignature> signature =
      pickFunction(options, *baseline, options.baselinePath);
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
  record.key = options.key;
  record.slurm = slurmPlacementFromEnv();
  return writeJsonFile(options.outputPath, toJson(record));
}

} // namespace retune::mlircpu
