//===- ModelFlags.cpp - The model-level search over compile flags ---------===//
#include "stages/backends/iree/ModelFlags.h"

#include "stages/core/Statistics.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace retune::iree {

// Each set earned its place by measurement with IREE 3.13 on this CPU (1
// thread, models made static at batch 1; bench/iree/zoo.sh):
// - data tiling + microkernels: ViT-S/14 777 -> 295 ms, MiniLM 1.25x;
// - data tiling alone: some models run faster without the microkernels;
// - data tiling of convolutions too (experimental in 3.13): the ViT's
//   ConvTranspose decoder, 777 -> 210 ms, where matmuls alone gave 295;
// - convolutions as im2col + matmul, data tiled, with a 128 KB stack limit:
//   the CRNN 50 -> 18 ms; with data tiling under IREE's default 32 KB limit
//   it fails to compile ("exceeded stack allocation limit", 80 KB), and
//   128 KB is the stack of an IREE task worker (--task_worker_stack_size);
// - the same with 3x3 convolutions at stride 1 by Winograd's F(6x6, 3x3)
//   (IREE's preprocessing transform) and each transformed filter, 64/9 of
//   its weights, evaluated once rather than on every run: IREE hoists a
//   constant expression only up to 1 MB of growth, and VGG16's filter
//   transforms ran 388 ms of its 808 ms a run. VGG16 495-504 -> 298 ms,
//   the PP-OCRv4 detector 244-262 -> 219-237 ms, the CRNN 13.6-13.9 ->
//   12.5-12.6 ms (docs/iree-backend.md, "Winograd convolutions").
//
// Data tiling takes IREE's global-optimization path with early
// materialization of the encodings. Its default path in 3.13
// (--iree-opt-data-tiling) materializes them late, inside codegen, after
// the tuning spec's matchers have run: there they see the encoded
// linalg.batch_matmul while the dumped dispatch (and so every candidate's
// matcher) holds the data-tiled linalg.batch_mmt4d, and no spec applied in
// a whole-model compile. Early, both hold batch_mmt4d (docs/iree-backend.md).
namespace {
/// Data tiling on IREE's global-optimization path, which the default sets
/// take and the refinement recognizes.
constexpr StringLiteral kGlobalDataTiling = "--iree-global-opt-data-tiling";
} // namespace

std::vector<FlagSet> defaultCpuFlagSets() {
  const FlagSet dataTiling = {kGlobalDataTiling.str(),
                              "--iree-global-opt-enable-early-materialization"};
  const std::string ukernels = "--iree-llvmcpu-enable-ukernels=all";
  const std::string tileOps =
      "--iree-dispatch-creation-experimental-set-data-tiling-ops=";
  auto withDataTiling = [&](std::vector<std::string> flags) {
    flags.insert(flags.begin(), dataTiling.begin(), dataTiling.end());
    return flags;
  };
  // ONNX CNNs are NCHW; IREE's llvm-cpu code for NCHW convolutions is slow,
  // and its preprocessing can turn them channels-last first.
  const std::string channelsLast =
      "--iree-preprocessing-pass-pipeline=builtin.module(util.func("
      "iree-preprocessing-convert-conv-to-channels-last))";
  const std::string im2col = "--iree-global-opt-use-im2col-for-convs";
  const std::string stackLimit = "--iree-llvmcpu-stack-allocation-limit=131072";
  // Winograd drops a biased convolution's bias in IREE 3.13: the flag
  // search's rewrite adds it after (addWinogradConvolutionBiasesAfter).
  const std::string winograd =
      "--iree-preprocessing-pass-pipeline=builtin.module(util.func("
      "iree-linalg-ext-convert-conv2d-to-winograd{replace-all-convs=true}))";
  // 256 MiB: the filters of a 3x3 layer of 2048 by 2048 channels.
  const std::string hoistFilters =
      "--iree-opt-const-expr-max-size-increase-threshold=268435456";
  return {withDataTiling({ukernels}),
          withDataTiling({}),
          withDataTiling({ukernels, tileOps + "matmul", tileOps + "convolution"}),
          withDataTiling({im2col, ukernels, stackLimit}),
          withDataTiling({channelsLast}),
          withDataTiling(
              {im2col, ukernels, stackLimit, winograd, hoistFilters})};
}

