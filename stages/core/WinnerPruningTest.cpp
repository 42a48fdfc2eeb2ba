//===- WinnerPruningTest.cpp - Which winners the whole model keeps --------===//
#include "stages/core/WinnerPruning.h"

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

} // namespace
} // namespace retune::test
