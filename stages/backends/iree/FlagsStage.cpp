//===- FlagsStage.cpp - The model's compile flags -------------------------===//
//
// The model-level search (ModelFlags.h): compiles the whole model with the
// default flags and with each set of flags/sets.json added (two compiles at
// a time, all before the first timing), checks each
// build's results against the default's (OutputCheck), times it interleaved
// with the default on one device, and writes flags/chosen.json and
// compile_flags.txt. A set that fails to compile or computes other results
// is a recorded outcome, never an error.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/FlagsStage.h"

#include "stages/backends/iree/ModelFlags.h"
#include "stages/core/Statistics.h"
#include "stages/support/FileUtil.h"
#include "stages/support/HashedFile.h"
#include "stages/support/RunBudget.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <algorithm>

using namespace llvm;

namespace retune::iree {
namespace {

/// Measures one flag set against the default build (tag "default").
/// `built` names the builds so far by their module's hash: a set whose
/// module is byte-identical to one of them runs as that one does, and is
/// not timed again (flags that change nothing in this model). A gain beyond
/// `margin` that its runs do not establish is timed again (timeDecisively).
FlagSetOutcome measureSet(const ModelRunner &runner, const FlagSet &flags,
                          StringRef tag, StringMap<std::string> &built,
                          double margin) {
  FlagSetOutcome outcome;
  outcome.flags = flags;
  CompileRecord compiled = runner.compile(tag, "", flags);
  outcome.compileSeconds = compiled.seconds;
  outcome.compileCached = compiled.cached;
  outcome.compilePasses = runner.slowestPasses(tag);
  if (compiled.status != Status::Ok) {
    outcome.status = compiled.status;
    outcome.message = compiled.message;
    return outcome;
  }
  if (!compiled.artifactHash.empty()) {
    auto [same, isNew] = built.try_emplace(compiled.artifactHash, tag.str());
    if (!isNew) {
      outcome.status = Status::NotApplied;
      outcome.message = formatv("its module is byte-identical to {0}'s: the "
                                "flags change nothing here (not timed)",
                                same->second)
                            .str();
      return outcome;
    }
  }
  OutputCheck check = runner.check(tag);
  if (check.status != Status::Ok) {
    outcome.status = check.status;
    outcome.message = check.message;
    return outcome;
  }
  InterleavedOutcome timed = runner.timeDecisively("default", tag, margin);
  for (const BenchOutcome *side : {&timed.baseline, &timed.tuned})
    if (side->status != Status::Ok || side->samplesUs.empty()) {
      outcome.status =
          side->status == Status::Ok ? Status::BenchError : side->status;
      outcome.message = side->message;
      return outcome;
    }
  outcome.medianSeconds = stats::median(timed.tuned.samplesUs) * 1e-6;
  outcome.ratio = stats::median(timed.tuned.samplesUs) /
                  stats::median(timed.baseline.samplesUs);
  outcome.ratioUpper = estimateInterleaved(timed).upper;
  return outcome;
}

/// The files of set `k`'s build: set<k>.vmfb, set<k>.compile.log, ...
std::string setTag(size_t k) { return formatv("set{0}", k).str(); }

/// Whole-model compiles at once in the search: two halves the wall time of
/// the compiles (iree-compile keeps about one core busy) and doubles their
/// memory, which a model with large weights may not have to spare.
constexpr unsigned kCompilesAtOnce = 2;

/// Compiles the default build and every set's, kCompilesAtOnce at a time,
/// before any is timed: the search then finds each one built, and no
/// compile ever runs beside a timing. The compile seconds each record keeps
/// are those of a compile beside another, the default's as the sets'.
void compileAhead(const ModelRunner &runner, ArrayRef<FlagSet> sets,
                  StringRef outputPath) {
  unsigned width = std::min(
      kCompilesAtOnce, hardware_concurrency().compute_thread_count());
  if (width < 2)
    return;
  DefaultThreadPool pool(hardware_concurrency(width));
  pool.async([&] { runner.compile("default", ""); });
  for (size_t k = 0; k < sets.size(); ++k)
    pool.async([&, k] {
      if (!budgetSpent(outputPath))
        runner.compile(setTag(k), "", sets[k]);
    });
  pool.wait();
}

} // namespace

Error runFlagsStage(const FlagsOptions &options, ProcessRunner &processes) {
  Expected<json::Value> setsJson =
      readJsonFile(options.setsPath, schema::kFlagSets);
  if (!setsJson)
    return setsJson.takeError();
  Expected<std::vector<FlagSet>> sets = flagSetsFromJson(*setsJson);
  if (!sets)
    return makeError(options.setsPath + ": " + toString(sets.takeError()));
  Expected<ModelRunner> runner = ModelRunner::create(options.run, processes);
  if (!runner)
    return runner.takeError();
  compileAhead(*runner, *sets, options.outputPath);
  // The default build's results on seeded inputs: every set must match.
  Expected<CompileRecord> base =
      runner->buildReference("default", "with the default flags");
  if (!base)
    return base.takeError();
  FlagChoice choice;
  choice.defaultCompileSeconds = base->seconds;
  choice.defaultCompilePasses = runner->slowestPasses("default");
  StringMap<std::string> built;
  if (!base->artifactHash.empty())
    built[base->artifactHash] = "the default flags";
  for (auto [k, set] : enumerate(*sets)) {
    // The run's budget (RunBudget.h) stops the search between sets: each
    // costs a whole-model compile. The sets measured decide; the others
    // stay unmeasured until the sets or the compiler change.
    if (std::optional<std::string> spent = budgetSpent(options.outputPath)) {
      FlagSetOutcome skipped;
      skipped.flags = set;
      skipped.status = Status::Skipped;
      skipped.message = *spent;
      choice.sets.push_back(std::move(skipped));
      continue;
    }
    choice.sets.push_back(measureSet(*runner, set, setTag(k),
                                     built, options.margin));
  }
  for (const FlagSetOutcome &o : choice.sets)
    if (o.status == Status::Ok && o.ratio > 0) {
      choice.defaultMedianSeconds = o.medianSeconds / o.ratio;
      break;
    }
  chooseFlagSet(choice, options.margin);
  std::vector<std::string> all = options.run.iree.compileFlags;
  all.insert(all.end(), choice.chosen.begin(), choice.chosen.end());
  if (Error err = writeHashedFile(options.flagsFile, join(all, "\n") + "\n"))
    return err;
  return writeJsonFile(options.outputPath, toJson(choice));
}

} // namespace retune::iree
