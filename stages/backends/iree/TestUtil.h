//===- TestUtil.h - Shared helpers of the iree backend's tests --*- C++ -*-===//
#ifndef RETUNE_IREE_TESTUTIL_H
#define RETUNE_IREE_TESTUTIL_H

#include "stages/support/FileUtil.h"
#include "stages/core/ProblemBuilder.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"

#include <cstdlib>
#include "stages/core/Testing.h"

#include <gtest/gtest.h>
#include <string>

namespace retune::iree::testing {

inline std::string testdata(llvm::StringRef name) {
  return std::string(RETUNE_IREE_TESTDATA) + "/" + name.str();
}

inline std::string readTestFile(llvm::StringRef path) {
  llvm::Expected<std::string> text = readFile(path);
  if (!text) {
    ADD_FAILURE() << llvm::toString(text.takeError());
    return {};
  }
  return *text;
}

/// Compares `actual` with the golden file; RETUNE_UPDATE_GOLDEN=1 rewrites it.
inline void expectGolden(llvm::StringRef actual, llvm::StringRef goldenName) {
  test::expectGolden("stages/backends/iree/testdata/golden/" + goldenName.str(),
                     actual.str());
}

/// A fresh scratch directory, removed when the test program exits
/// (test::scratchDir).
inline std::string scratchDir(llvm::StringRef name) {
  return test::scratchDir(("retune-iree-" + name).str());
}

inline Problem matmulTransposeB() {
  return matmulProblem(2048, 10240, 1280, /*transposedB=*/true,
                       {"f16", "f32", "gfx942"});
}

inline Problem convNhwcHwcf() {
  return convNhwcHwcfProblem(2, 32, 32, 128, 3, 3, 64, {"f16", "f32", "gfx942"});
}

inline Problem attention() {
  return attentionProblem({2, 10}, 4096, 64, 64, 64, /*transposedV=*/true,
                          {"f16", "f16", "gfx942"});
}

} // namespace retune::iree::testing

#endif // RETUNE_IREE_TESTUTIL_H
