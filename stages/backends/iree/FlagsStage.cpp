//===- FlagsStage.cpp - The model's compile flags -------------------------===//
//
// The model-level search (ModelFlags.h): compiles the whole model with the
// default flags and with each set of flags/sets.json added (two compiles at
// a time, all before the first timing), checks each
// build's results against the default's (OutputCheck), times those that pass
// in turn with the default on one device, all in the same rounds (again,
// while undecided, only the sets that could still be chosen), tries
// refinements of its choice the same way (ModelFlags.h: finer matmul tiles
// on several workers, reassociated reductions), and writes
// flags/chosen.json and compile_flags.txt. A set that fails to compile or
// computes other results is a recorded outcome, never an error. A model
// with ops ModelRewrite.h rewrites (strided ConvTransposes, Gemms that
// share their weights, ...) is rewritten first (flags/rewritten.mlir):
// every set, and the default flags as one more, builds from the rewrite,
// checked and timed against the default build of the model as given.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/FlagsStage.h"

#include "stages/backends/iree/IreeIr.h"
#include "stages/backends/iree/ModelFlags.h"
#include "stages/backends/iree/ModelRewrite.h"
#include "stages/core/Statistics.h"
#include "stages/support/FaultInjection.h"
#include "stages/support/FileUtil.h"
#include "stages/support/HashedFile.h"
#include "stages/support/RunBudget.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <algorithm>

using namespace llvm;

