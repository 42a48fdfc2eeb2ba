#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace retune;

TEST(FileUtilTest, UnchangedContentKeepsTheFile) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("fileutil", dir));
  std::string path = (dir + "/a/b/out.txt").str();
  bool changed = false;
  ASSERT_FALSE(static_cast<bool>(writeFileIfChanged(path, "one", &changed)));
  EXPECT_TRUE(changed);
  llvm::sys::fs::file_status before;
  ASSERT_FALSE(llvm::sys::fs::status(path, before));
  ASSERT_FALSE(static_cast<bool>(writeFileIfChanged(path, "one", &changed)));
  EXPECT_FALSE(changed);
  ASSERT_FALSE(static_cast<bool>(writeFileIfChanged(path, "two", &changed)));
  EXPECT_TRUE(changed);
  EXPECT_EQ(*readFile(path), "two");
  // No temp files are left behind.
  std::error_code ec;
  int entries = 0;
  for (llvm::sys::fs::directory_iterator it((dir + "/a/b").str(), ec), end;
       it != end && !ec; it.increment(ec))
    ++entries;
  EXPECT_EQ(entries, 1);
  llvm::sys::fs::remove_directories(dir);
}

TEST(FileUtilTest, MissingFileErrorNamesThePath) {
  Expected<std::string> text = readFile("/nonexistent/retune/file");
  ASSERT_FALSE(static_cast<bool>(text));
  EXPECT_NE(toString(text.takeError()).find("/nonexistent/retune/file"),
            std::string::npos);
}
