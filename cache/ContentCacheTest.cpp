#include "cache/ContentCache.h"

#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

using namespace retune;

namespace {
class ContentCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("cache", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }
  llvm::SmallString<128> dir;
};
} // namespace

TEST_F(ContentCacheTest, StoreThenLookup) {
  ContentCache cache(dir.str().str());
  EXPECT_FALSE(cache.lookup("abcdef").has_value());
  ASSERT_FALSE(static_cast<bool>(
      cache.store("abcdef", {{"a.so", std::string("\0\1\2", 3)}, {"r.json", "{}"}})));
  auto hit = cache.lookup("abcdef");
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->at("a.so"), std::string("\0\1\2", 3));
  EXPECT_EQ(hit->at("r.json"), "{}");
  EXPECT_EQ(cache.stats().first, 1u);
}

TEST_F(ContentCacheTest, FirstWriterWins) {
  ContentCache cache(dir.str().str());
  ASSERT_FALSE(static_cast<bool>(cache.store("k1", {{"x", "one"}})));
  ASSERT_FALSE(static_cast<bool>(cache.store("k1", {{"x", "two"}})));
  EXPECT_EQ(cache.lookup("k1")->at("x"), "one");
}

TEST_F(ContentCacheTest, DamagedBlobIsAMiss) {
  ContentCache cache(dir.str().str());
  ASSERT_FALSE(static_cast<bool>(cache.store("k2abc", {{"x", "payload"}})));
  ASSERT_FALSE(static_cast<bool>(
      writeFileAtomic((dir + "/k2/k2abc/x").str(), "tampered")));
  EXPECT_FALSE(cache.lookup("k2abc").has_value());
}

TEST_F(ContentCacheTest, DisabledCacheStoresNothing) {
  ContentCache cache("");
  EXPECT_FALSE(cache.enabled());
  ASSERT_FALSE(static_cast<bool>(cache.store("k", {{"x", "y"}})));
  EXPECT_FALSE(cache.lookup("k").has_value());
}

TEST_F(ContentCacheTest, ClearRemovesEntries) {
  ContentCache cache(dir.str().str());
  ASSERT_FALSE(static_cast<bool>(cache.store("k3", {{"x", "y"}})));
  ASSERT_FALSE(static_cast<bool>(cache.clear()));
  EXPECT_FALSE(cache.lookup("k3").has_value());
  EXPECT_EQ(cache.stats().first, 0u);
}

TEST_F(ContentCacheTest, AStrippedManifestIsAMiss) {
  ContentCache cache(dir.str().str());
  ASSERT_FALSE(static_cast<bool>(
      cache.store("abcdef", {{"a.so", "object"}, {"r.json", "{}"}})));
  // Strike the object out of the manifest, keeping it valid JSON.
  std::string manifest = (dir + "/ab/abcdef/manifest.json").str();
  Expected<std::string> text = readFile(manifest);
  ASSERT_TRUE(static_cast<bool>(text));
  size_t at = text->find("\"a.so\"");
  ASSERT_NE(at, std::string::npos);
  std::string stripped =
      text->substr(0, at) + text->substr(text->find('\n', at) + 1);
  ASSERT_FALSE(static_cast<bool>(writeFileAtomic(manifest, stripped)));
  EXPECT_FALSE(cache.lookup("abcdef").has_value());
}

TEST_F(ContentCacheTest, ADamagedEntryIsReplacedAndVerifyFindsDamage) {
  ContentCache cache(dir.str().str());
  ASSERT_FALSE(static_cast<bool>(cache.store("abcdef", {{"r.json", "{}"}})));
  ASSERT_FALSE(static_cast<bool>(
      writeFileAtomic((dir + "/ab/abcdef/r.json").str(), "{broken")));
  EXPECT_EQ(cache.verify(false).damaged.size(), 1u);
  // Stale staging of a process that is gone (pid far above pid_max).
  ASSERT_FALSE(llvm::sys::fs::create_directories(dir + "/ab/abcdef.tmp-99999999"));
  EXPECT_EQ(cache.verify(false).staleStaging.size(), 1u);
  // The next store replaces the damaged entry instead of skipping it.
  ASSERT_FALSE(static_cast<bool>(cache.store("abcdef", {{"r.json", "{}"}})));
  auto hit = cache.lookup("abcdef");
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->at("r.json"), "{}");
  ContentCache::Health repaired = cache.verify(true);
  EXPECT_TRUE(repaired.damaged.empty());
  EXPECT_EQ(cache.verify(false).staleStaging.size(), 0u);
}
