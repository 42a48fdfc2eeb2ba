//===- Testing.h - Shared helpers for retune's unit tests -------*- C++ -*-===//
//
// Only for *Test.cpp files: builds common Problems and compares goldens.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SUPPORT_TESTING_H
#define RETUNE_SUPPORT_TESTING_H

#include "stages/support/FileUtil.h"
#include "stages/core/Problem.h"

#include "gtest/gtest.h"

#include <cstdlib>

namespace retune::test {

/// linalg.matmul C[m,n] += A[m,k] * B[k,n] (or B[n,k] when `transposedB`).
inline Problem matmulProblem(int64_t m, int64_t n, int64_t k,
                             bool transposedB = false) {
  Problem p;
  p.kind = OpKind::Contraction;
  p.opName = "linalg.matmul";
  p.loopRanges = {m, n, k};
  p.iteratorTypes = {"parallel", "parallel", "reduction"};
  p.indexingMaps = {"affine_map<(d0, d1, d2) -> (d0, d2)>",
                    transposedB ? "affine_map<(d0, d1, d2) -> (d1, d2)>"
                                : "affine_map<(d0, d1, d2) -> (d2, d1)>",
                    "affine_map<(d0, d1, d2) -> (d0, d1)>"};
  p.elementTypes = {"f32", "f32", "f32"};
  p.numInputs = 2;
  p.dimRoles = "mnk";
  p.target = "cpu:test";
  return p;
}

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

} // namespace retune::test

#endif // RETUNE_SUPPORT_TESTING_H
