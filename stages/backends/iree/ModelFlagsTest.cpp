//===- ModelFlagsTest.cpp - Choosing the model's compile flags ------------===//
#include "stages/backends/iree/ModelFlags.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;

namespace {

FlagSetOutcome measured(FlagSet flags, double ratio,
                        Status status = Status::Ok) {
  FlagSetOutcome o;
  o.flags = std::move(flags);
  o.status = status;
  o.ratio = status == Status::Ok ? ratio : 0;
  o.ratioUpper = o.ratio;
  o.medianSeconds = ratio * 0.01;
  return o;
}

TEST(ModelFlags, AGainNotEstablishedBeyondNoiseIsNotChosen) {
  // --b's median is fastest, but one of its runs was slower than one of
  // the default's: --c, steadily 10% faster, is chosen.
  FlagChoice choice;
  choice.sets = {measured({"--b"}, 0.8), measured({"--c"}, 0.9)};
  choice.sets[0].ratioUpper = 1.05;
  chooseFlagSet(choice, 0.02);
  EXPECT_EQ(choice.chosen, FlagSet{"--c"});
  FlagChoice unsure;
  unsure.sets = {measured({"--b"}, 0.8)};
  unsure.sets[0].ratioUpper = 1.05;
  chooseFlagSet(unsure, 0.02);
  EXPECT_TRUE(unsure.chosen.empty());
  EXPECT_NE(unsure.reason.find("beyond noise (best: --b at 0.800x, below "
                               "1.050x with 97.5% confidence)"),
            std::string::npos)
      << unsure.reason;
  Expected<FlagChoice> back = flagChoiceFromJson(toJson(choice));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_DOUBLE_EQ(back->sets[0].ratioUpper, 1.05);
}

TEST(ModelFlags, OnlyUndecidedSetsThatCouldStillBeChosenAreTimedAgain) {
  // --c is established at 0.82x. --a (0.93x) and --b (0.94x) are not yet,
  // and could not be chosen over --c whatever more runs say; --d (0.80x)
  // could. --e is within the margin, --f failed.
  std::vector<FlagSetOutcome> sets = {
      measured({"--a"}, 0.93), measured({"--b"}, 0.94),
      measured({"--c"}, 0.82), measured({"--d"}, 0.80),
      measured({"--e"}, 0.99), measured({"--f"}, 0.5, Status::CompileError)};
  for (size_t k : {0, 1, 3, 4})
    sets[k].ratioUpper = 1.01;
  sets[2].ratioUpper = 0.89;
  EXPECT_EQ(undecidedContenders(sets, 0.02), std::vector<size_t>{3});
  // With none established every undecided gain beyond the margin is.
  sets[2].ratioUpper = 1.02;
  EXPECT_EQ(undecidedContenders(sets, 0.02), (std::vector<size_t>{0, 1, 2, 3}));
  // A set whose runs the machine slowed too often (MiniLM's data tiling at
  // 2 threads read 1.26x, 0.96-0.98x in quiet seconds) is timed again
  // whatever its ratio; a failed one never.
  sets[4].ratio = 1.26;
  sets[4].unsteady = sets[5].unsteady = true;
  EXPECT_EQ(undecidedContenders(sets, 0.02),
            (std::vector<size_t>{0, 1, 2, 3, 4}));
}

TEST(ModelFlags, ASetTheChosenOneIsNotEstablishedFasterThanIsNamedAsATie) {
  // Run medians of one timing in the same rounds (microseconds): --b is
  // chosen; --c's runs overlap --b's (a tie), --d's are all slower, --e
  // failed.
  FlagChoice choice;
  choice.sets = {measured({"--b"}, 0.80), measured({"--c"}, 0.83),
                 measured({"--d"}, 0.90),
                 measured({"--e"}, 0.5, Status::CompileError)};
  chooseFlagSet(choice, 0.02);
  ASSERT_EQ(choice.chosen, FlagSet{"--b"});
  std::vector<std::vector<double>> runs = {{800, 820, 790, 810},
                                           {830, 805, 815, 840},
                                           {900, 910, 905, 895},
                                           {}};
  noteTiedSet(choice, runs);
  EXPECT_EQ(choice.tiedWith, FlagSet{"--c"});
  EXPECT_NE(choice.reason.find("not established faster than --c"),
            std::string::npos)
      << choice.reason;
  Expected<FlagChoice> back = flagChoiceFromJson(toJson(choice));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->tiedWith, FlagSet{"--c"});
  // Every run of --c slower than every run of --b: no tie.
  FlagChoice clear = choice;
  clear.reason.clear();
  runs[1] = {850, 860, 870, 880};
  noteTiedSet(clear, runs);
  EXPECT_TRUE(clear.tiedWith.empty());
  EXPECT_EQ(clear.reason.find("tie"), std::string::npos) << clear.reason;
  // The default flags chosen: nothing to tie with.
  FlagChoice none;
  none.sets = {measured({"--b"}, 0.99)};
  chooseFlagSet(none, 0.02);
  noteTiedSet(none, {{800, 810, 790}});
  EXPECT_TRUE(none.tiedWith.empty());
}

