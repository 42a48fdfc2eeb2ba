//===- CompileMain.cpp - retune-compile: spec + payload -> shared object --===//
//
// Compiles one payload (a dispatch or a whole model) with one spec (or none:
// the baseline) into a shared object, and writes a compile record. The work
// runs in a child process (this binary re-executed with --child) under a
// time and memory limit, so a crash, hang or verifier error of the compiler
// becomes a record with its reason and exit status 0.
//
//===----------------------------------------------------------------------===//
#include "cache/CacheKeys.h"
#include "cache/ContentCache.h"
#include "stages/backends/mlircpu/CpuCompiler.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"
#include "stages/core/Subprocess.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <map>

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-compile options");
static cl::opt<std::string> payloadPath("payload", cl::Required,
                                        cl::desc("MLIR module to compile"),
                                        cl::cat(category));
static cl::opt<std::string>
    specPath("spec", cl::desc("tuning spec (omit for the baseline)"),
             cl::cat(category));
static cl::opt<std::string> outputPath("output", cl::Required,
                                       cl::desc("shared object to write"),
                                       cl::cat(category));
static cl::opt<std::string> recordPath("record", cl::Required,
                                       cl::desc("compile record to write"),
                                       cl::cat(category));
static cl::opt<unsigned> threads("code-threads", cl::init(1),
                                 cl::desc("threads of the generated code"),
                                 cl::cat(category));
static cl::opt<unsigned> timeoutSeconds("timeout", cl::init(120),
                                        cl::desc("seconds before the compile is killed"),
                                        cl::cat(category));
static cl::opt<unsigned> memoryMB("memory-mb", cl::init(8192),
                                  cl::desc("memory limit of the compile (MiB)"),
                                  cl::cat(category));
static cl::opt<std::string>
    cacheDir("cache-dir",
             cl::desc("content-addressed cache (default: $RETUNE_CACHE_DIR, "
                      "else ~/.cache/retune; 'off' disables it)"),
             cl::cat(category));
static cl::opt<bool> child("child", cl::Hidden,
                           cl::desc("internal: do the work in this process"));
static cl::opt<std::string> childKey("key", cl::Hidden,
                                     cl::desc("internal: the record's key"));

/// RETUNE_INJECT_FAULT="kind:substring[,kind:substring]" makes the compile
/// of any spec whose path contains `substring` crash, hang or compute wrong
/// numbers. Tests use it to prove failures become records.
static std::string faultFor(StringRef spec) {
  const char *env = std::getenv("RETUNE_INJECT_FAULT");
  if (!env || spec.empty())
    return {};
  SmallVector<StringRef> items;
  StringRef(env).split(items, ',', -1, false);
  for (StringRef item : items) {
    auto [kind, needle] = item.split(':');
    if (!needle.empty() && spec.contains(needle))
      return kind.str();
  }
  return {};
}

static Error runChild() {
  double startedAt = unixSeconds();
  // Copies, not the cl::opts: lld resets every option when it links.
  std::string output = outputPath, record = recordPath, key = childKey;
  cpu::CompileRequest request;
  request.payloadPath = payloadPath;
  request.specPath = specPath;
  request.outputPath = outputPath;
  request.threads = threads;
  request.injectFault = faultFor(specPath);
  Expected<cpu::CompileResult> result =
      cpu::compileToSharedObject(request, cpu::detectHost());
  if (!result)
    return result.takeError();
  CompileRecord compiled;
  compiled.status = Status::Ok;
  compiled.artifact = output;
  compiled.functions = std::move(result->functions);
  Expected<std::string> bytes = readFile(output);
  if (!bytes)
    return bytes.takeError();
  compiled.artifactHash = blake3Hex(*bytes);
  compiled.seconds = result->transformSeconds + result->lowerSeconds +
                     result->codegenSeconds + result->linkSeconds;
  compiled.startedAt = startedAt;
  compiled.key = key;
  compiled.message = formatv("transform {0:f3}s, lower {1:f3}s, codegen {2:f3}s, "
                           "link {3:f3}s",
                           result->transformSeconds, result->lowerSeconds,
                           result->codegenSeconds, result->linkSeconds)
                       .str();
  return writeJsonFile(record, toJson(compiled));
}

static Error compileInChild(const char *argv0, StringRef key);

/// Whether this build already holds the outcome of exactly this compile
/// (a run killed after the record was written, before Ninja logged it):
/// then there is nothing to redo. Timeouts and crashes may pass next time.
static bool alreadyDone(StringRef key) {
  if (!sys::fs::exists(recordPath))
    return false;
  Expected<CompileRecord> record = readRecord<CompileRecord>(
      recordPath, schema::kCompile, compileRecordFromJson);
  if (!record) {
    consumeError(record.takeError());
    return false;
  }
  if (record->key != key || record->status == Status::Timeout ||
      record->status == Status::Crash)
    return false;
  if (record->status != Status::Ok)
    return true;
  Expected<std::string> artifact = readFile(outputPath);
  if (!artifact) {
    consumeError(artifact.takeError());
    return false;
  }
  return blake3Hex(*artifact) == record->artifactHash;
}

