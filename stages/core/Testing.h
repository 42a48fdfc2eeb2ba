//===- Testing.h - Shared helpers for retune's unit tests -------*- C++ -*-===//
//
// Only for *Test.cpp files: builds common Problems and compares goldens.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SUPPORT_TESTING_H
#define RETUNE_SUPPORT_TESTING_H

#include "stages/support/FileUtil.h"
#include "stages/core/ProblemBuilder.h"

#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <vector>

namespace retune::test {


/// Compares `actual` with the golden file at `relativePath` (from the source
/// root); RETUNE_UPDATE_GOLDEN=1 rewrites it instead (review the diff).
inline void expectGolden(StringRef relativePath, const std::string &actual) {
  std::string path = std::string(RETUNE_SOURCE_DIR) + "/" + relativePath.str();
  if (std::getenv("RETUNE_UPDATE_GOLDEN")) {
    ASSERT_FALSE(static_cast<bool>(writeFileIfChanged(path, actual)));
  }
  Expected<std::string> golden = readFile(path);
  ASSERT_TRUE(static_cast<bool>(golden)) << toString(golden.takeError());
  EXPECT_EQ(actual, *golden) << "golden " << path
                             << " differs (RETUNE_UPDATE_GOLDEN=1 rewrites)";
}

/// A fresh directory under the system's temporary directory, named
/// `<prefix>-<random>`, removed when the test program exits: a suite run
/// leaves nothing behind. RETUNE_KEEP_SCRATCH=1 keeps them to look at.
inline std::string scratchDir(llvm::StringRef prefix) {
  struct Created {
    std::vector<std::string> dirs;
    ~Created() {
      if (!std::getenv("RETUNE_KEEP_SCRATCH"))
        for (const std::string &dir : dirs)
          llvm::sys::fs::remove_directories(dir);
    }
  };
  static Created created;
  llvm::SmallString<256> dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(prefix, dir)) {
    ADD_FAILURE() << "cannot create a scratch directory: " << ec.message();
    return "";
  }
  created.dirs.push_back(dir.str().str());
  return dir.str().str();
}

/// `count` timings of `scale` scattered by +-10% (a sine of `step` per
/// sample from `phase`): deterministic samples for the statistics' tests.
inline std::vector<double> scatteredSamples(unsigned count, double scale,
                                            double step, double phase) {
  std::vector<double> values;
  for (unsigned i = 0; i < count; ++i)
    values.push_back(scale * (1 + 0.1 * std::sin(i * step + phase)));
  return values;
}

} // namespace retune::test

#endif // RETUNE_SUPPORT_TESTING_H