TEST(ModelFlags, ASetOnTheRewrittenModelIsChosenWithItsInputAndTiesKeepIt) {
  // The default flags on the rewritten model (no flags) win: the choice
  // names its input, though its flags are empty; a set on the same model
  // ties with it.
  FlagSetOutcome rewrittenDefault = measured({}, 0.70);
  rewrittenDefault.input = "flags/rewritten.mlir";
  FlagSetOutcome rewrittenSet = measured({"--b"}, 0.72);
  rewrittenSet.input = "flags/rewritten.mlir";
  FlagChoice choice;
  choice.sets = {rewrittenDefault, rewrittenSet};
  choice.rewritten = {"line 4: ConvTranspose 1x3x5x6 -> 1x4x10x12, kernel "
                      "4x4, stride 2: 4 phase convolutions and DepthToSpace"};
  choice.notRewritten = {"line 7: ConvTranspose: left as it is: it has groups"};
  chooseFlagSet(choice, 0.02);
  EXPECT_TRUE(choice.chosen.empty());
  EXPECT_EQ(choice.chosenInput, "flags/rewritten.mlir");
  EXPECT_NE(choice.reason.find("the default flags on the rewritten model runs "
                               "the model in 0.700x"),
            std::string::npos)
      << choice.reason;
  noteTiedSet(choice, {{700, 720, 690}, {710, 700, 730}});
  EXPECT_EQ(choice.tiedWith, FlagSet{"--b"});
  EXPECT_EQ(choice.tiedWithInput, "flags/rewritten.mlir");
  Expected<FlagChoice> back = flagChoiceFromJson(toJson(choice));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->chosenInput, "flags/rewritten.mlir");
  EXPECT_EQ(back->tiedWithInput, "flags/rewritten.mlir");
  EXPECT_EQ(back->rewritten, choice.rewritten);
  EXPECT_EQ(back->notRewritten, choice.notRewritten);
  ASSERT_EQ(back->sets.size(), 2u);
  EXPECT_EQ(back->sets[1].input, "flags/rewritten.mlir");
  // Nothing beats the model as given: no input is chosen.
  FlagChoice slower;
  rewrittenDefault.ratio = rewrittenDefault.ratioUpper = 1.01;
  slower.sets = {rewrittenDefault};
  chooseFlagSet(slower, 0.02);
  EXPECT_TRUE(slower.chosenInput.empty());
  EXPECT_NE(slower.reason.find("best: the default flags on the rewritten model"),
            std::string::npos)
      << slower.reason;
}

TEST(ModelFlags, ChoosesTheFastestCorrectSetBeyondTheMargin) {
  FlagChoice choice;
  choice.sets = {measured({"--a"}, 0.7, Status::WrongResult),
                 measured({"--b"}, 0.8), measured({"--c"}, 0.9),
                 measured({"--d"}, 0, Status::CompileError)};
  chooseFlagSet(choice, 0.02);
  EXPECT_EQ(choice.chosen, FlagSet{"--b"});
  EXPECT_NE(choice.reason.find("0.800x"), std::string::npos) << choice.reason;
}

TEST(ModelFlags, DefaultStaysWithinTheMarginOrWhenAllFail) {
  FlagChoice close;
  close.sets = {measured({"--b"}, 0.99)};
  chooseFlagSet(close, 0.02);
  EXPECT_TRUE(close.chosen.empty());
  EXPECT_NE(close.reason.find("no flag set beats"), std::string::npos);
  FlagChoice failed;
  failed.sets = {measured({"--d"}, 0, Status::CompileError)};
  chooseFlagSet(failed, 0.02);
  EXPECT_TRUE(failed.chosen.empty());
  EXPECT_NE(failed.reason.find("every flag set failed"), std::string::npos);
}