namespace {
json::Array toArray(ArrayRef<std::string> flags) {
  json::Array array;
  for (const std::string &flag : flags)
    array.push_back(flag);
  return array;
}

Expected<FlagSet> flagsFrom(const json::Value *value, StringRef what) {
  const json::Array *array = value ? value->getAsArray() : nullptr;
  if (!array)
    return makeError(what + " must be an array of strings");
  FlagSet flags;
  for (const json::Value &flag : *array) {
    std::optional<StringRef> text = flag.getAsString();
    if (!text)
      return makeError(what + " must be an array of strings");
    flags.push_back(text->str());
  }
  return flags;
}
} // namespace

json::Value flagSetsToJson(ArrayRef<FlagSet> sets) {
  json::Array array;
  for (const FlagSet &set : sets)
    array.push_back(toArray(set));
  return json::Object{{"schema", schema::kFlagSets}, {"sets", std::move(array)}};
}

Expected<std::vector<FlagSet>> flagSetsFromJson(const json::Value &value) {
  const json::Object *object = value.getAsObject();
  const json::Array *sets = object ? object->getArray("sets") : nullptr;
  if (!sets)
    return makeError("'sets' must be an array of flag lists");
  std::vector<FlagSet> result;
  for (const json::Value &set : *sets) {
    Expected<FlagSet> flags = flagsFrom(&set, "each flag set");
    if (!flags)
      return flags.takeError();
    result.push_back(std::move(*flags));
  }
  return result;
}

json::Value toJson(const FlagChoice &choice) {
  json::Array sets;
  for (const FlagSetOutcome &o : choice.sets) {
    json::Object entry{{"flags", toArray(o.flags)},
                       {"status", toString(o.status)},
                       {"message", o.message},
                       {"compile_s", o.compileSeconds},
                       {"compile_cached", o.compileCached},
                       {"compile_passes", toJson(o.compilePasses)}};
    if (!o.input.empty())
      entry["input"] = o.input;
    if (o.moduleBytes)
      entry["module_bytes"] = int64_t(o.moduleBytes);
    if (o.status == Status::Ok) {
      entry["median_s"] = o.medianSeconds;
      entry["ratio"] = o.ratio;
      entry["ratio_upper"] = o.ratioUpper;
    }
    sets.push_back(std::move(entry));
  }
  json::Object out{{"schema", schema::kFlags},
                   {"default_median_s", choice.defaultMedianSeconds},
                   {"default_compile_s", choice.defaultCompileSeconds},
                   {"default_compile_passes", toJson(choice.defaultCompilePasses)},
                   {"default_module_bytes", int64_t(choice.defaultModuleBytes)},
                   {"sets", std::move(sets)},
                   {"chosen", toArray(choice.chosen)},
                   {"tied_with", toArray(choice.tiedWith)},
                   {"reason", choice.reason}};
  if (!choice.chosenInput.empty())
    out["input"] = choice.chosenInput;
  if (!choice.tiedWithInput.empty())
    out["tied_with_input"] = choice.tiedWithInput;
  if (!choice.rewritten.empty() || !choice.notRewritten.empty()) {
    out["rewritten"] = toArray(choice.rewritten);
    out["not_rewritten"] = toArray(choice.notRewritten);
  }
  return out;
}

