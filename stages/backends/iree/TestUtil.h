//===- TestUtil.h - Shared helpers of the iree backend's tests --*- C++ -*-===//
#ifndef RETUNE_IREE_TESTUTIL_H
#define RETUNE_IREE_TESTUTIL_H

#include "stages/support/FileUtil.h"
#include "stages/core/Problem.h"

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

/// A fresh scratch directory under the build tree.
inline std::string scratchDir(llvm::StringRef name) {
  llvm::SmallString<256> dir;
  llvm::sys::fs::createUniqueDirectory("retune-iree-" + name, dir);
  return std::string(dir);
}

inline Problem matmulTransposeB() {
  Problem p;
  p.kind = OpKind::Contraction;
  p.opName = "linalg.matmul";
  p.loopRanges = {2048, 10240, 1280};
  p.iteratorTypes = {"parallel", "parallel", "reduction"};
  p.indexingMaps = {"affine_map<(d0, d1, d2) -> (d0, d2)>",
                    "affine_map<(d0, d1, d2) -> (d1, d2)>",
                    "affine_map<(d0, d1, d2) -> (d0, d1)>"};
  p.elementTypes = {"f16", "f16", "f32"};
  p.numInputs = 2;
  p.dimRoles = "mnk";
  p.target = "gfx942";
  return p;
}

inline Problem convNhwcHwcf() {
  Problem p;
  p.kind = OpKind::Convolution;
  p.opName = "linalg.conv_2d_nhwc_hwcf";
  p.loopRanges = {2, 32, 32, 128, 3, 3, 64};
  p.iteratorTypes = {"parallel",  "parallel",  "parallel", "parallel",
                     "reduction", "reduction", "reduction"};
  p.indexingMaps = {
      "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>",
      "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>",
      "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>"};
  p.elementTypes = {"f16", "f16", "f32"};
  p.numInputs = 2;
  p.dimRoles = "boofrrc";
  p.target = "gfx942";
  return p;
}

inline Problem attention() {
  Problem p;
  p.kind = OpKind::Attention;
  p.opName = "iree_linalg_ext.attention";
  p.loopRanges = {2, 10, 4096, 64, 64, 64};
  p.iteratorTypes = {"parallel", "parallel", "parallel",
                     "parallel", "reduction", "reduction"};
  p.indexingMaps = {
      "affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>",
      "affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d5, d4)>",
      "affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d5)>",
      "affine_map<(d0, d1, d2, d3, d4, d5) -> ()>",
      "affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>"};
  p.elementTypes = {"f16", "f16", "f16", "f16", "f16"};
  p.numInputs = 4;
  p.dimRoles = "bbmnkl";
  p.target = "gfx942";
  return p;
}

} // namespace retune::iree::testing

#endif // RETUNE_IREE_TESTUTIL_H
