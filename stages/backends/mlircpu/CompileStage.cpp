//===- CompileStage.cpp - A payload + a spec -> shared object + record ---===//
//
// Compiles one payload (a dispatch or a whole model) with one spec (or none:
// the baseline) into a shared object, and writes a compile record. The work
// runs in a child process (retune-compile-worker, started through the
// stage's ProcessRunner) under a time and memory limit, so a crash, hang or
// verifier error of the compiler becomes a record with its reason and exit
// status 0.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/CompileStage.h"

#include "cache/CacheKeys.h"
#include "cache/CachedStep.h"
#include "stages/backends/mlircpu/CompileWorker.h"
#include "stages/core/Subprocess.h"
#include "stages/support/FaultInjection.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <map>

using namespace llvm;
using namespace retune;

namespace retune::mlircpu {

static Error compileInChild(const CompileOptions &options, const char *argv0,
                            ProcessRunner &processes, StringRef key);

/// This compile's files: the record, the shared object and its blob name.
static CompileFiles compileFiles(const CompileOptions &options) {
  return {options.recordPath, options.outputPath, "artifact.so"};
}

/// The worker beside this tool: its bytes are part of every compile's key.
static std::string workerPath(const char *argv0) {
  return siblingTool(argv0, "retune-compile-worker");
}

/// The cache key of this compile: tool, LLVM, host, inputs and flags.
static Expected<std::string> compileKey(const CompileOptions &options,
                                        const char *argv0) {
  Expected<std::string> payload = readFile(options.payloadPath);
  if (!payload)
    return payload.takeError();
  std::string specHash;
  if (!options.specPath.empty()) {
    Expected<std::string> spec = readFile(options.specPath);
    if (!spec)
      return spec.takeError();
    specHash = blake3Hex(*spec);
  }
  return hostKey("compile", argv0)
      .add("worker", toolIdentity(workerPath(argv0).c_str()))
      .add("payload", blake3Hex(*payload))
      .add("spec", specHash)
      .add("code-threads", options.threads)
      .add("compiler-flags", join(options.compilerFlags, "\n"))
      .hex(16);
}

Error runCompileStage(const CompileOptions &options, const char *argv0,
                      ProcessRunner &processes) {
  // Injected faults (crash, hang, wrong: keyed on the spec's path) must
  // really happen: they bypass the cache.
  bool faulty = !injectedFault(options.specPath).empty();
  ContentCache cache(faulty ? "" : ContentCache::rootFor(options.cacheDir));
  CachedStep step;
  if (sys::fs::exists(options.payloadPath)) {
    Expected<std::string> key = compileKey(options, argv0);
    if (!key)
      return key.takeError();
    if (!faulty)
      step.key = *key;
  }
  CompileFiles files = compileFiles(options);
  step.alreadyDone = [&](StringRef key) {
    // A run killed after the record was written, before Ninja logged it.
    if (!compileAlreadyDone(files, key))
      return false;
    keepNewerThanInputs(options.recordPath,
                        {options.payloadPath, options.specPath});
    return true;
  };
  step.restore = [&](const CacheEntry &entry, StringRef key) {
    return restoreCompile(files, entry, key);
  };
  step.run = [&](StringRef key) {
    return compileInChild(options, argv0, processes, key);
  };
  step.outcome = [&] {
    // Timeouts may pass next time, so they are not remembered.
    return compileOutcome(files, [](Status status) {
      return status != Status::Timeout;
    });
  };
  return runCachedStep(cache, step);
}

static Error compileInChild(const CompileOptions &options, const char *argv0,
                            ProcessRunner &processes, StringRef key) {
  std::vector<std::string> args = {
      "--key=" + key.str(), "--payload=" + options.payloadPath,
      "--output=" + options.outputPath, "--record=" + options.recordPath,
      "--code-threads=" + std::to_string(options.threads)};
  if (!options.specPath.empty())
    args.push_back("--spec=" + options.specPath);
  std::string fault = injectedFault(options.specPath);
  if (!fault.empty())
    args.push_back("--inject-fault=" + fault);
  for (const std::string &flag : options.compilerFlags)
    args.push_back("--compiler-flag=" + flag);
  if (!sys::fs::exists(options.payloadPath))
    return makeError(options.payloadPath + ": no such file");
  // A stale record must not survive a failed compile.
  sys::fs::remove(options.recordPath);
  std::string logPath = options.recordPath + ".log";
  sys::fs::remove(logPath);
  ChildOutcome outcome =
      processes.run(workerPath(argv0), args, options.timeoutSeconds,
                    options.memoryMB, logPath);
  // A flag the compiler does not know fails every candidate alike: the
  // invocation is broken, not this candidate.
  if (outcome.status == Status::CompileError &&
      outcome.exitCode == kUnknownCompilerFlagExit)
    return makeError(logTail(logPath));
  if (outcome.status == Status::Ok && sys::fs::exists(options.recordPath)) {
    sys::fs::remove(logPath);
    return Error::success();
  }
  CompileRecord record;
  record.status = outcome.status == Status::Ok ? Status::Crash : outcome.status;
  record.message = outcome.message.empty()
                       ? "the compiler exited without writing a record"
                       : outcome.message;
  record.seconds = outcome.seconds;
  record.startedAt = outcome.startedAt;
  record.key = key.str();
  sys::fs::remove(options.outputPath);
  return writeJsonFile(options.recordPath, toJson(record));
}

} // namespace retune::mlircpu