Expected<FlagChoice> flagChoiceFromJson(const json::Value &value) {
  const json::Object *object = value.getAsObject();
  if (!object)
    return makeError("not a JSON object");
  FlagChoice choice;
  Expected<FlagSet> chosen = flagsFrom(object->get("chosen"), "'chosen'");
  if (!chosen)
    return chosen.takeError();
  choice.chosen = std::move(*chosen);
  if (object->get("tied_with")) {
    Expected<FlagSet> tied = flagsFrom(object->get("tied_with"), "'tied_with'");
    if (!tied)
      return tied.takeError();
    choice.tiedWith = std::move(*tied);
  }
  choice.chosenInput = object->getString("input").value_or("").str();
  choice.tiedWithInput = object->getString("tied_with_input").value_or("").str();
  for (auto [key, lines] :
       {std::pair{"rewritten", &choice.rewritten},
        std::pair{"not_rewritten", &choice.notRewritten}})
    if (object->get(key)) {
      Expected<FlagSet> read = flagsFrom(object->get(key), key);
      if (!read)
        return read.takeError();
      *lines = std::move(*read);
    }
  choice.defaultMedianSeconds =
      object->getNumber("default_median_s").value_or(0);
  choice.defaultCompileSeconds =
      object->getNumber("default_compile_s").value_or(0);
  choice.defaultCompilePasses =
      passTimesFromJson(object->get("default_compile_passes"));
  choice.defaultModuleBytes =
      object->getInteger("default_module_bytes").value_or(0);
  choice.reason = object->getString("reason").value_or("").str();
  if (const json::Array *sets = object->getArray("sets"))
    for (const json::Value &set : *sets) {
      const json::Object *entry = set.getAsObject();
      if (!entry)
        return makeError("'sets' entries must be objects");
      Expected<FlagSet> flags = flagsFrom(entry->get("flags"), "'flags'");
      if (!flags)
        return flags.takeError();
      FlagSetOutcome o;
      o.flags = std::move(*flags);
      o.input = entry->getString("input").value_or("").str();
      o.status = parseStatus(entry->getString("status").value_or(""))
                     .value_or(Status::BenchError);
      o.message = entry->getString("message").value_or("").str();
      o.medianSeconds = entry->getNumber("median_s").value_or(0);
      o.ratio = entry->getNumber("ratio").value_or(0);
      o.ratioUpper = entry->getNumber("ratio_upper").value_or(0);
      o.compileSeconds = entry->getNumber("compile_s").value_or(0);
      o.compileCached = entry->getBoolean("compile_cached").value_or(false);
      o.compilePasses = passTimesFromJson(entry->get("compile_passes"));
      o.moduleBytes = entry->getInteger("module_bytes").value_or(0);
      choice.sets.push_back(std::move(o));
    }
  return choice;
}

/// What compiling the model with the set costs next to the default flags,
/// said as part of the reason ("" when either time is unknown); a set that
/// compiles more than twice as long is called out.
static std::string compileCost(const FlagSetOutcome &set,
                               double defaultSeconds) {
  if (!(set.compileSeconds > 0) || !(defaultSeconds > 0))
    return "";
  double ratio = set.compileSeconds / defaultSeconds;
  return formatv("; it compiles in {0:f1} s ({1:f2}x the default flags' "
                 "{2:f1} s{3})",
                 set.compileSeconds, ratio, defaultSeconds,
                 ratio > 2 ? ": a slower build for every tune and deploy" : "")
      .str();
}

/// The chosen set's module next to the default build's, said as part of the
/// reason when it is half as large again or more ("" otherwise or when
/// either size is unknown): the price of constants IREE computes once at
/// compile time (the Winograd set's filters: VGG16 with its weights inline
/// 65 -> 425 MB, docs/iree-backend.md), paid by every deployment.
static std::string moduleCost(const FlagSetOutcome &set,
                              uint64_t defaultBytes) {
  if (!set.moduleBytes || !defaultBytes)
    return "";
  double ratio = double(set.moduleBytes) / double(defaultBytes);
  if (ratio < 1.5)
    return "";
  return formatv("; its module is {0:f1} MB ({1:f2}x the default flags' "
                 "{2:f1} MB: constants IREE computes once, which every "
                 "deployment carries; [iree] flag_sets can leave the set out)",
                 set.moduleBytes / 1e6, ratio, defaultBytes / 1e6)
      .str();
}

/// "; 2 flag set(s) not measured: ...", or "".
static std::string skippedSets(const FlagChoice &choice) {
  auto skipped = llvm::count_if(
      choice.sets, [](const FlagSetOutcome &o) { return o.status == Status::Skipped; });
  if (!skipped)
    return "";
  return formatv("; {0} flag set(s) not measured: the run's time budget was spent (delete "
                 "flags/chosen.json to search them)",
                 skipped)
      .str();
}

namespace {
bool beyondMargin(const FlagSetOutcome &o, double margin) {
  return o.status == Status::Ok && o.ratio > 0 && o.ratio < 1 - margin;
}
} // namespace

std::vector<size_t> undecidedContenders(ArrayRef<FlagSetOutcome> sets,
                                        double margin) {
  double fastestEstablished = 1;
  for (const FlagSetOutcome &o : sets)
    if (beyondMargin(o, margin) && o.ratioUpper < 1)
      fastestEstablished = std::min(fastestEstablished, o.ratio);
  std::vector<size_t> contenders;
  for (auto [k, o] : enumerate(sets))
    if ((beyondMargin(o, margin) && o.ratioUpper >= 1 &&
         o.ratio < fastestEstablished) ||
        (o.status == Status::Ok && o.unsteady))
      contenders.push_back(k);
  return contenders;
}