/// The cache key of this compile: tool, LLVM, host, inputs and flags.
static Expected<std::string> compileKey(const char *argv0) {
  Expected<std::string> payload = readFile(payloadPath);
  if (!payload)
    return payload.takeError();
  std::string specHash;
  if (!specPath.empty()) {
    Expected<std::string> spec = readFile(specPath);
    if (!spec)
      return spec.takeError();
    specHash = blake3Hex(*spec);
  }
  return hostKey("compile", argv0)
      .add("payload", blake3Hex(*payload))
      .add("spec", specHash)
      .add("code-threads", threads.getValue())
      .hex(16);
}

/// Replays a cached compile into this build's output paths.
static Error restore(const std::map<std::string, std::string> &entry,
                     StringRef key) {
  auto record = entry.find("record.json");
  if (record == entry.end())
    return makeError("cache entry without a record");
  Expected<json::Value> value = json::parse(record->second);
  if (!value)
    return value.takeError();
  Expected<CompileRecord> compiled = compileRecordFromJson(*value);
  if (!compiled)
    return compiled.takeError();
  // This build spent (almost) no time on it.
  compiled->cached = true;
  compiled->key = key.str();
  compiled->startedAt = unixSeconds();
  compiled->seconds = 0;
  auto artifact = entry.find("artifact.so");
  if (compiled->status == Status::Ok) {
    // An ok compile without its object is a damaged entry: compile again.
    if (artifact == entry.end() ||
        blake3Hex(artifact->second) != compiled->artifactHash)
      return makeError("cache entry without its artifact");
    compiled->artifact = outputPath;
    if (Error err = writeFileAtomic(outputPath, artifact->second))
      return err;
  }
  return writeJsonFile(recordPath, toJson(*compiled));
}

/// Stores this build's outcome; timeouts may pass next time, so they are
/// not remembered.
static void remember(const ContentCache &cache, StringRef key) {
  Expected<CompileRecord> record = readRecord<CompileRecord>(
      recordPath, schema::kCompile, compileRecordFromJson);
  if (!record || record->status == Status::Timeout) {
    if (!record)
      consumeError(record.takeError());
    return;
  }
  std::map<std::string, std::string> entry;
  entry["record.json"] = formatv("{0}", toJson(*record)).str();
  if (record->status == Status::Ok) {
    Expected<std::string> artifact = readFile(outputPath);
    if (!artifact) {
      consumeError(artifact.takeError());
      return;
    }
    entry["artifact.so"] = std::move(*artifact);
  }
  // A full disk must not fail the build: the cache is an optimization.
  consumeError(cache.store(key, entry));
}

static Error runParent(const char *argv0) {
  // Injected faults must really happen: they bypass the cache.
  bool faulty = !faultFor(specPath).empty();
  ContentCache cache(faulty ? "" : ContentCache::rootFor(cacheDir));
  std::string key;
  if (sys::fs::exists(payloadPath)) {
    Expected<std::string> computed = compileKey(argv0);
    if (!computed)
      return computed.takeError();
    key = *computed;
    if (!faulty && alreadyDone(key)) {
      keepNewerThanInputs(recordPath, {payloadPath, specPath});
      return Error::success();
    }
  }
  if (cache.enabled() && !key.empty()) {
    if (auto entry = cache.lookup(key)) {
      if (Error err = restore(*entry, key))
        consumeError(std::move(err)); // a bad entry: compile instead
      else
        return Error::success();
    }
  }
  if (Error err = compileInChild(argv0, key))
    return err;
  if (cache.enabled() && !key.empty())
    remember(cache, key);
  return Error::success();
}

static Error compileInChild(const char *argv0, StringRef key) {
  std::vector<std::string> args = {"--child", "--key=" + key.str(),
                                   "--payload=" + payloadPath,
                                   "--output=" + outputPath,
                                   "--record=" + recordPath,
                                   "--code-threads=" + std::to_string(threads)};
  if (!specPath.empty())
    args.push_back("--spec=" + specPath);
  if (!sys::fs::exists(payloadPath))
    return makeError(payloadPath + ": no such file");
  // A stale record must not survive a failed compile.
  sys::fs::remove(recordPath);
  std::string logPath = recordPath + ".log";
  sys::fs::remove(logPath);
  ChildOutcome outcome = runLimited(currentExecutable(argv0), args,
                                    timeoutSeconds, memoryMB, logPath);
  if (outcome.status == Status::Ok && sys::fs::exists(recordPath)) {
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
  sys::fs::remove(outputPath);
  return writeJsonFile(recordPath, toJson(record));
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-compile: compile an MLIR module with a tuning spec into a "
      "shared object for this CPU.\n\nFailures of the compile itself (errors, "
      "crashes, timeouts) are written to --record with status != ok and exit "
      "code 0; only bad invocations exit non-zero.\n");
  if (child)
    return finishTool("retune-compile", runChild());
  return finishTool("retune-compile", runParent(argv[0]));
}
