//===- IndexingMap.h - A printed indexing map, read once ---------*- C++ -*-===//
//
// `Problem` keeps each operand's indexing map as printed MLIR (its text is
// part of the problem's stable id). What the spaces need from it — which
// loop each result reads, and a result's loop terms (`d1 * 2 + d4`) — is
// read here, by one parser that every space and spec emitter shares, so
// that they all accept the same maps.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CORE_INDEXINGMAP_H
#define RETUNE_CORE_INDEXINGMAP_H

#include "stages/support/LLVM.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <utility>

namespace retune {

/// One result of an indexing map.
struct MapResult {
  /// The result as loop terms with constant coefficients: `d1 * 2 + d4` ->
  /// {{1, 2}, {4, 1}}; constant addends are dropped (they do not change a
  /// tile's extent). Empty when the result is not such a sum (`d0 floordiv
  /// 2`), see `isSum`.
  SmallVector<std::pair<unsigned, int64_t>> terms;
  bool isSum = true;

  /// The loop a plain result `dN` reads; none for any other expression.
  std::optional<unsigned> loop() const {
    if (isSum && terms.size() == 1 && terms[0].second == 1)
      return terms[0].first;
    return std::nullopt;
  }
};

struct IndexingMap {
  unsigned numLoops = 0;
  SmallVector<MapResult> results;

  /// Per result, the loop it reads, or -1 (an expression).
  SmallVector<int> resultLoops() const;
  /// Whether every result is a sum of loop terms.
  bool allSums() const;
  /// Whether the map is the identity over its loops.
  bool isIdentity() const;
};

/// Reads `affine_map<(d0, d1, d2) -> (d0, d1 * 2 + d2)>` (the
/// `affine_map<>` wrapper optional; loops may have any names). None when
/// the text is not a map, or when `numLoops` is given and differs.
std::optional<IndexingMap>
parseIndexingMap(StringRef text, std::optional<unsigned> numLoops = std::nullopt);

} // namespace retune

#endif // RETUNE_CORE_INDEXINGMAP_H
