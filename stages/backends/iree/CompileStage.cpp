//===- CompileStage.cpp - A dispatch + a spec -> vmfb and record -------===//
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
#include "stages/backends/iree/CompileStage.h"

#include "stages/backends/iree/IreeIr.h"

#include "cache/CacheKeys.h"
#include "cache/CachedStep.h"
#include "stages/backends/iree/IreeReader.h"
#include "stages/backends/iree/IreeRun.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace retune;
using namespace retune::iree;

namespace retune::iree {

/// The cache key: this tool, IREE's version and compiler, the flags, the
/// dispatch and the spec.
static std::string compileKey(const CompileOptions &options,
                              const char *argv0, const IreeTools &iree,
                              const CompileRequest &request, StringRef input) {
  std::string specHash;
  if (!options.specPath.empty()) {
    Expected<std::string> spec = readFile(options.specPath);
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

/// This compile's files: the record, the module and its blob name.
static CompileFiles compileFiles(const CompileOptions &options) {
  return {options.recordPath, options.vmfbPath, "artifact.vmfb"};
}

Error runCompileStage(const CompileOptions &options, const char *argv0,
                      ProcessRunner &runner) {
  Expected<std::string> input = readFile(options.inputPath);
  if (!input)
    return input.takeError();
  Expected<IreeTools> ireeTools =
      toolsFrom(options.iree, sys::path::parent_path(options.recordPath),
                runner);
  if (!ireeTools)
    return ireeTools.takeError();
  CompileRequest request;
  request.input = options.inputPath;
  request.specPath = options.specPath;
  request.vmfbPath = options.vmfbPath;
  request.reproducerPath = options.vmfbPath + ".crash.mlir";
  request.logPath = options.recordPath + ".log";
  request.flags = options.iree.compileFlags;
  request.family = targetFamily(*input, options.inputPath,
                                IreeIrLibrary::forTool(options.iree.compile));
  request.timeoutSeconds = options.timeoutSeconds;
  request.memoryMB = options.memoryMB;
  CachedStep step;
  step.key = compileKey(options, argv0, *ireeTools, request, *input);
  CompileFiles files = compileFiles(options);
  step.alreadyDone = [&](StringRef key) {
    return compileAlreadyDone(files, key);
  };
  step.restore = [&](const CacheEntry &entry, StringRef key) {
    return restoreCompile(files, entry, key);
  };
  step.run = [&](StringRef key) {
    // A stale reproducer must not be blamed on this compile.
    sys::fs::remove(request.reproducerPath);
    CompileRecord record = compileCandidate(*ireeTools, request);
    record.key = key.str();
    return writeJsonFile(options.recordPath, toJson(record));
  };
  step.outcome = [&] {
    // A timeout or a crash may pass next time.
    return compileOutcome(files, [](Status status) {
      return status != Status::Timeout && status != Status::Crash;
    });
  };
  return runCachedStep(ContentCache(ContentCache::rootFor(options.cacheDir)),
                       step);
}

} // namespace retune::iree
