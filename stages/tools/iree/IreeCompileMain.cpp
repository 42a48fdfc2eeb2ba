//===- IreeCompileMain.cpp - retune-iree-compile: spec + dispatch -> vmfb -===//
//
// `iree-compile <dispatch> --compile-from=executable-sources` with one spec,
// under a timeout, with a crash reproducer next to the vmfb. Compile errors,
// crashes, timeouts and a vmfb that was not written are the record's status
// (exit 0); the record of an Ok compile carries the vmfb's hash, by which
// retune-iree-bench recognizes identical modules. Like every compile step
// it runs through runCachedStep: an outcome compiled before by the same
// iree-compile, flags and retune tool is replayed from the cache.
//
//===----------------------------------------------------------------------===//
#include "cache/CacheKeys.h"
#include "cache/CachedStep.h"
#include "stages/backends/iree/IreeRun.h"
#include "stages/tools/iree/ToolOptions.h"
#include "stages/support/FileUtil.h"
#include "stages/support/ToolMain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace retune;
using namespace retune::iree;

static cl::opt<std::string> inputPath("input", cl::Required,
                                      cl::desc("dispatches/<id>/dispatch.mlir"),
                                      cl::cat(tools::category()));
static cl::opt<std::string> specPath("spec", cl::desc("tuning spec"),
                                     cl::cat(tools::category()));
static cl::opt<std::string> vmfbPath("vmfb", cl::Required,
                                     cl::desc("module to write"),
                                     cl::cat(tools::category()));
static cl::opt<std::string> recordPath("record", cl::Required,
                                       cl::desc("compile record to write"),
                                       cl::cat(tools::category()));
static cl::opt<unsigned> timeoutSeconds("timeout", cl::init(16),
                                        cl::desc("seconds before the compile "
                                                 "is killed"),
                                        cl::cat(tools::category()));
static cl::opt<unsigned> memoryMB("memory-mb", cl::init(0),
                                  cl::desc("memory limit (MiB, 0: none)"),
                                  cl::cat(tools::category()));

static cl::opt<std::string>
    cacheDir("cache-dir",
             cl::desc("content-addressed cache (default: $RETUNE_CACHE_DIR, "
                      "else ~/.cache/retune; 'off' disables it)"),
             cl::cat(tools::category()));

/// The cache key: this tool, IREE's version and compiler, the flags, the
/// dispatch and the spec.
static std::string compileKey(const char *argv0, const IreeTools &iree,
                              const CompileRequest &request,
                              StringRef input) {
  std::string specHash;
  if (!specPath.empty()) {
    Expected<std::string> spec = readFile(specPath);
    if (!spec) {
      consumeError(spec.takeError());
      return ""; // the compile reports the missing spec
    }
    specHash = blake3Hex(*spec);
  }
  return hostKey("iree-compile", argv0)
      .add("iree", iree.version.text)
      .add("iree_compile", iree.compile)
      .add("flags", join(request.flags, "\n"))
      .add("family", request.family)
      .add("input", blake3Hex(input))
      .add("spec", specHash)
      .hex(16);
}

static Expected<CompileRecord> readOwnRecord() {
  return readRecord<CompileRecord>(recordPath, schema::kCompile,
                                   compileRecordFromJson);
}

/// Outcomes that repeat: a timeout or a crash may pass next time.
static bool isFinal(const CompileRecord &record) {
  return record.status != Status::Timeout && record.status != Status::Crash;
}

static bool vmfbMatches(const CompileRecord &record) {
  Expected<std::string> vmfb = readFile(vmfbPath);
  if (!vmfb) {
    consumeError(vmfb.takeError());
    return false;
  }
  return blake3Hex(*vmfb) == record.artifactHash;
}

static bool alreadyDone(StringRef key) {
  if (!sys::fs::exists(recordPath))
    return false;
  Expected<CompileRecord> record = readOwnRecord();
  if (!record) {
    consumeError(record.takeError());
    return false;
  }
  return record->key == key && isFinal(*record) &&
         (record->status != Status::Ok || vmfbMatches(*record));
}

static Error restore(const CacheEntry &entry, StringRef key) {
  Expected<CompileRecord> record =
      replayedRecord<CompileRecord>(entry, key, compileRecordFromJson);
  if (!record)
    return record.takeError();
  if (record->status == Status::Ok) {
    auto vmfb = entry.find("artifact.vmfb");
    if (vmfb == entry.end() || blake3Hex(vmfb->second) != record->artifactHash)
      return makeError("cache entry without its module");
    record->artifact = vmfbPath;
    if (Error err = writeFileAtomic(vmfbPath, vmfb->second))
      return err;
  }
  return writeJsonFile(recordPath, toJson(*record));
}

static std::optional<CacheEntry> outcome() {
  Expected<CompileRecord> record = readOwnRecord();
  if (!record || !isFinal(*record)) {
    if (!record)
      consumeError(record.takeError());
    return std::nullopt;
  }
  CacheEntry entry{{"record.json", formatv("{0}", toJson(*record)).str()}};
  if (record->status == Status::Ok) {
    Expected<std::string> vmfb = readFile(vmfbPath);
    if (!vmfb) {
      consumeError(vmfb.takeError());
      return std::nullopt;
    }
    entry["artifact.vmfb"] = std::move(*vmfb);
  }
  return entry;
}

static Error run(const char *argv0) {
  Expected<std::string> input = readFile(inputPath);
  if (!input)
    return input.takeError();
  Expected<IreeTools> ireeTools =
      tools::toolsFromOptions(sys::path::parent_path(recordPath));
  if (!ireeTools)
    return ireeTools.takeError();
  CompileRequest request;
  request.input = inputPath;
  request.specPath = specPath;
  request.vmfbPath = vmfbPath;
  request.reproducerPath = vmfbPath + ".crash.mlir";
  request.logPath = recordPath + ".log";
  request.flags = tools::compileFlags();
  request.family = tools::targetFamily(*input, inputPath);
  request.timeoutSeconds = timeoutSeconds;
  request.memoryMB = memoryMB;
  CachedStep step;
  step.key = compileKey(argv0, *ireeTools, request, *input);
  step.alreadyDone = alreadyDone;
  step.restore = restore;
  step.run = [&](StringRef key) {
    // A stale reproducer must not be blamed on this compile.
    sys::fs::remove(request.reproducerPath);
    CompileRecord record = compileCandidate(*ireeTools, request);
    record.key = key.str();
    return writeJsonFile(recordPath, toJson(record));
  };
  step.outcome = outcome;
  return runCachedStep(ContentCache(ContentCache::rootFor(cacheDir)), step);
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  tools::parseOptions(
      argc, argv,
      "retune-iree-compile: compile a dispatch benchmark with a tuning spec "
      "into a vmfb and write a compile record.\n\nFailures of the compile "
      "(errors, crashes, timeouts, no vmfb) are records with exit code 0.\n");
  return finishTool("retune-iree-compile", run(argv[0]));
}