TEST(ModelFlags, SetsTheBudgetSkippedAreNotChosenAndTheReasonCountsThem) {
  FlagChoice choice;
  choice.sets = {measured({"--b"}, 0.8), measured({"--c"}, 0, Status::Skipped),
                 measured({"--d"}, 0, Status::Skipped)};
  chooseFlagSet(choice, 0.02);
  EXPECT_EQ(choice.chosen, FlagSet{"--b"});
  EXPECT_NE(choice.reason.find("; 2 flag set(s) not measured: the run's time budget was spent"),
            std::string::npos)
      << choice.reason;
  FlagChoice none;
  none.sets = {measured({"--c"}, 0, Status::Skipped)};
  chooseFlagSet(none, 0.02);
  EXPECT_TRUE(none.chosen.empty());
  EXPECT_NE(none.reason.find("no flag set was measured; the default flags stay; 1 flag set(s) "
                            "not measured"),
            std::string::npos)
      << none.reason;
}

TEST(ModelFlags, TheReasonSaysWhatTheChosenSetCostsToCompile) {
  // A set that wins by 20% but compiles 10x longer is chosen, and the
  // reason says what every build will cost.
  FlagChoice choice;
  choice.defaultCompileSeconds = 3;
  choice.sets = {measured({"--slow-build"}, 0.8)};
  choice.sets[0].compileSeconds = 30;
  chooseFlagSet(choice, 0.02);
  EXPECT_EQ(choice.chosen, FlagSet{"--slow-build"});
  EXPECT_NE(choice.reason.find("it compiles in 30.0 s (10.00x the default "
                               "flags' 3.0 s: a slower build"),
            std::string::npos)
      << choice.reason;
  Expected<FlagChoice> back = flagChoiceFromJson(toJson(choice));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_DOUBLE_EQ(back->defaultCompileSeconds, 3);
  EXPECT_DOUBLE_EQ(back->sets[0].compileSeconds, 30);
  choice.sets[0].compileSeconds = 3.3;
  chooseFlagSet(choice, 0.02);
  EXPECT_NE(choice.reason.find("(1.10x the default flags' 3.0 s)"),
            std::string::npos)
      << choice.reason;
}

TEST(ModelFlags, OnSeveralWorkersTheFastestDataTiledSetIsTriedWithFinerTiles) {
  const FlagSet tiling = {"--iree-global-opt-data-tiling",
                          "--iree-global-opt-enable-early-materialization"};
  const std::vector<std::string> cpu = {"--iree-llvmcpu-target-cpu=host"};
  FlagChoice choice;
  // MiniLM at 2 threads: data tiling alone not chosen (0.99x), a set
  // without data tiling faster, one that failed faster still.
  choice.sets = {measured({"--iree-llvmcpu-enable-ukernels=all"}, 0.97),
                 measured(tiling, 0.99), measured(tiling, 0.5,
                                                  Status::CompileError)};
  choice.sets[1].input = "flags/rewritten.mlir";
  chooseFlagSet(choice, 0.02);
  std::optional<Refinement> refined = distributionRefinement(cpu, choice, 2);
  ASSERT_TRUE(refined.has_value());
  EXPECT_EQ(refined->parent, std::optional<size_t>(1));
  EXPECT_EQ(refined->flags,
            (FlagSet{"--iree-global-opt-data-tiling",
                     "--iree-global-opt-enable-early-materialization",
                     "--iree-llvmcpu-matmul-tile-bytes=16384"}));
  EXPECT_EQ(refined->input, "flags/rewritten.mlir");
  // One worker: nothing to share out.
  EXPECT_FALSE(distributionRefinement(cpu, choice, 1).has_value());
  EXPECT_FALSE(distributionRefinement(cpu, choice, 0).has_value());
  // The user's flags set the tile bytes already: theirs stay.
  EXPECT_FALSE(distributionRefinement(
                   {"--iree-llvmcpu-matmul-tile-bytes=65536"}, choice, 2)
                   .has_value());
  // No timed set data-tiles: the flag would change nothing.
  FlagChoice plain;
  plain.sets = {measured({"--iree-llvmcpu-enable-ukernels=all"}, 0.9)};
  EXPECT_FALSE(distributionRefinement(cpu, plain, 2).has_value());
  // The user's own flags data-tile: every set does, and the default flags
  // too. The fastest set is refined when it beat them, else the defaults.
  std::optional<Refinement> all =
      distributionRefinement({"--iree-opt-data-tiling"}, plain, 4);
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->parent, std::optional<size_t>(0));
  FlagChoice none, slower;
  slower.sets = {measured({"--a"}, 1.05)};
  for (const FlagChoice *defaultsFastest : {&none, &slower}) {
    all = distributionRefinement({"--iree-opt-data-tiling"}, *defaultsFastest,
                                 4);
    ASSERT_TRUE(all.has_value());
    EXPECT_FALSE(all->parent.has_value());
    EXPECT_EQ(all->flags, (FlagSet{"--iree-llvmcpu-matmul-tile-bytes=16384"}));
    EXPECT_EQ(all->input, "");
  }
}

