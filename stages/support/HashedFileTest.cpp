#include "stages/support/HashedFile.h"

#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

using namespace retune;

namespace {

class HashedFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("hashedfile", dir));
    path = (dir + "/report/summary.json").str();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  llvm::SmallString<128> dir;
  std::string path;
};

TEST_F(HashedFileTest, WhatWasWrittenVerifies) {
  ASSERT_FALSE(static_cast<bool>(writeHashedFile(path, "{\"a\": 1}\n")));
  EXPECT_EQ(hashPathOf(path), (dir + "/report/.summary.json.blake3").str());
  EXPECT_EQ(verifyHashedFile(path), "");
}

TEST_F(HashedFileTest, EveryDamageIsNamed) {
  ASSERT_FALSE(static_cast<bool>(writeHashedFile(path, "{\"a\": 1}\n")));
  // One changed byte, the same length.
  ASSERT_FALSE(static_cast<bool>(writeFileAtomic(path, "{\"a\": 2}\n")));
  EXPECT_EQ(verifyHashedFile(path), "does not match the hash its step wrote");
  ASSERT_FALSE(static_cast<bool>(writeFileAtomic(path, "{\"a\"")));
  EXPECT_EQ(verifyHashedFile(path), "does not match the hash its step wrote");
  removeHashedFile(path);
  EXPECT_EQ(verifyHashedFile(path), "is missing");
  EXPECT_FALSE(llvm::sys::fs::exists(hashPathOf(path)));
}

TEST_F(HashedFileTest, AFileFromBeforeHashesIsTakenAsWritten) {
  // An older retune wrote it without a hash: the upgrade redoes nothing,
  // and from now on the file is checked like any other.
  ASSERT_FALSE(static_cast<bool>(writeFileAtomic(path, "{\"a\": 1}\n")));
  EXPECT_EQ(verifyHashedFile(path), "");
  EXPECT_TRUE(llvm::sys::fs::exists(hashPathOf(path)));
  ASSERT_FALSE(static_cast<bool>(writeFileAtomic(path, "{\"a\": 2}\n")));
  EXPECT_EQ(verifyHashedFile(path), "does not match the hash its step wrote");
}

TEST_F(HashedFileTest, UnchangedBytesKeepBothFiles) {
  bool changed = false;
  ASSERT_FALSE(static_cast<bool>(writeHashedFile(path, "x", &changed)));
  EXPECT_TRUE(changed);
  ASSERT_FALSE(static_cast<bool>(writeHashedFile(path, "x", &changed)));
  EXPECT_FALSE(changed);
  ASSERT_FALSE(static_cast<bool>(writeHashedFile(path, "y", &changed)));
  EXPECT_TRUE(changed);
  EXPECT_EQ(verifyHashedFile(path), "");
}

} // namespace
