//===- ModelRun.cpp - Building and timing the whole model -----------------===//
#include "stages/tools/iree/ModelRun.h"

#include "stages/tools/iree/ToolOptions.h"
#include "stages/support/DeviceLock.h"

using namespace llvm;

namespace retune::iree::tools {
namespace {
cl::opt<std::string> modelPath("model", cl::Required, cl::desc("the model"),
                               cl::cat(category()));
cl::opt<std::string> workDir("work-dir", cl::Required,
                             cl::desc("directory for the model's builds"),
                             cl::cat(category()));
cl::opt<std::string> device("device", cl::init("hip://0"),
                            cl::desc("device URI"), cl::cat(category()));
cl::opt<std::string> entry("entry",
                           cl::desc("function to benchmark (default: the "
                                    "only public one)"),
                           cl::cat(category()));
cl::opt<unsigned> repetitions("repetitions", cl::init(5),
                              cl::desc("--benchmark_repetitions per run"),
                              cl::cat(category()));
cl::opt<unsigned> rounds("rounds", cl::init(3),
                         cl::desc("reference/other alternations"),
                         cl::cat(category()));
cl::opt<unsigned> compileTimeout("compile-timeout", cl::init(120),
                                 cl::cat(category()));
cl::opt<unsigned> benchTimeout("bench-timeout", cl::init(600),
                               cl::cat(category()));

/// How the spec is passed depends on the target family; the model names no
/// target, its compile flags do.
std::string familyOfFlags(ArrayRef<std::string> flags) {
  for (StringRef flag : flags)
    if (flag.contains("llvm-cpu") || flag.ends_with("=local"))
      return "cpu";
  return "gpu";
}
} // namespace

StringRef modelFile() { return modelPath; }
StringRef modelDevice() { return device; }
StringRef workDirectory() { return workDir; }

std::string inWork(const Twine &name) {
  return (Twine(workDir.getValue()) + "/" + name).str();
}

Expected<ModelRunner> ModelRunner::create(const IreeTools &tools) {
  Expected<ModelInvocation> invocation =
      resolveModelInvocation(modelPath, entry, benchFlags());
  if (!invocation)
    return invocation.takeError();
  return ModelRunner(tools, std::move(*invocation));
}

CompileRecord ModelRunner::compile(StringRef tag, StringRef spec,
                                   ArrayRef<std::string> extraFlags) const {
  CompileRequest request;
  request.input = modelPath;
  request.specPath = spec.str();
  request.vmfbPath = inWork(tag + ".vmfb");
  request.logPath = inWork(tag + ".compile.log");
  request.flags = compileFlags();
  request.flags.insert(request.flags.end(), extraFlags.begin(), extraFlags.end());
  request.family = familyOfFlags(request.flags);
  request.fromExecutableSources = false;
  request.timeoutSeconds = compileTimeout;
  return compileCandidate(*tools, request);
}

Error ModelRunner::makeReference(StringRef referenceTag) {
  if (tools->run.empty()) {
    errs() << "note: no iree-run-module beside " << tools->benchmark
           << "; results are not checked\n";
    return Error::success();
  }
  Expected<std::vector<std::string>> seeded =
      seedInputs(invocation.flags, workDir, /*seed=*/1);
  if (!seeded)
    return seeded.takeError();
  // Only the inputs: other benchmark flags are iree-benchmark-module's.
  for (const std::string &flag : *seeded)
    if (StringRef(flag).starts_with("--input"))
      seededInputs.push_back(flag);
  Expected<Reference> written =
      writeReference(*tools, runRequest(referenceTag), inWork("reference"));
  if (!written)
    return written.takeError();
  reference = std::move(*written);
  return Error::success();
}

OutputCheck ModelRunner::check(StringRef tag) const {
  if (!reference)
    return {};
  return checkOutputs(*tools, runRequest(tag), *reference);
}

InterleavedOutcome ModelRunner::timeAgainst(StringRef referenceTag,
                                            StringRef tag) const {
  // The device is measured by one process at a time, across runs.
  Expected<DeviceLock> lock = DeviceLock::acquire(deviceLockName(device));
  if (!lock) {
    InterleavedOutcome failed;
    failed.baseline.status = Status::BenchError;
    failed.baseline.message = toString(lock.takeError());
    return failed;
  }
  return benchInterleaved(*tools, benchRequest(referenceTag), benchRequest(tag),
                          rounds);
}

BenchRequest ModelRunner::benchRequest(StringRef tag) const {
  BenchRequest request;
  request.vmfbPath = inWork(tag + ".vmfb");
  request.device = device;
  request.repetitions = repetitions;
  request.function = invocation.function;
  request.flags = invocation.flags;
  request.jsonPath = inWork(tag + ".bench.json");
  request.logPath = inWork(tag + ".bench.log");
  request.timeoutSeconds = benchTimeout;
  return request;
}

RunRequest ModelRunner::runRequest(StringRef tag) const {
  return {inWork(tag + ".vmfb"), device, invocation.function, seededInputs,
          inWork(tag + ".run.log"), benchTimeout};
}

} // namespace retune::iree::tools