namespace retune::iree {
namespace {

/// The files of set `k`'s build: set<k>.vmfb, set<k>.compile.log, ...
std::string setTag(size_t k) { return formatv("set{0}", k).str(); }

/// What `timed` says of a set: its median, its ratio to the default's and
/// that ratio's bound; a side that did not run makes the set a failure.
void recordTiming(FlagSetOutcome &outcome, const InterleavedOutcome &timed) {
  for (const BenchOutcome *side : {&timed.baseline, &timed.tuned})
    if (side->status != Status::Ok || side->samplesUs.empty()) {
      outcome.status =
          side->status == Status::Ok ? Status::BenchError : side->status;
      outcome.message = side->message;
      return;
    }
  outcome.medianSeconds = stats::median(timed.tuned.samplesUs) * 1e-6;
  // As the model step judges a spec (estimateInterleaved): runs the
  // machine slowed as a whole move neither the ratio nor its bound.
  stats::RatioEstimate estimate = estimateInterleaved(timed);
  outcome.ratio = estimate.ratio;
  outcome.ratioUpper = estimate.upper;
  outcome.unsteady = tooFewSteadyRuns(timed);
}

/// Bytes of build `tag`'s module, 0 when it cannot be read.
uint64_t moduleBytes(const ModelRunner &runner, StringRef tag) {
  uint64_t bytes = 0;
  if (sys::fs::file_size(runner.options().inWork(tag + ".vmfb"), bytes))
    return 0;
  return bytes;
}

/// Builds one flag set and checks its results against the default
/// build's (tag "default"), not timed yet: a set that stays Ok is timed
/// with the others (timeSets). `built` names the builds so far by their
/// module's hash: a set whose module is byte-identical to one of them runs
/// as that one does, and is not timed (flags that change nothing in this
/// model).
FlagSetOutcome buildSet(const ModelRunner &runner, const FlagSet &flags,
                        StringRef input, StringRef tag,
                        StringMap<std::string> &built) {
  FlagSetOutcome outcome;
  outcome.flags = flags;
  outcome.input = input.str();
  CompileRecord compiled = runner.compile(tag, "", flags, input);
  outcome.compileSeconds = compiled.seconds;
  outcome.compileCached = compiled.cached;
  outcome.compilePasses = runner.slowestPasses(tag);
  if (compiled.status != Status::Ok) {
    outcome.status = compiled.status;
    outcome.message = compiled.message;
    return outcome;
  }
  outcome.moduleBytes = moduleBytes(runner, tag);
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
  outcome.status = check.status;
  outcome.message = check.message;
  return outcome;
}

/// Times the sets `which` together with the default build, one default run
/// a round for all (ModelRunner::timeAllAgainst), adding the runs to each
/// set's `timings` and recording its ratio.
void timeSets(const ModelRunner &runner, ArrayRef<size_t> which,
              FlagChoice &choice, std::vector<InterleavedOutcome> &timings) {
  std::vector<std::string> tags;
  for (size_t k : which)
    tags.push_back(setTag(k));
  std::vector<InterleavedOutcome> timed = runner.timeAllAgainst("default", tags);
  for (auto [k, again] : zip(which, timed)) {
    if (timings[k].baseline.samplesUs.empty())
      timings[k] = std::move(again);
    else if (bothSidesTimed(again))
      appendTiming(timings[k], again);
    recordTiming(choice.sets[k], timings[k]);
  }
}

/// Times again, together, kMoreTimings times at most, the sets whose gain
/// is beyond `margin` but not established, while they could still be
/// chosen (undecidedContenders): a set slower than one already established
/// is never chosen, so its runs are not worth their minutes (on the ViT,
/// two such sets took 140 s). Only the sets from `first` on: those before
/// were settled already, as far as their timings went.
void settleUndecided(const ModelRunner &runner, FlagChoice &choice,
                     std::vector<InterleavedOutcome> &timings, double margin,
                     StringRef outputPath, size_t first = 0) {
  for (unsigned more = 0; more < kMoreTimings; ++more) {
    std::vector<size_t> contenders = undecidedContenders(choice.sets, margin);
    llvm::erase_if(contenders, [&](size_t k) { return k < first; });
    if (contenders.empty() || budgetSpent(outputPath))
      return;
    timeSets(runner, contenders, choice, timings);
  }
}

/// Whole-model compiles at once in the search: two halves the wall time of
/// the compiles (iree-compile keeps about one core busy) and doubles their
/// memory, which a model with large weights may not have to spare.
constexpr unsigned kCompilesAtOnce = 2;

/// Compiles sets `first`, `first + 1`, ... of the search (`sets`, each
/// from its `inputs`), and the default build with them when `withDefault`,
/// kCompilesAtOnce at a time, before any is timed: the search then finds
/// each one built, and no compile ever runs beside a timing. The compile
/// seconds each record keeps are those of a compile beside another, the
/// default's as the sets'.
void compileAhead(const ModelRunner &runner, ArrayRef<FlagSet> sets,
                  ArrayRef<std::string> inputs, StringRef outputPath,
                  size_t first, bool withDefault) {
  unsigned width = std::min(
      kCompilesAtOnce, hardware_concurrency().compute_thread_count());
  if (width < 2)
    return;
  DefaultThreadPool pool(hardware_concurrency(width));
  if (withDefault)
    pool.async([&] { runner.compile("default", ""); });
  for (size_t k = 0; k < sets.size(); ++k)
    pool.async([&, k] {
      if (!budgetSpent(outputPath))
        runner.compile(setTag(first + k), "", sets[k], inputs[k]);
    });
  pool.wait();
}

/// After the first choice, the sets refining it (`refined`,
/// choiceRefinements) are built, checked, and timed together in the same
/// rounds as the sets they refine, and the choice is made again over all
/// sets. Timed together, a round costs one run of each rather than one of
/// the default build and the refined set again for each refinement.
void tryRefinements(const FlagsOptions &options, const ModelRunner &runner,
                    ArrayRef<Refinement> refined, FlagChoice &choice,
                    std::vector<InterleavedOutcome> &timings,
                    StringMap<std::string> &built) {
  if (refined.empty() || budgetSpent(options.outputPath))
    return;
  size_t first = choice.sets.size();
  std::vector<FlagSet> flags;
  std::vector<std::string> inputs;
  for (const Refinement &r : refined) {
    flags.push_back(r.flags);
    inputs.push_back(r.input);
  }
  compileAhead(runner, flags, inputs, options.outputPath, first,
               /*withDefault=*/false);
  std::vector<size_t> timed;
  for (const Refinement &r : refined) {
    size_t k = choice.sets.size();
    FlagSetOutcome outcome =
        buildSet(runner, r.flags, r.input, setTag(k), built);
    if (outcome.status == Status::Ok) {
      outcome.message = r.what;
      timed.push_back(k);
      if (r.parent)
        timed.push_back(*r.parent);
    }
    choice.sets.push_back(std::move(outcome));
    timings.emplace_back();
  }
  if (timed.empty())
    return;
  llvm::sort(timed);
  timed.erase(std::unique(timed.begin(), timed.end()), timed.end());
  timeSets(runner, timed, choice, timings);
  // The refinements alone are settled: the sets before them had their
  // rounds, and each round of them all costs a run of every undecided set.
  settleUndecided(runner, choice, timings, options.margin, options.outputPath,
                  first);
  chooseFlagSet(choice, options.margin);
}

/// Why the model is searched as given although it has ops to rewrite.
void noteNotRewritten(StringRef why) {
  errs() << "retune-iree-flags: note: the model is not rewritten: " << why
         << "\n";
}

/// What flags/rewritten.mlir holds when nothing was rewritten: it is an
/// output of the flags edge either way.
constexpr StringLiteral kNothingRewritten =
    "// The flag search rewrote nothing in this model (flags/chosen.json's "
    "not_rewritten says what it left): compile the model as given.\n";

/// The model with its strided ConvTransposes, its patch and depthwise
/// convolutions, its biased 3x3 convolutions and its Gemms that share
/// weights rewritten
/// (ModelRewrite.h), as IREE prints it, and what was rewritten in
/// `choice`; none when the model has nothing to rewrite. A rewrite that
/// cannot be made (no IREE library, which makes it, or an op IREE refuses)
/// is a note: the search goes on with the model as given.
Expected<std::optional<std::string>> rewriteModel(const ModelRunner &runner,
                                                  FlagChoice &choice) {
  const ModelRunOptions &run = runner.options();
  Expected<std::string> text = readFile(run.modelPath);
  if (!text)
    return text.takeError();
  // Parsing a model with its weights inline takes seconds: only a model
  // with an op to rewrite is parsed.
  if (!StringRef(*text).contains("\"onnx.ConvTranspose\"") &&
      !StringRef(*text).contains("\"onnx.Conv\"") &&
      !StringRef(*text).contains("\"onnx.Gemm\""))
    return std::nullopt;
  const IreeIrLibrary *library =
      IreeIrLibrary::forTool(runner.ireeTools().compile);
  if (!library) {
    noteNotRewritten("IREE's compiler library, which rewrites them, is absent");
    return std::nullopt;
  }
  Expected<std::unique_ptr<IreeIrModule>> module =
      library->parse(*text, run.modelPath);
  if (!module) {
    noteNotRewritten(toString(module.takeError()));
    return std::nullopt;
  }
  RewriteReport all;
  for (auto rewrite : {rewriteStridedConvTransposes, rewritePatchConvolutions,
                       rewriteDepthwiseConvolutions,
                       addWinogradConvolutionBiasesAfter,
                       batchSharedWeightGemms}) {
    Expected<RewriteReport> report = rewrite(**module);
    if (!report) {
      noteNotRewritten(toString(report.takeError()));
      return std::nullopt;
    }
    llvm::append_range(all.rewritten, report->rewritten);
    llvm::append_range(all.left, report->left);
  }
  choice.notRewritten = all.left;
  if (all.rewritten.empty())
    return std::nullopt;
  if (Error err = (*module)->verify()) {
    noteNotRewritten(toString(std::move(err)));
    return std::nullopt;
  }
  choice.rewritten = all.rewritten;
  std::string printed = (*module)->print();
  // Tests: a rewrite IREE cannot compile (an op no lowering knows, as an
  // opset-12 model's ONNX Slice was), on purpose.
  if (injectedFault(run.modelPath) == "uncompilable-rewrite")
    if (size_t end = printed.find("\n    return "); end != std::string::npos)
      printed.insert(end + 1, "    %retune_fault = torch.operator "
                              "\"onnx.RetuneInjectedFault\"() : () -> "
                              "!torch.vtensor<[1],f32>\n");
  return printed;
}

/// Whether IREE compiles the rewritten model (`path`) with the default
/// flags, the build of `tag` that the search reuses: a rewrite it cannot
/// compile would fail every set built from it. When it does not, the
/// rewrite is dropped (said in `choice`, its lines not kept) and the search
/// goes on with the model as given.
bool rewriteCompiles(const ModelRunner &runner, StringRef path, StringRef tag,
                     FlagChoice &choice) {
  CompileRecord probe = runner.compile(tag, "", {}, path);
  if (probe.status == Status::Ok)
    return true;
  std::string why =
      formatv("IREE cannot compile the rewritten model ({0}: {1}); the model "
              "is searched as given",
              toString(probe.status),
              StringRef(probe.message).split('\n').first.trim())
          .str();
  noteNotRewritten(why);
  for (const std::string &line : choice.rewritten)
    choice.notRewritten.push_back(line + ": not kept: " + why);
  choice.rewritten.clear();
  return false;
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
  FlagChoice choice;
  // With a rewrite of the model, every set builds from it, and so do the
  // default flags (the rewrite's own gain); the default build, which all
  // are checked and timed against, is the model as given.
  Expected<std::optional<std::string>> rewritten =
      options.rewriteModel ? rewriteModel(*runner, choice)
                           : Expected<std::optional<std::string>>(std::nullopt);
  if (!rewritten)
    return rewritten.takeError();
  // Hashed: a take-away (compiled in place of the model), checked by every
  // build's VERIFY.
  std::string rewrittenPath = runner->options().inWork("rewritten.mlir");
  if (Error err = writeHashedFile(rewrittenPath,
                                  rewritten->value_or(kNothingRewritten.str())))
    return err;
  if (*rewritten &&
      !rewriteCompiles(*runner, rewrittenPath, setTag(0), choice)) {
    *rewritten = std::nullopt;
    if (Error err = writeHashedFile(rewrittenPath, kNothingRewritten.str()))
      return err;
  }
  std::string input = *rewritten ? rewrittenPath : "";
  if (*rewritten)
    sets->insert(sets->begin(), FlagSet());
  std::vector<std::string> inputs(sets->size(), input);
  compileAhead(*runner, *sets, inputs, options.outputPath, 0,
               /*withDefault=*/true);
  // The default build's results on seeded inputs: every set must match.
  Expected<CompileRecord> base =
      runner->buildReference("default", "with the default flags");
  if (!base)
    return base.takeError();
  choice.defaultCompileSeconds = base->seconds;
  choice.defaultCompilePasses = runner->slowestPasses("default");
  choice.defaultModuleBytes = moduleBytes(*runner, "default");
  StringMap<std::string> built;
  if (!base->artifactHash.empty())
    built[base->artifactHash] = "the default flags";
  std::vector<InterleavedOutcome> timings(sets->size());
  for (auto [k, set] : enumerate(*sets)) {
    // The run's budget (RunBudget.h) stops the search between sets: each
    // costs a whole-model compile. The sets measured decide; the others
    // stay unmeasured until the sets or the compiler change.
    if (std::optional<std::string> spent = budgetSpent(options.outputPath)) {
      FlagSetOutcome skipped;
      skipped.flags = set;
      skipped.input = inputs[k];
      skipped.status = Status::Skipped;
      skipped.message = *spent;
      choice.sets.push_back(std::move(skipped));
      continue;
    }
    choice.sets.push_back(buildSet(*runner, set, inputs[k], setTag(k), built));
  }
  // Every set that built and computes the default's results, timed in the
  // same rounds as the others.
  std::vector<size_t> checked;
  for (auto [k, o] : enumerate(choice.sets))
    if (o.status == Status::Ok)
      checked.push_back(k);
  if (std::optional<std::string> spent = budgetSpent(options.outputPath))
    for (size_t k : checked) {
      choice.sets[k].status = Status::Skipped;
      choice.sets[k].message = *spent;
    }
  else if (!checked.empty())
    timeSets(*runner, checked, choice, timings);
  settleUndecided(*runner, choice, timings, options.margin,
                  options.outputPath);
  for (const FlagSetOutcome &o : choice.sets)
    if (o.status == Status::Ok && o.ratio > 0) {
      choice.defaultMedianSeconds = o.medianSeconds / o.ratio;
      break;
    }
  chooseFlagSet(choice, options.margin);
  tryRefinements(options, *runner,
                 choiceRefinements(options.run.iree.compileFlags, choice,
                                   deviceWorkers(options.run.iree.deviceFlags)),
                 choice, timings, built);
  std::vector<std::vector<double>> runMedians;
  for (const InterleavedOutcome &timed : timings)
    runMedians.push_back(timed.tuned.runMediansUs);
  noteTiedSet(choice, runMedians);
  std::vector<std::string> all = options.run.iree.compileFlags;
  all.insert(all.end(), choice.chosen.begin(), choice.chosen.end());
  if (Error err = writeHashedFile(options.flagsFile, join(all, "\n") + "\n"))
    return err;
  return writeJsonFile(options.outputPath, toJson(choice));
}

} // namespace retune::iree
