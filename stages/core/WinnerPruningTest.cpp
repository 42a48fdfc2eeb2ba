//===- WinnerPruningTest.cpp - Which winners the whole model keeps --------===//
#include "stages/core/WinnerPruning.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <map>

#include <set>

using namespace llvm;

namespace retune::test {
namespace {

/// A model whose time is the baseline's times a factor per linked winner;
/// records which sets were measured.
struct FactorModel {
  std::map<std::string, double> factor;
  std::vector<std::string> tags;

  Expected<Trial> operator()(ArrayRef<Winner> winners, StringRef tag) {
    tags.push_back(tag.str());
    double ratio = 1;
    for (const Winner &w : winners)
      ratio *= factor.at(w.dispatch);
    return Trial{ratio < 1, std::to_string(ratio), ratio};
  }
};

std::vector<Winner> winners(std::initializer_list<const char *> ids) {
  std::vector<Winner> list;
  for (const char *id : ids)
    list.push_back({id, std::string(id) + ".spec.mlir"});
  return list;
}

std::set<std::string> keptIds(const WinnerDecision &d) {
  std::set<std::string> ids;
  for (const Winner &w : d.kept)
    ids.insert(w.dispatch);
  return ids;
}

TEST(WinnerPruning, KeepsAllWhenTogetherFaster) {
  FactorModel model{{{"a", 0.8}, {"b", 1.1}}, {}};
  Expected<WinnerDecision> d = decideWinners(winners({"a", "b"}), std::ref(model));
  ASSERT_TRUE(static_cast<bool>(d));
  EXPECT_EQ(keptIds(*d), (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(d->text, "all winners kept");
  EXPECT_EQ(d->finalTag, "tuned");
  EXPECT_EQ(model.tags, std::vector<std::string>{"tuned"});
}

TEST(WinnerPruning, DropsTheOneThatHurts) {
  FactorModel model{{{"a", 0.9}, {"b", 1.3}, {"c", 0.95}}, {}};
  Expected<WinnerDecision> d =
      decideWinners(winners({"a", "b", "c"}), std::ref(model));
  ASSERT_TRUE(static_cast<bool>(d));
  EXPECT_EQ(keptIds(*d), (std::set<std::string>{"a", "c"}));
  EXPECT_EQ(d->finalTag, "pruned");
  ASSERT_EQ(d->dropped.size(), 1u);
  const json::Object *entry = d->dropped[0].getAsObject();
  EXPECT_EQ(entry->getString("dispatch").value_or(""), "b");
  EXPECT_TRUE(entry->getString("reason").value_or("").starts_with("alone it gives"));
  EXPECT_EQ(model.tags, (std::vector<std::string>{"tuned", "solo-a", "solo-b",
                                                  "solo-c", "pruned"}));
}

/// Winners too small to show alone joined the others for that: when
/// together does not help, they go without a trial of their own.
TEST(WinnerPruning, SmallWinnersAreNeverTriedAlone) {
  FactorModel model{{{"a", 0.97}, {"b", 1.02}, {"c", 1.02}}, {}};
  Expected<WinnerDecision> d = decideWinners(winners({"a", "b", "c"}),
                                             std::ref(model), {"b", "c"});
  ASSERT_TRUE(static_cast<bool>(d));
  EXPECT_EQ(keptIds(*d), (std::set<std::string>{"a"}));
  EXPECT_EQ(model.tags,
            (std::vector<std::string>{"tuned", "solo-a", "pruned"}));
  ASSERT_EQ(d->dropped.size(), 2u);
  for (const json::Value &entry : d->dropped)
    EXPECT_TRUE(entry.getAsObject()->getString("reason").value_or("").ends_with(
        "too small to save the margin alone, it is not tried alone"));
}

/// Winners chosen by the model's profile beside the others are not timed
/// alone when together was timed and did not help; when together failed,
/// they are.
TEST(WinnerPruning, WinnersJudgedInTheModelAreNotTimedAloneAfterTogether) {
  FactorModel model{{{"a", 0.99}, {"b", 1.05}, {"c", 0.97}}, {}};
  Expected<WinnerDecision> d = decideWinners(
      winners({"a", "b", "c"}), std::ref(model), {}, {"a", "b"});
  ASSERT_TRUE(static_cast<bool>(d));
  EXPECT_EQ(keptIds(*d), (std::set<std::string>{"c"}));
  EXPECT_EQ(model.tags,
            (std::vector<std::string>{"tuned", "solo-c", "pruned"}));
  EXPECT_TRUE(d->dropped[0].getAsObject()->getString("reason").value_or("").ends_with(
      "measured in the model's profile beside the others, so it is not timed "
      "alone"));
  FactorModel broken{{{"a", 0.0}, {"b", 0.9}}, {}};
  auto measure = [&](ArrayRef<Winner> some, StringRef tag) -> Expected<Trial> {
    Expected<Trial> trial = broken(some, tag);
    if (trial && trial->ratio == 0)
      return Trial{false, "compile error", 0};
    return trial;
  };
  d = decideWinners(winners({"a", "b"}), measure, {}, {"a", "b"});
  ASSERT_TRUE(static_cast<bool>(d));
  EXPECT_EQ(keptIds(*d), (std::set<std::string>{"b"}));
  EXPECT_EQ(broken.tags, (std::vector<std::string>{"tuned", "solo-a", "solo-b",
                                                   "pruned"}));
}

TEST(WinnerPruning, NoneWhenNothingHelps) {
  FactorModel model{{{"a", 1.2}, {"b", 1.3}}, {}};
  Expected<WinnerDecision> d = decideWinners(winners({"a", "b"}), std::ref(model));
  ASSERT_TRUE(static_cast<bool>(d));
  EXPECT_TRUE(d->kept.empty());
  EXPECT_EQ(d->dropped.size(), 2u);
  EXPECT_EQ(d->text, "no combination of winners made the model faster; the spec is empty");
}

/// Each helps alone, but not together: nothing is kept, and the reason says so.
TEST(WinnerPruning, HelpfulAloneButNotTogether) {
  int calls = 0;
  auto measure = [&](ArrayRef<Winner> ws, StringRef) -> Expected<Trial> {
    ++calls;
    return Trial{ws.size() == 1, ws.size() == 1 ? "0.9" : "1.2"};
  };
  Expected<WinnerDecision> d = decideWinners(winners({"a", "b"}), measure);
  ASSERT_TRUE(static_cast<bool>(d));
  EXPECT_TRUE(d->kept.empty());
  ASSERT_EQ(d->dropped.size(), 2u);
  EXPECT_EQ(d->dropped[0].getAsObject()->getString("reason").value_or(""),
            "together the remaining winners give 1.2");
  EXPECT_EQ(calls, 3); // all, then each alone; no second "all"
}

TEST(WinnerPruning, EmptyMeasuresTheBaselineOnly) {
  FactorModel model;
  Expected<WinnerDecision> d = decideWinners({}, std::ref(model));
  ASSERT_TRUE(static_cast<bool>(d));
  EXPECT_EQ(d->text, "no dispatch had a winner; the spec is empty");
  EXPECT_EQ(model.tags.size(), 1u);
}

TEST(WinnerPruning, MeasurementErrorsAbort) {
  auto measure = [](ArrayRef<Winner>, StringRef tag) -> Expected<Trial> {
    return createStringError(inconvertibleErrorCode(), "bench tool missing: " + tag);
  };
  Expected<WinnerDecision> d = decideWinners(winners({"a"}), measure);
  ASSERT_FALSE(static_cast<bool>(d));
  EXPECT_EQ(toString(d.takeError()), "bench tool missing: tuned");
}

TEST(WinnerPruning, InModelChoicePicksWhatTheModelSees) {
  // "a.0" is the fastest on its dispatch but slows the model; "a.1" helps
  // and ends the dispatch's trials ("a.2" is not compiled); none of "b"'s
  // options helps; "c.0" fails to run in the model.
  FactorModel model;
  model.factor = {{"a.0", 1.05}, {"a.1", 0.8}, {"a.2", 0.9},
                  {"b.0", 1.01}, {"c.0", 0.0}};
  std::vector<DispatchOptions> dispatches = {
      {"a", {{"a.0", "a0.spec.mlir"}, {"a.1", "a1.spec.mlir"}, {"a.2", "a2.spec.mlir"}}},
      {"b", {{"b.0", "b0.spec.mlir"}}},
      {"c", {{"c.0", "c0.spec.mlir"}}}};
  auto measure = [&](ArrayRef<Winner> some, StringRef tag) -> Expected<Trial> {
    Expected<Trial> trial = model(some, tag);
    if (trial && trial->ratio == 0)
      return Trial{false, "compile error", 0};
    return trial;
  };
  Expected<InModelChoice> choice = chooseInModel(dispatches, measure);
  ASSERT_TRUE(static_cast<bool>(choice)) << toString(choice.takeError());
  ASSERT_EQ(choice->chosen.size(), 1u);
  EXPECT_EQ(choice->chosen[0].spec, "a1.spec.mlir");
  EXPECT_EQ(choice->trials.size(), 4u);
  EXPECT_EQ(model.tags.front(), "option-a-0");
  EXPECT_FALSE(llvm::is_contained(model.tags, "option-a-2"));
  const json::Object *slower = choice->trials.front().getAsObject();
  EXPECT_EQ(slower->getString("measured").value_or(""), "1.050000");
  const json::Object *failed = choice->trials.back().getAsObject();
  EXPECT_EQ(failed->getString("failed").value_or(""), "compile error");
  // "b" and "c" are dropped, with what the model measured.
  ASSERT_EQ(choice->dropped.size(), 2u);
  const json::Object *b = choice->dropped[0].getAsObject();
  EXPECT_EQ(b->getString("dispatch").value_or(""), "b");
  EXPECT_EQ(b->getString("reason").value_or(""), "alone it gives 1.010000");
}

/// A model profiled per dispatch: each dispatch's time a run (mean and
/// fastest), times the build's drift, times its linked option's factor;
/// options in `broken` fail any build they are in.
struct ProfiledModel {
  StringMap<InModelTime> baseline{
      {"a", {100, 90}}, {"b", {50, 45}}, {"c", {20, 18}}, {"d", {10, 9}}};
  std::map<std::string, double> factor;
  InModelTime drift{1, 1};
  std::set<std::string> broken;
  std::vector<std::string> tags;

  Expected<ProfiledBuild> operator()(ArrayRef<Winner> winners, StringRef tag) {
    tags.push_back(tag.str());
    ProfiledBuild build;
    for (const Winner &w : winners)
      if (broken.count(w.spec))
        build.failure = "compile error: " + w.spec;
    if (!build.failure.empty())
      return build;
    for (const auto &[id, t] : baseline)
      build.inModel[id] = {t.medianUs * drift.medianUs,
                           t.fastestUs * drift.fastestUs};
    for (const Winner &w : winners) {
      InModelTime &t = build.inModel[w.dispatch];
      t.medianUs *= factor.at(w.spec);
      t.fastestUs *= factor.at(w.spec);
    }
    return build;
  }
};

std::vector<DispatchOptions> optionsOf(
    std::initializer_list<std::pair<const char *, unsigned>> counts) {
  std::vector<DispatchOptions> dispatches;
  for (auto [id, count] : counts) {
    DispatchOptions d{id, {}};
    for (unsigned k = 0; k < count; ++k)
      d.options.push_back({id, formatv("{0}{1}", id, k).str()});
    dispatches.push_back(std::move(d));
  }
  return dispatches;
}

TEST(WinnerPruning, ProfiledRoundsTryEveryDispatchsNextOptionInOneBuild) {
  // "a0" slows its dispatch and "a1" helps; "b0" helps at once; "c"'s one
  // option is within the margin; "d"'s two options fail in the model; "e"
  // has no time in the baseline's profile and is measured alone.
  ProfiledModel model;
  model.factor = {{"a0", 1.2}, {"a1", 0.8}, {"b0", 0.9}, {"c0", 0.99},
                  {"d0", 0.5}, {"d1", 0.5}};
  model.broken = {"d0", "d1"};
  std::vector<DispatchOptions> dispatches =
      optionsOf({{"a", 2}, {"b", 1}, {"c", 1}, {"d", 2}, {"e", 1}});
  FactorModel whole;
  whole.factor = {{"e", 0.9}};
  auto measure = [&](ArrayRef<Winner> some, StringRef tag) {
    return whole(some, tag);
  };
  Expected<InModelChoice> choice = chooseInModelByProfile(
      dispatches, model.baseline, std::ref(model), measure);
  ASSERT_TRUE(static_cast<bool>(choice)) << toString(choice.takeError());
  std::vector<std::string> chosen;
  for (const Winner &w : choice->chosen)
    chosen.push_back(w.spec);
  EXPECT_EQ(chosen, (std::vector<std::string>{"a1", "b0", "e0"}));
  // Round 0 builds a0, b0, c0 and d0 together; it fails (d0), so each gets
  // a build of its own; round 1 builds a1 and d1 together, fails again.
  EXPECT_EQ(model.tags,
            (std::vector<std::string>{"round-0", "round-0-a", "round-0-b",
                                      "round-0-c", "round-0-d", "round-1",
                                      "round-1-a", "round-1-d"}));
  EXPECT_EQ(whole.tags, (std::vector<std::string>{"option-e-0"}));
  EXPECT_NEAR(choice->savedUs.lookup("a"), 20, 1e-9);
  EXPECT_NEAR(choice->savedUs.lookup("b"), 5, 1e-9);
  ASSERT_EQ(choice->dropped.size(), 2u);
  const json::Object *c = choice->dropped[0].getAsObject();
  EXPECT_EQ(c->getString("dispatch").value_or(""), "c");
  EXPECT_NE(c->getString("reason").value_or("").find(
                "in the model it runs 0.990x its time in the model without a "
                "spec by its median call, 0.990x at its fastest calls (20.0 -> "
                "19.8 us a run"),
            std::string::npos);
  const json::Object *d = choice->dropped[1].getAsObject();
  EXPECT_NE(d->getString("reason").value_or("").find(
                "none of its 2 fastest candidates helps (last: compile error: "
                "d1)"),
            std::string::npos);
}

TEST(WinnerPruning, ProfiledRoundsNeedOneBuildWhenEveryOptionHelps) {
  ProfiledModel model;
  model.factor = {{"a0", 0.9}, {"b0", 0.5}, {"c0", 0.96}, {"d0", 0.7}};
  FactorModel whole;
  auto measure = [&](ArrayRef<Winner> some, StringRef tag) {
    return whole(some, tag);
  };
  Expected<InModelChoice> choice = chooseInModelByProfile(
      optionsOf({{"a", 3}, {"b", 3}, {"c", 3}, {"d", 3}}), model.baseline,
      std::ref(model), measure);
  ASSERT_TRUE(static_cast<bool>(choice)) << toString(choice.takeError());
  EXPECT_EQ(choice->chosen.size(), 4u);
  EXPECT_EQ(model.tags, (std::vector<std::string>{"round-0"}));
  EXPECT_TRUE(whole.tags.empty());
  const json::Object *trial = choice->trials[1].getAsObject();
  EXPECT_DOUBLE_EQ(*trial->getNumber("dispatch_in_model_ratio"), 0.5);
}

TEST(WinnerPruning, ProfiledRoundsJudgeBeyondTheBuildsDrift) {
  // Measured on the CRNN: in one build every dispatch's fastest calls ran
  // about 0.6x and their mean about 1.25x, touched or not. Beside three
  // untouched dispatches, "a0" (no change) is not chosen, "b0" (0.9x) is,
  // by both its mean and its fastest calls.
  ProfiledModel model;
  for (const char *id : {"x", "y", "z"})
    model.baseline[id] = {30, 25};
  model.drift = {1.25, 0.6};
  model.factor = {{"a0", 1.0}, {"b0", 0.9}};
  FactorModel whole;
  auto measure = [&](ArrayRef<Winner> some, StringRef tag) {
    return whole(some, tag);
  };
  std::vector<DispatchOptions> dispatches = optionsOf({{"a", 1}, {"b", 1}});
  Expected<InModelChoice> choice = chooseInModelByProfile(
      dispatches, model.baseline, std::ref(model), measure);
  ASSERT_TRUE(static_cast<bool>(choice)) << toString(choice.takeError());
  ASSERT_EQ(choice->chosen.size(), 1u);
  EXPECT_EQ(choice->chosen[0].spec, "b0");
  const json::Object *b = choice->trials[1].getAsObject();
  EXPECT_NEAR(*b->getNumber("dispatch_in_model_ratio"), 0.9, 1e-9);
  EXPECT_NEAR(*b->getNumber("dispatch_in_model_fastest_ratio"), 0.9, 1e-9);
  EXPECT_NE(b->getString("measured").value_or("").find(
                "over the 1.250x and 0.600x the untouched dispatches ran"),
            std::string::npos);
  // Uncorrected, "a0"'s fastest calls would have looked 0.6x.
  const json::Object *a = choice->trials[0].getAsObject();
  EXPECT_NEAR(*a->getNumber("dispatch_in_model_fastest_ratio"), 1.0, 1e-9);
}

/// The choice among "a"'s one option when every round profiles as `build`.
Expected<InModelChoice> chooseFromOneProfile(const ProfiledModel &model,
                                             const ProfiledBuild &build) {
  FactorModel whole;
  auto measure = [&](ArrayRef<Winner> some, StringRef tag) {
    return whole(some, tag);
  };
  auto profile = [&](ArrayRef<Winner>, StringRef) -> Expected<ProfiledBuild> {
    return build;
  };
  return chooseInModelByProfile(optionsOf({{"a", 1}}), model.baseline, profile,
                                measure);
}

TEST(WinnerPruning, ProfiledRoundsNeedTheMeanAndTheFastestCallsToAgree) {
  // Faster at its fastest calls but slower on average: not chosen.
  ProfiledModel model;
  ProfiledBuild build;
  for (const auto &[id, t] : model.baseline)
    build.inModel[id] = t;
  build.inModel["a"] = {110, 60};
  Expected<InModelChoice> choice = chooseFromOneProfile(model, build);
  ASSERT_TRUE(static_cast<bool>(choice)) << toString(choice.takeError());
  EXPECT_TRUE(choice->chosen.empty());
  EXPECT_NE(choice->dropped[0].getAsObject()->getString("reason").value_or("").find(
                "1.100x its time in the model without a spec by its median "
                "call, 0.667x at its fastest calls"),
            std::string::npos);
}

TEST(WinnerPruning, AMeasureAPhaseOfTheMachineDriftedIsLeftOut) {
  // The ViT at 2 threads: a phase of the machine slowed the baseline
  // profile's typical calls, not its fastest ones. The untouched
  // dispatches' median calls ran 0.6x in the round, their fastest calls
  // 1.0x: corrected by that drift, "a"'s median reads 1.08x and its fastest
  // calls 0.7x. The fastest calls decide alone.
  ProfiledModel model;
  ProfiledBuild build;
  for (const auto &[id, t] : model.baseline)
    build.inModel[id] = {t.medianUs * 0.6, t.fastestUs};
  build.inModel["a"] = {65, 63};
  Expected<InModelChoice> choice = chooseFromOneProfile(model, build);
  ASSERT_TRUE(static_cast<bool>(choice)) << toString(choice.takeError());
  ASSERT_EQ(choice->chosen.size(), 1u);
  EXPECT_NE(choice->trials[0].getAsObject()->getString("measured").value_or(
                "").find("judged by its fastest calls alone: the untouched "
                         "dispatches' median calls drifted beyond 1.2x"),
            std::string::npos);
  // No faster at its fastest calls: not chosen, whatever its median.
  build.inModel["a"] = {40, 90};
  choice = chooseFromOneProfile(model, build);
  ASSERT_TRUE(static_cast<bool>(choice)) << toString(choice.takeError());
  EXPECT_TRUE(choice->chosen.empty());
}

TEST(WinnerPruning, TheDriftIsTheUntouchedTimeNotItsMedianRatio) {
  // At 2 threads most dispatches take a few microseconds, the workers'
  // wake-up, which halves or doubles from one profile to the next. Here
  // two of three untouched dispatches ran in half their time, the one that
  // holds the untouched time as before: the build ran as the baseline, and
  // "a" at 0.8x is chosen (a median ratio of 0.5x would read it 1.6x).
  ProfiledModel model;
  model.baseline = {{"a", {100, 90}}, {"x", {1000, 950}}, {"y", {6, 4}},
                    {"z", {6, 4}}};
  ProfiledBuild build;
  build.inModel = {{"a", {80, 72}}, {"x", {1000, 950}}, {"y", {3, 2}},
                   {"z", {3, 2}}};
  std::optional<InModelTime> drift = profileDrift(
      build, model.baseline, {Winner{"a", "a0", 0}});
  ASSERT_TRUE(drift.has_value());
  EXPECT_NEAR(drift->medianUs, 1006.0 / 1012.0, 1e-12);
  Expected<InModelChoice> choice = chooseFromOneProfile(model, build);
  ASSERT_TRUE(static_cast<bool>(choice)) << toString(choice.takeError());
  ASSERT_EQ(choice->chosen.size(), 1u);
  EXPECT_NEAR(*choice->trials[0].getAsObject()->getNumber(
                  "dispatch_in_model_ratio"),
              0.8 * 1012.0 / 1006.0, 1e-9);
}

} // namespace
} // namespace retune::test