void chooseFlagSet(FlagChoice &choice, double margin) {
  // The fastest set, and the fastest whose gain is beyond the margin and
  // established beyond noise (every run of a set of three beat every run
  // of the default's, as the model step asks of a spec).
  const FlagSetOutcome *best = nullptr, *chosen = nullptr;
  for (const FlagSetOutcome &o : choice.sets) {
    if (o.status != Status::Ok || o.ratio <= 0)
      continue;
    if (!best || o.ratio < best->ratio)
      best = &o;
    if (o.ratio < 1 - margin && o.ratioUpper < 1 &&
        (!chosen || o.ratio < chosen->ratio))
      chosen = &o;
  }
  if (chosen) {
    choice.chosen = chosen->flags;
    choice.chosenInput = chosen->input;
    choice.reason = formatv("{0} runs the model in {1:f3}x the default "
                            "flags' time",
                            describeSet(*chosen), chosen->ratio)
                        .str();
    choice.reason += compileCost(*chosen, choice.defaultCompileSeconds);
    choice.reason += moduleCost(*chosen, choice.defaultModuleBytes);
    choice.reason += skippedSets(choice);
    return;
  }
  choice.chosen.clear();
  choice.chosenInput.clear();
  choice.reason =
      best ? formatv("no flag set beats the default flags by the margin "
                     "{0:f3} beyond noise (best: {1} at {2:f3}x, below "
                     "{3:f3}x with 97.5% confidence)",
                     margin, describeSet(*best), best->ratio,
                     best->ratioUpper)
                 .str()
       : llvm::all_of(choice.sets,
                      [](const FlagSetOutcome &o) { return o.status == Status::Skipped; })
           ? std::string("no flag set was measured; the default flags stay")
       : llvm::any_of(choice.sets,
                      [](const FlagSetOutcome &o) {
                        return o.status == Status::NotApplied;
                      })
           ? std::string("no flag set was timed (each failed or built a module "
                         "another build has); the default flags stay")
           : std::string("every flag set failed; the default flags stay");
  choice.reason += skippedSets(choice);
}

std::string describeSet(const FlagSetOutcome &set) {
  std::string flags =
      set.flags.empty() ? std::string("the default flags") : join(set.flags, " ");
  return set.input.empty() ? flags : flags + " on the rewritten model";
}

void noteTiedSet(FlagChoice &choice, ArrayRef<std::vector<double>> runMediansUs) {
  choice.tiedWith.clear();
  choice.tiedWithInput.clear();
  bool defaultWon = choice.chosen.empty() && choice.chosenInput.empty();
  auto chosen = find_if(choice.sets, [&](const FlagSetOutcome &o) {
    return !defaultWon && o.status == Status::Ok && o.flags == choice.chosen &&
           o.input == choice.chosenInput;
  });
  size_t chosenIndex = std::distance(choice.sets.begin(), chosen);
  if (chosen == choice.sets.end() || chosenIndex >= runMediansUs.size())
    return;
  const FlagSetOutcome *tied = nullptr;
  stats::RatioEstimate against;
  for (auto [k, o] : enumerate(choice.sets)) {
    if (k == chosenIndex || k >= runMediansUs.size() ||
        o.status != Status::Ok || runMediansUs[k].empty() ||
        (tied && o.ratio >= tied->ratio))
      continue;
    stats::RatioEstimate estimate =
        stats::estimateRatio(runMediansUs[chosenIndex], runMediansUs[k]);
    if (estimate.upper < 1)
      continue;
    tied = &o;
    against = estimate;
  }
  if (!tied)
    return;
  choice.tiedWith = tied->flags;
  choice.tiedWithInput = tied->input;
  choice.reason +=
      formatv("; it is not established faster than {0} ({1:f3}x of its time, "
              "below {2:f3}x with 97.5% confidence): the two tie before "
              "tuning, and only the chosen set's dispatches are tuned (to tune "
              "the other too: retune plan <tune.toml> -B <another directory> "
              "--tune-tied-set-of <this build directory>)",
              describeSet(*tied), against.ratio, against.upper)
          .str();
}

namespace {
/// Whether `flags` turn data tiling on (early materialization, as the
/// default sets, or IREE's own default path: both split data-tiled
/// matmuls by the tile bytes).
bool dataTiles(ArrayRef<std::string> flags) {
  return llvm::any_of(flags, [](StringRef flag) {
    return flag == kGlobalDataTiling ||
           flag == "--iree-opt-data-tiling" ||
           flag == "--iree-opt-data-tiling=true";
  });
}

bool setsTileBytes(ArrayRef<std::string> flags) {
  return llvm::any_of(flags, [](StringRef flag) {
    return flag.starts_with(kMatmulTileBytesFlag);
  });
}
} // namespace

