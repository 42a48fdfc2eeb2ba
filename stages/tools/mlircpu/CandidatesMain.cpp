//===- CandidatesMain.cpp - retune-candidates: dispatch -> candidate specs ===//
//
// Enumerates the CPU knob space of one dispatch with Z3, orders it by the
// cost heuristic and writes the first N configurations as spec files plus
// an index. Unchanged specs keep their mtime, so growing N only adds
// candidates; specs beyond N are removed.
//
//===----------------------------------------------------------------------===//
#include "cache/CacheKeys.h"
#include "stages/search/cpu/CpuSpace.h"
#include "stages/backends/mlircpu/CpuSpec.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"
#include "stages/core/Records.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

#include <chrono>

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-candidates options");
static cl::opt<std::string> problemPath("problem", cl::Required,
                                        cl::desc("dispatches/<id>/problem.json"),
                                        cl::cat(category));
static cl::opt<std::string> outputDir("output-dir", cl::Required,
                                      cl::desc("candidates/<id> directory"),
                                      cl::cat(category));
static cl::opt<unsigned> candidateCount("count", cl::init(8),
                               cl::desc("candidates to emit (the cheapest first)"),
                               cl::cat(category));
static cl::opt<unsigned> threads("code-threads", cl::init(1),
                                 cl::desc("threads the generated code may use"),
                                 cl::cat(category));

static cl::opt<std::string>
    skipReason("skip-reason",
               cl::desc("emit no candidates and record this reason"),
               cl::cat(category));

/// Removes spec files of an earlier, larger candidate set.
static void removeStaleSpecs(StringRef dir, unsigned keep) {
  removeNumberedFiles(dir, ".spec.mlir", keep);
}

/// What the index is made from: the tool, the problem and the options.
static Expected<std::string> indexKey(const char *argv0) {
  Expected<std::string> problem = readFile(problemPath);
  if (!problem)
    return problem.takeError();
  return hostKey("candidates", argv0)
      .add("problem", blake3Hex(*problem))
      .add("count", candidateCount.getValue())
      .add("code-threads", threads.getValue())
      .add("skip", skipReason.getValue())
      .hex(16);
}

/// Whether the index in the output directory was made from the same
/// inputs and its specs are intact (a run killed before Ninja logged it):
/// rewriting it would only move its timestamps and re-plan.
static bool alreadyDone(StringRef key) {
  std::string path = outputDir + "/index.json";
  if (!sys::fs::exists(path))
    return false;
  Expected<CandidateIndex> index =
      readRecord<CandidateIndex>(path, schema::kCandidates, candidateIndexFromJson);
  if (!index) {
    consumeError(index.takeError());
    return false;
  }
  if (index->key != key)
    return false;
  return llvm::all_of(index->candidates, [](const CandidateEntry &c) {
    Expected<std::string> spec = readFile(outputDir + "/" + c.file);
    if (!spec) {
      consumeError(spec.takeError());
      return false;
    }
    return blake3Hex(*spec) == c.specHash;
  });
}

static Error run(const char *argv0) {
  Expected<DispatchEntry> dispatch = readDispatchProblem(problemPath);
  if (!dispatch)
    return dispatch.takeError();
  const DispatchEntry &entry = *dispatch;
  Expected<std::string> key = indexKey(argv0);
  if (!key)
    return key.takeError();
  if (alreadyDone(*key)) {
    keepNewerThanInputs(outputDir + "/index.json", {problemPath.getValue()});
    return Error::success();
  }

  CandidateIndex index;
  index.dispatch = entry.id;
  index.key = *key;
  index.startedAt = unixSeconds();
  if (!skipReason.empty()) {
    index.note = skipReason;
    removeStaleSpecs(outputDir, 0);
    return writeJsonFile(outputDir + "/index.json", toJson(index));
  }
  cpu::CpuSpaceOptions options;
  options.threads = threads;
  auto start = std::chrono::steady_clock::now();
  Expected<cpu::CpuSpaceResult> space =
      cpu::enumerateCpuSpace(entry.problem, cpu::detectHost(), options);
  index.enumerationSeconds = std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - start)
                                 .count();
  // A dispatch outside the CPU space is not a pipeline error: it keeps the
  // default config and the report says why.
  if (!space) {
    index.note = toString(space.takeError());
    removeStaleSpecs(outputDir, 0);
    return writeJsonFile(outputDir + "/index.json", toJson(index));
  }
  index.totalSolutions = space->totalSolutions;
  unsigned emitted = std::min<size_t>(candidateCount, space->ranked.size());
  for (unsigned n = 0; n < emitted; ++n) {
    const cpu::RankedConfig &ranked = space->ranked[n];
    cpu::SpecEntry spec{formatv("{0}_c{1}", entry.id, n).str(), entry.problem,
                        ranked.config};
    std::string file = formatv("{0}.spec.mlir", n).str();
    std::string header =
        formatv("retune candidate {0} of dispatch {1} ({2})\nestimated {3:e} s",
                n, entry.id, entry.name, ranked.cost)
            .str();
    std::string text = cpu::emitSpecModule({spec}, header);
    if (Error err = writeFileIfChanged(outputDir + "/" + file, text))
      return err;
    index.candidates.push_back(CandidateEntry{
        n, file, cpu::toJson(ranked.config), ranked.cost, blake3Hex(text)});
  }
  removeStaleSpecs(outputDir, emitted);
  return writeJsonFile(outputDir + "/index.json", toJson(index));
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-candidates: enumerate the CPU knob space of a dispatch with Z3 "
      "and write the cheapest --count configurations as tuning specs.\n");
  return finishTool("retune-candidates", run(argv[0]));
}