TEST(ModelFlags, TheChosenSetIsTriedWithReassociatedReductions) {
  const std::vector<std::string> cpu = {"--iree-llvmcpu-target-cpu=host"};
  const std::string reassociate =
      "--iree-llvmcpu-reassociate-fp-reductions=true";
  FlagChoice choice;
  // The chosen set builds from the rewritten model; another set has the
  // same flags on the model as given.
  choice.sets = {measured({"--b"}, 0.95), measured({"--b"}, 0.8),
                 measured({"--c"}, 0.5, Status::CompileError)};
  choice.sets[1].input = "flags/rewritten.mlir";
  chooseFlagSet(choice, 0.02);
  std::optional<Refinement> refined = reductionRefinement(cpu, choice);
  ASSERT_TRUE(refined.has_value());
  EXPECT_EQ(refined->parent, std::optional<size_t>(1));
  EXPECT_EQ(refined->flags, (FlagSet{"--b", reassociate}));
  EXPECT_EQ(refined->input, "flags/rewritten.mlir");
  EXPECT_NE(refined->what.find("the chosen set with floating-point "
                               "reductions reassociated"),
            std::string::npos)
      << refined->what;
  // No set chosen: the default flags are refined.
  FlagChoice slower;
  slower.sets = {measured({"--b"}, 1.05)};
  chooseFlagSet(slower, 0.02);
  refined = reductionRefinement(cpu, slower);
  ASSERT_TRUE(refined.has_value());
  EXPECT_FALSE(refined->parent.has_value());
  EXPECT_EQ(refined->flags, (FlagSet{reassociate}));
  EXPECT_EQ(refined->input, "");
  // The user's flags or the chosen set decide it already: theirs stay.
  for (const char *own : {"--iree-llvmcpu-reassociate-fp-reductions=false",
                          "--iree-llvmcpu-mlir-opt-level=O2"}) {
    EXPECT_FALSE(reductionRefinement({own}, choice).has_value()) << own;
    FlagChoice chosenOwn;
    chosenOwn.sets = {measured({"--b", own}, 0.8)};
    chooseFlagSet(chosenOwn, 0.02);
    EXPECT_FALSE(reductionRefinement(cpu, chosenOwn).has_value()) << own;
  }
}