std::optional<Refinement>
distributionRefinement(ArrayRef<std::string> compileFlags,
                       const FlagChoice &choice, unsigned workers) {
  if (workers < 2 || setsTileBytes(compileFlags))
    return std::nullopt;
  std::string finer =
      (kMatmulTileBytesFlag + Twine(kRefinedMatmulTileBytes)).str();
  bool allDataTile = dataTiles(compileFlags);
  std::optional<size_t> fastest;
  for (auto [k, o] : enumerate(choice.sets))
    if (o.status == Status::Ok && o.ratio > 0 &&
        (allDataTile || dataTiles(o.flags)) && !setsTileBytes(o.flags) &&
        (!fastest || o.ratio < choice.sets[*fastest].ratio))
      fastest = k;
  auto what = [&](StringRef refined) {
    return formatv("{0} with its data-tiled matmuls split in tiles of {1} "
                   "bytes of operands, tried for {2} workers",
                   refined, kRefinedMatmulTileBytes, workers)
        .str();
  };
  // With the user's flags data-tiling, the default flags do too, at 1x
  // their own time: no set faster, and they are the ones refined.
  if (fastest && (!allDataTile || choice.sets[*fastest].ratio < 1)) {
    const FlagSetOutcome &parent = choice.sets[*fastest];
    FlagSet flags = parent.flags;
    flags.push_back(finer);
    return Refinement{fastest, std::move(flags), parent.input,
                      what("the fastest data-tiled set")};
  }
  if (!allDataTile)
    return std::nullopt;
  return Refinement{std::nullopt, FlagSet{finer}, "",
                    what("the default flags")};
}

namespace {
/// Whether `flags` decide how floating-point reductions are ordered.
bool ordersReductions(ArrayRef<std::string> flags) {
  return llvm::any_of(flags, [](StringRef flag) {
    return flag.starts_with(kReassociateReductionsFlag.split('=').first) ||
           flag.starts_with("--iree-llvmcpu-mlir-opt-level");
  });
}

/// What a reduction refinement adds to the description of what it refines.
constexpr StringLiteral kReassociated =
    "with floating-point reductions reassociated (vectors of partial sums), "
    "as IREE's O2 codegen level does";
} // namespace

std::optional<Refinement>
reductionRefinement(ArrayRef<std::string> compileFlags,
                    const FlagChoice &choice) {
  if (ordersReductions(compileFlags) || ordersReductions(choice.chosen))
    return std::nullopt;
  FlagSet flags = choice.chosen;
  flags.push_back(kReassociateReductionsFlag.str());
  if (choice.chosen.empty() && choice.chosenInput.empty())
    return Refinement{std::nullopt, std::move(flags), "",
                      ("the default flags " + kReassociated).str()};
  for (auto [k, o] : enumerate(choice.sets))
    if (o.status == Status::Ok && o.flags == choice.chosen &&
        o.input == choice.chosenInput)
      return Refinement{k, std::move(flags), o.input,
                        ("the chosen set " + kReassociated).str()};
  return std::nullopt;
}

std::vector<Refinement>
choiceRefinements(ArrayRef<std::string> compileFlags, const FlagChoice &choice,
                  unsigned workers) {
  std::vector<Refinement> refinements;
  auto add = [&](Refinement refinement) {
    if (llvm::none_of(refinements, [&](const Refinement &r) {
          return r.flags == refinement.flags && r.input == refinement.input;
        }))
      refinements.push_back(std::move(refinement));
  };
  std::optional<Refinement> finer =
      distributionRefinement(compileFlags, choice, workers);
  if (finer) {
    add(*finer);
    if (!ordersReductions(compileFlags) && !ordersReductions(finer->flags)) {
      Refinement both = *finer;
      both.flags.push_back(kReassociateReductionsFlag.str());
      both.what += (", and " + kReassociated).str();
      add(std::move(both));
    }
  }
  // The chosen set with its reductions reassociated and nothing else, also
  // where the distribution refinement refines it: finer tiles can lose
  // (the ViT at 2 threads in a busy minute, 0.175x against 0.141x).
  if (std::optional<Refinement> reassociated =
          reductionRefinement(compileFlags, choice))
    add(*reassociated);
  return refinements;
}

} // namespace retune::iree
