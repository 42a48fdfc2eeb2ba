//===- CandidatesStage.cpp - The CPU space of a dispatch -> specs -------===//
//
// Enumerates the CPU knob space of one dispatch with Z3, orders it by the
// cost heuristic and writes the first N configurations as spec files plus
// an index. Unchanged specs keep their mtime, so growing N only adds
// candidates; specs beyond N are removed. The index and its specs are
// stored in the content cache: a warm replay in a fresh build directory
// restores them instead of enumerating again.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/CandidatesStage.h"

#include "cache/CacheKeys.h"
#include "cache/CachedStep.h"
#include "stages/backends/mlircpu/CpuSpec.h"
#include "stages/core/Records.h"
#include "stages/core/Selection.h"
#include "stages/search/cpu/CpuSpace.h"
#include "stages/search/ranker/Ranker.h"
#include "stages/support/FileUtil.h"
#include "stages/support/HashedFile.h"
#include "stages/support/Hash.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <chrono>

using namespace llvm;
using namespace retune;

namespace retune::mlircpu {

/// Removes spec files of an earlier, larger candidate set.
static void removeStaleSpecs(StringRef dir, unsigned keep) {
  removeNumberedFiles(dir, ".spec.mlir", keep);
}

/// BLAKE3 of the file at `path`; empty for no path.
static Expected<std::string> hashOfOptionalFile(StringRef path) {
  if (path.empty())
    return "";
  Expected<std::string> bytes = readFile(path);
  if (!bytes)
    return bytes.takeError();
  return blake3Hex(*bytes);
}

/// What the index is made from: the tool, the problem and the options.
static Expected<std::string> indexKey(const CandidatesOptions &options,
                                      const char *argv0) {
  Expected<std::string> problem = readFile(options.problemPath);
  if (!problem)
    return problem.takeError();
  Expected<std::string> verified = hashOfOptionalFile(options.verifiedPath);
  if (!verified)
    return verified.takeError();
  Expected<std::string> ranker = hashOfOptionalFile(options.rankerModelPath);
  if (!ranker)
    return ranker.takeError();
  return hostKey("candidates", argv0)
      .add("problem", blake3Hex(*problem))
      .add("count", options.candidateCount)
      .add("code-threads", options.threads)
      .add("skip", options.skipReason)
      .add("verified", *verified)
      .add("ranker", *ranker)
      .add("explore", options.explore)
      .hex(16);
}

/// Whether the index in the output directory was made from the same
/// inputs and its specs are intact (a run killed before Ninja logged it):
/// rewriting it would only move its timestamps and re-plan.
static bool alreadyDone(const CandidatesOptions &options, StringRef key) {
  std::string path = options.outputDir + "/index.json";
  if (!sys::fs::exists(path))
    return false;
  Expected<CandidateIndex> index = readRecord<CandidateIndex>(
      path, schema::kCandidates, candidateIndexFromJson);
  if (!index) {
    consumeError(index.takeError());
    return false;
  }
  if (index->key != key)
    return false;
  return llvm::all_of(index->candidates, [&](const CandidateEntry &c) {
    Expected<std::string> spec = readFile(options.outputDir + "/" + c.file);
    if (!spec) {
      consumeError(spec.takeError());
      return false;
    }
    return blake3Hex(*spec) == c.specHash;
  });
}

/// The learned order looks at most this many of the heuristic's best:
/// features cost a cost estimate each, and a space of 200000 would make the
/// step slow for candidates the heuristic deems hopeless anyway.
static constexpr size_t kRankedPool = 4096;

/// Indices into `ranked` (the heuristic's order) of the `count` candidates
/// to emit: the heuristic's first, spread across blocking strategies
/// (cpu::spreadAcrossStrategies), or with a ranker model the model's first,
/// keeping the heuristic's best `options.explore` among them.
/// Records the order used in `index`.
static Expected<std::vector<size_t>>
chooseCandidates(const CandidatesOptions &options, const Problem &problem,
                 const cpu::CpuHost &host, ArrayRef<cpu::RankedConfig> ranked,
                 unsigned count, CandidateIndex &index) {
  size_t emitted = std::min<size_t>(count, ranked.size());
  if (options.rankerModelPath.empty())
    return cpu::spreadAcrossStrategies(ranked, emitted);
  std::vector<size_t> chosen;
  Expected<ranker::RankerModel> model =
      ranker::readRankerModel(options.rankerModelPath);
  if (!model)
    return model.takeError();
  std::vector<cpu::CpuConfig> pool;
  for (const cpu::RankedConfig &r : ranked.take_front(
           std::min(ranked.size(), std::max(kRankedPool, emitted))))
    pool.push_back(r.config);
  Expected<ranker::RankedOrder> order =
      ranker::rankConfigs(&*model, problem, host, pool);
  if (!order)
    return order.takeError();
  index.order = order->order;
  index.orderWhy = order->why;
  // The heuristic's best `explore` are kept; the model fills the rest.
  size_t kept = std::min<size_t>(options.explore, emitted);
  size_t learnedSlots = emitted - kept;
  chosen.clear();
  for (size_t n : order->permutation) {
    if (chosen.size() == emitted)
      break;
    if (n < kept)
      chosen.push_back(n);
    else if (learnedSlots > 0) {
      chosen.push_back(n);
      --learnedSlots;
    }
  }
  return chosen;
}

/// Enumerates the space (or records why not) and writes the specs and the
/// index keyed `key`.
static Error writeCandidates(const CandidatesOptions &options,
                             const DispatchEntry &entry, StringRef key) {
  CandidateIndex index;
  index.dispatch = entry.id;
  index.key = key.str();
  index.startedAt = unixSeconds();
  if (!options.skipReason.empty()) {
    index.note = options.skipReason;
    removeStaleSpecs(options.outputDir, 0);
    return writeHashedJsonFile(options.outputDir + "/index.json", toJson(index));
  }
  Expected<bool> kept = select::keepVerifiedWinner(options.verifiedPath,
                                                   options.outputDir, index);
  if (!kept)
    return kept.takeError();
  if (*kept) {
    removeStaleSpecs(options.outputDir, 1);
    return writeHashedJsonFile(options.outputDir + "/index.json", toJson(index));
  }
  cpu::CpuHost host = cpu::detectHost();
  cpu::CpuSpaceOptions spaceOptions;
  spaceOptions.threads = options.threads;
  auto start = std::chrono::steady_clock::now();
  Expected<cpu::CpuSpaceResult> space =
      cpu::enumerateCpuSpace(entry.problem, host, spaceOptions);
  index.enumerationSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  // A dispatch outside the CPU space is not a pipeline error: it keeps the
  // default config and the report says why.
  if (!space) {
    index.note = toString(space.takeError());
    removeStaleSpecs(options.outputDir, 0);
    return writeHashedJsonFile(options.outputDir + "/index.json", toJson(index));
  }
  index.totalSolutions = space->totalSolutions;
  Expected<std::vector<size_t>> chosen =
      chooseCandidates(options, entry.problem, host, space->ranked,
                       options.candidateCount, index);
  if (!chosen)
    return chosen.takeError();
  unsigned emitted = chosen->size();
  for (unsigned n = 0; n < emitted; ++n) {
    const cpu::RankedConfig &ranked = space->ranked[(*chosen)[n]];
    cpu::SpecEntry spec{formatv("{0}_c{1}", entry.id, n).str(), entry.problem,
                        ranked.config};
    std::string file = formatv("{0}.spec.mlir", n).str();
    std::string header =
        formatv("retune candidate {0} of dispatch {1} ({2})\nestimated {3:e} s",
                n, entry.id, entry.name, ranked.cost)
            .str();
    std::string text = cpu::emitSpecModule({spec}, header);
    if (Error err = writeFileIfChanged(options.outputDir + "/" + file, text))
      return err;
    index.candidates.push_back(CandidateEntry{
        n, file, cpu::toJson(ranked.config), ranked.cost, blake3Hex(text)});
  }
  removeStaleSpecs(options.outputDir, emitted);
  return writeHashedJsonFile(options.outputDir + "/index.json", toJson(index));
}

/// The index and every spec it lists, as a cache entry.
static std::optional<CacheEntry>
candidatesOutcome(const CandidatesOptions &options) {
  std::string indexPath = options.outputDir + "/index.json";
  Expected<CandidateIndex> index = readRecord<CandidateIndex>(
      indexPath, schema::kCandidates, candidateIndexFromJson);
  Expected<std::string> indexText = readFile(indexPath);
  if (!index || !indexText) {
    consumeError(index.takeError());
    consumeError(indexText.takeError());
    return std::nullopt;
  }
  CacheEntry entry{{"index.json", *indexText}};
  for (const CandidateEntry &candidate : index->candidates) {
    Expected<std::string> spec =
        readFile(options.outputDir + "/" + candidate.file);
    if (!spec) {
      consumeError(spec.takeError());
      return std::nullopt;
    }
    entry[candidate.file] = *spec;
  }
  return entry;
}

/// Writes a cached index and its specs into the output directory; a spec
/// missing from the entry or not matching the index's hash makes the entry
/// unusable.
static Error restoreCandidates(const CandidatesOptions &options,
                               const CacheEntry &entry, StringRef key) {
  auto indexText = entry.find("index.json");
  if (indexText == entry.end())
    return makeError("cache entry without a candidate index");
  Expected<json::Value> value = json::parse(indexText->second);
  if (!value)
    return value.takeError();
  Expected<CandidateIndex> index = candidateIndexFromJson(*value);
  if (!index)
    return index.takeError();
  for (const CandidateEntry &candidate : index->candidates) {
    auto spec = entry.find(candidate.file);
    if (spec == entry.end() || blake3Hex(spec->second) != candidate.specHash)
      return makeError("cache entry without an intact " + candidate.file);
  }
  for (const CandidateEntry &candidate : index->candidates)
    if (Error err = writeFileIfChanged(options.outputDir + "/" + candidate.file,
                                       entry.find(candidate.file)->second))
      return err;
  removeStaleSpecs(options.outputDir, index->candidates.size());
  index->key = key.str();
  index->startedAt = unixSeconds();
  return writeHashedJsonFile(options.outputDir + "/index.json", toJson(*index));
}

static Error run(const CandidatesOptions &options, const char *argv0) {
  if (isDamagedInput(options.problemPath, "retune-candidates"))
    return Error::success();
  Expected<DispatchEntry> dispatch = readDispatchProblem(options.problemPath);
  if (!dispatch)
    return dispatch.takeError();
  Expected<std::string> key = indexKey(options, argv0);
  if (!key)
    return key.takeError();
  ContentCache cache(ContentCache::rootFor(options.cacheDir));
  CachedStep step;
  step.key = *key;
  step.alreadyDone = [&](StringRef key) {
    if (!alreadyDone(options, key))
      return false;
    keepNewerThanInputs(options.outputDir + "/index.json",
                        {options.problemPath});
    return true;
  };
  step.restore = [&](const CacheEntry &entry, StringRef key) {
    return restoreCandidates(options, entry, key);
  };
  step.run = [&](StringRef key) {
    return writeCandidates(options, *dispatch, key);
  };
  step.outcome = [&] { return candidatesOutcome(options); };
  return runCachedStep(cache, step);
}

Error runCandidatesStage(const CandidatesOptions &options,
                         const char *argv0) {
  return run(options, argv0);
}

} // namespace retune::mlircpu
