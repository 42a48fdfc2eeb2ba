//===- LinkStage.cpp - Spec files -> one linked spec, cached --------------===//
#include "stages/backends/mlircpu/LinkStage.h"

#include "cache/CacheKeys.h"
#include "cache/CachedStep.h"
#include "stages/core/Subprocess.h"
#include "stages/support/FileUtil.h"
#include "stages/support/HashedFile.h"
#include "stages/support/Hash.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace retune::mlircpu {
namespace {

constexpr StringLiteral kBlob = "linked.mlir";

std::string workerPath(const char *argv0) {
  return siblingTool(argv0, "retune-link-worker");
}

/// The linker's bytes, the header and every spec's bytes, in order.
Expected<std::string> linkKey(const LinkOptions &options, const char *argv0) {
  FieldHasher hasher = hostKey("link", argv0);
  hasher.add("worker", toolIdentity(workerPath(argv0).c_str()))
      .add("header", options.header)
      .add("specs", static_cast<int64_t>(options.specPaths.size()));
  for (const std::string &path : options.specPaths) {
    Expected<std::string> spec = readFile(path);
    if (!spec)
      return spec.takeError();
    hasher.add("spec", blake3Hex(*spec));
  }
  return hasher.hex(16);
}

Error linkInChild(const LinkOptions &options, const char *argv0,
                  ProcessRunner &processes) {
  std::vector<std::string> args = {"--output=" + options.outputPath,
                                   "--header=" + options.header};
  for (const std::string &path : options.specPaths)
    args.push_back("--spec=" + path);
  std::string logPath = options.outputPath + ".log";
  ChildOutcome outcome = processes.run(workerPath(argv0), args, 0, 0, logPath);
  if (outcome.status != Status::Ok)
    return makeError("linking " + options.outputPath +
                     " failed: " + outcome.message);
  sys::fs::remove(logPath);
  return Error::success();
}

} // namespace

Error runLinkStage(const LinkOptions &options, const char *argv0,
                   ProcessRunner &processes) {
  Expected<std::string> key = linkKey(options, argv0);
  if (!key)
    return key.takeError();
  ContentCache cache(ContentCache::rootFor(options.cacheDir));
  CachedStep step;
  step.key = *key;
  step.restore = [&](const CacheEntry &entry, StringRef) -> Error {
    auto linked = entry.find(kBlob.str());
    if (linked == entry.end())
      return makeError("cache entry without a linked spec");
    return writeHashedFile(options.outputPath, linked->second);
  };
  step.run = [&](StringRef) {
    return linkInChild(options, argv0, processes);
  };
  step.outcome = [&]() -> std::optional<CacheEntry> {
    Expected<std::string> linked = readFile(options.outputPath);
    if (!linked) {
      consumeError(linked.takeError());
      return std::nullopt;
    }
    return CacheEntry{{kBlob.str(), *linked}};
  };
  return runCachedStep(cache, step);
}

} // namespace retune::mlircpu
