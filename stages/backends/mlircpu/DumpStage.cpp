//===- DumpStage.cpp - Model -> dispatches, cached ------------------------===//
#include "stages/backends/mlircpu/DumpStage.h"

#include "cache/CacheKeys.h"
#include "cache/CachedStep.h"
#include "stages/core/Records.h"
#include "stages/core/Subprocess.h"
#include "stages/support/FileUtil.h"
#include "stages/support/HashedFile.h"
#include "stages/support/Hash.h"

#include "llvm/Support/FileSystem.h"

using namespace llvm;

namespace retune::mlircpu {
namespace {


/// Blob names of a dispatch's files in a cache entry (flat: no '/').
std::string irBlob(StringRef id) { return (id + ".dispatch.mlir").str(); }
std::string problemBlob(StringRef id) { return (id + ".problem.json").str(); }

std::string inOutput(const DumpOptions &options, const Twine &name) {
  return (Twine(options.outputDir) + "/" + name).str();
}

Expected<std::string> dumpKey(const DumpOptions &options, const char *argv0) {
  Expected<std::string> model = readFile(options.modelPath);
  if (!model)
    return model.takeError();
  return hostKey("dump", argv0)
      .add("worker",
           toolIdentity(siblingTool(argv0, "retune-dump-worker").c_str()))
      .add("model-path", options.modelPath)
      .add("model", blake3Hex(*model))
      .hex(16);
}

Expected<DispatchIndex> readIndex(const DumpOptions &options) {
  return readRecord<DispatchIndex>(inOutput(options, "index.json"),
                                   schema::kDispatches, dispatchIndexFromJson);
}

/// The index and every dispatch's IR and problem, as a cache entry.
std::optional<CacheEntry> dumpOutcome(const DumpOptions &options) {
  Expected<DispatchIndex> index = readIndex(options);
  Expected<std::string> indexText = readFile(inOutput(options, "index.json"));
  if (!index || !indexText) {
    consumeError(index.takeError());
    consumeError(indexText.takeError());
    return std::nullopt;
  }
  CacheEntry entry{{"index.json", *indexText}};
  for (const DispatchEntry &dispatch : index->dispatches) {
    Expected<std::string> ir =
        readFile(inOutput(options, dispatch.id + "/dispatch.mlir"));
    Expected<std::string> problem =
        readFile(inOutput(options, dispatch.id + "/problem.json"));
    if (!ir || !problem) {
      consumeError(ir.takeError());
      consumeError(problem.takeError());
      return std::nullopt;
    }
    entry[irBlob(dispatch.id)] = *ir;
    entry[problemBlob(dispatch.id)] = *problem;
  }
  return entry;
}

/// Writes a cached dump; an entry missing a dispatch's files, or holding IR
/// the index does not describe, is unusable.
Error restoreDump(const DumpOptions &options, const CacheEntry &entry) {
  auto indexText = entry.find("index.json");
  if (indexText == entry.end())
    return makeError("cache entry without a dispatch index");
  Expected<json::Value> value = json::parse(indexText->second);
  if (!value)
    return value.takeError();
  Expected<DispatchIndex> index = dispatchIndexFromJson(*value);
  if (!index)
    return index.takeError();
  for (const DispatchEntry &dispatch : index->dispatches) {
    auto ir = entry.find(irBlob(dispatch.id));
    auto problem = entry.find(problemBlob(dispatch.id));
    if (ir == entry.end() || problem == entry.end() ||
        blake3Hex(ir->second) != dispatch.irHash)
      return makeError("cache entry without intact files of dispatch " +
                       dispatch.id);
  }
  for (const DispatchEntry &dispatch : index->dispatches) {
    if (Error err =
            writeHashedFile(inOutput(options, dispatch.id + "/dispatch.mlir"),
                            entry.at(irBlob(dispatch.id))))
      return err;
    if (Error err =
            writeHashedFile(inOutput(options, dispatch.id + "/problem.json"),
                            entry.at(problemBlob(dispatch.id))))
      return err;
  }
  return writeHashedFile(inOutput(options, "index.json"), indexText->second);
}

Error dumpInChild(const DumpOptions &options, const char *argv0,
                  ProcessRunner &processes) {
  std::string logPath = inOutput(options, "dump.log");
  sys::fs::create_directories(options.outputDir);
  ChildOutcome outcome = processes.run(
      siblingTool(argv0, "retune-dump-worker"),
      {"--model=" + options.modelPath, "--output-dir=" + options.outputDir}, 0,
      0, logPath);
  // The worker's own message (the model's file and line) says what to fix.
  if (outcome.status != Status::Ok)
    return makeError(outcome.status == Status::CompileError
                         ? logTail(logPath)
                         : "the dump failed: " + outcome.message);
  sys::fs::remove(logPath);
  return Error::success();
}

} // namespace

Error runDumpStage(const DumpOptions &options, const char *argv0,
                   ProcessRunner &processes) {
  if (!sys::fs::exists(options.modelPath))
    return makeError(options.modelPath + ": no such file; check [model] path "
                                         "in tune.toml");
  Expected<std::string> key = dumpKey(options, argv0);
  if (!key)
    return key.takeError();
  ContentCache cache(ContentCache::rootFor(options.cacheDir));
  CachedStep step;
  step.key = *key;
  step.restore = [&](const CacheEntry &entry, StringRef) {
    return restoreDump(options, entry);
  };
  step.run = [&](StringRef) { return dumpInChild(options, argv0, processes); };
  step.outcome = [&] { return dumpOutcome(options); };
  return runCachedStep(cache, step);
}

} // namespace retune::mlircpu
