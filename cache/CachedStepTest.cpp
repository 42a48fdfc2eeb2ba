// The protocol every cached step follows, driven by a step of the test's
// (no compiler, no device): what runs, what is replayed, what is stored.
#include "cache/CachedStep.h"

#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

using namespace retune;

namespace {

class CachedStepTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("cachedstep", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  /// A step whose work writes `result` into `output` (the build's file).
  CachedStep step(std::string key) {
    CachedStep s;
    s.key = std::move(key);
    s.alreadyDone = [this](StringRef key) { return done == key; };
    s.restore = [this](const CacheEntry &entry, StringRef) -> Error {
      auto it = entry.find("out");
      if (it == entry.end() || it->second == "garbage")
        return makeError("unusable entry");
      output = it->second;
      ++restored;
      return Error::success();
    };
    s.run = [this](StringRef) {
      ++runs;
      output = result;
      return Error::success();
    };
    s.outcome = [this]() -> std::optional<CacheEntry> {
      if (!reusable)
        return std::nullopt;
      return CacheEntry{{"out", output}};
    };
    return s;
  }

  llvm::SmallString<128> dir;
  std::string done, output, result = "computed";
  bool reusable = true;
  unsigned runs = 0, restored = 0;
};

TEST_F(CachedStepTest, RunsOnceThenReplaysFromTheCache) {
  ContentCache cache(dir.str().str());
  ASSERT_FALSE(static_cast<bool>(runCachedStep(cache, step("k1"))));
  EXPECT_EQ(runs, 1u);
  output.clear();
  result = "would differ";
  ASSERT_FALSE(static_cast<bool>(runCachedStep(cache, step("k1"))));
  EXPECT_EQ(runs, 1u);
  EXPECT_EQ(restored, 1u);
  EXPECT_EQ(output, "computed");
}

TEST_F(CachedStepTest, AStepThisBuildHoldsDoesNothing) {
  ContentCache cache(dir.str().str());
  done = "k1";
  ASSERT_FALSE(static_cast<bool>(runCachedStep(cache, step("k1"))));
  EXPECT_EQ(runs + restored, 0u);
}

TEST_F(CachedStepTest, OutcomesThatMayDifferAreNotStored) {
  ContentCache cache(dir.str().str());
  reusable = false; // a timeout, a disturbed measurement
  ASSERT_FALSE(static_cast<bool>(runCachedStep(cache, step("k1"))));
  ASSERT_FALSE(static_cast<bool>(runCachedStep(cache, step("k1"))));
  EXPECT_EQ(runs, 2u);
  EXPECT_FALSE(cache.lookup("k1").has_value());
}

TEST_F(CachedStepTest, AnUnusableEntryIsRedoneAndNoKeyNeverCaches) {
  ContentCache cache(dir.str().str());
  ASSERT_FALSE(static_cast<bool>(cache.store("k1", {{"out", "garbage"}})));
  ASSERT_FALSE(static_cast<bool>(runCachedStep(cache, step("k1"))));
  EXPECT_EQ(runs, 1u);
  EXPECT_EQ(output, "computed");
  // An injected fault has no key: it always runs, and nothing is stored.
  ASSERT_FALSE(static_cast<bool>(runCachedStep(cache, step(""))));
  ASSERT_FALSE(static_cast<bool>(runCachedStep(cache, step(""))));
  EXPECT_EQ(runs, 3u);
}

TEST_F(CachedStepTest, ADeviceLockIsTakenAroundTheWork) {
  ContentCache cache(""); // disabled: the work runs every time
  CachedStep s = step("k1");
  s.deviceLock = "retune-test-cachedstep";
  ASSERT_FALSE(static_cast<bool>(runCachedStep(cache, s)));
  ASSERT_FALSE(static_cast<bool>(runCachedStep(cache, s)));
  EXPECT_EQ(runs, 2u);
}

} // namespace