TEST(ModelFlags, RefinementsAreTriedTogetherEachOnce) {
  const FlagSet tiling = {"--iree-global-opt-data-tiling",
                          "--iree-global-opt-enable-early-materialization"};
  const std::vector<std::string> cpu = {"--iree-llvmcpu-target-cpu=host"};
  const std::string tiles = "--iree-llvmcpu-matmul-tile-bytes=16384";
  const std::string reassociate =
      "--iree-llvmcpu-reassociate-fp-reductions=true";
  auto flagsOf = [](const std::vector<Refinement> &refinements) {
    std::vector<FlagSet> flags;
    for (const Refinement &r : refinements)
      flags.push_back(r.flags);
    return flags;
  };
  auto with = [](FlagSet flags, std::initializer_list<std::string> more) {
    flags.insert(flags.end(), more);
    return flags;
  };
  // The data-tiled set is chosen: finer tiles, finer tiles with
  // reassociated reductions and reassociated reductions, all refining it.
  FlagChoice chosen;
  chosen.sets = {measured(tiling, 0.9)};
  chooseFlagSet(chosen, 0.02);
  std::vector<Refinement> two = choiceRefinements(cpu, chosen, 2);
  EXPECT_EQ(flagsOf(two), (std::vector<FlagSet>{
                              with(tiling, {tiles}),
                              with(tiling, {tiles, reassociate}),
                              with(tiling, {reassociate})}));
  ASSERT_EQ(two.size(), 3u);
  EXPECT_EQ(two[2].parent, std::optional<size_t>(0));
  EXPECT_EQ(two[1].parent, std::optional<size_t>(0));
  EXPECT_NE(two[1].what.find("tried for 2 workers, and with floating-point "
                             "reductions reassociated"),
            std::string::npos)
      << two[1].what;
  // Another set is chosen: its reduction refinement refines it.
  FlagChoice other;
  other.sets = {measured({"--b"}, 0.8), measured(tiling, 0.9)};
  chooseFlagSet(other, 0.02);
  EXPECT_EQ(flagsOf(choiceRefinements(cpu, other, 2)),
            (std::vector<FlagSet>{with(tiling, {tiles}),
                                  with(tiling, {tiles, reassociate}),
                                  {"--b", reassociate}}));
  // One worker: the reduction refinement alone.
  EXPECT_EQ(flagsOf(choiceRefinements(cpu, chosen, 1)),
            (std::vector<FlagSet>{with(tiling, {reassociate})}));
  // The user's flags order the reductions: finer tiles alone.
  EXPECT_EQ(flagsOf(choiceRefinements(
                {"--iree-llvmcpu-reassociate-fp-reductions=false"}, chosen, 2)),
            (std::vector<FlagSet>{with(tiling, {tiles})}));
}

TEST(ModelFlags, TheReasonSaysWhatTheChosenSetsModuleWeighs) {
  // A set whose module is 4.3x the default's (the Winograd set's hoisted
  // filters on the PP-OCRv4 detector: 12.7 -> 54.9 MB) is chosen, and the
  // reason says what every deployment carries; 1.2x is not called out.
  FlagChoice choice;
  choice.defaultModuleBytes = 12'700'000;
  choice.sets = {measured({"--hoist"}, 0.8)};
  choice.sets[0].moduleBytes = 54'900'000;
  chooseFlagSet(choice, 0.02);
  EXPECT_EQ(choice.chosen, FlagSet{"--hoist"});
  EXPECT_NE(choice.reason.find("; its module is 54.9 MB (4.32x the default "
                               "flags' 12.7 MB: constants IREE computes once"),
            std::string::npos)
      << choice.reason;
  Expected<FlagChoice> back = flagChoiceFromJson(toJson(choice));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->defaultModuleBytes, 12'700'000u);
  EXPECT_EQ(back->sets[0].moduleBytes, 54'900'000u);
  choice.sets[0].moduleBytes = 15'240'000;
  chooseFlagSet(choice, 0.02);
  EXPECT_EQ(choice.reason.find("its module is"), std::string::npos)
      << choice.reason;
}

TEST(ModelFlags, RecordsRoundTrip) {
  FlagChoice choice;
  choice.defaultMedianSeconds = 0.01;
  choice.sets = {measured({"--b", "--e=1"}, 0.8),
                 measured({"--d"}, 0, Status::CompileError)};
  chooseFlagSet(choice, 0.02);
  Expected<FlagChoice> back = flagChoiceFromJson(toJson(choice));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->chosen, (FlagSet{"--b", "--e=1"}));
  ASSERT_EQ(back->sets.size(), 2u);
  EXPECT_EQ(back->sets[1].status, Status::CompileError);
  EXPECT_DOUBLE_EQ(back->sets[0].ratio, 0.8);
  Expected<std::vector<FlagSet>> sets =
      flagSetsFromJson(flagSetsToJson(defaultCpuFlagSets()));
  ASSERT_TRUE(static_cast<bool>(sets));
  EXPECT_EQ(*sets, defaultCpuFlagSets());
  EXPECT_FALSE(static_cast<bool>(
      flagChoiceFromJson(llvm::json::Object{{"chosen", 3}})));
}

} // namespace
