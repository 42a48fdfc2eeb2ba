//===- IndexingMap.cpp - A printed indexing map, read once ----------------===//
#include "stages/core/IndexingMap.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

using namespace llvm;

namespace retune {
namespace {

/// `d1 * 2 + d4 + 3` over the loop names `names`; isSum false when a part
/// is neither a loop, an integer, nor a product of those with one loop.
MapResult parseResult(StringRef text, ArrayRef<StringRef> names) {
  MapResult result;
  SmallVector<StringRef> addends;
  text.split(addends, '+', -1, /*KeepEmpty=*/false);
  if (addends.empty())
    result.isSum = false;
  for (StringRef addend : addends) {
    SmallVector<StringRef> factors;
    addend.split(factors, '*', -1, /*KeepEmpty=*/false);
    std::optional<unsigned> loop;
    int64_t coefficient = 1;
    for (StringRef factor : factors) {
      factor = factor.trim();
      const StringRef *name = llvm::find(names, factor);
      int64_t value = 0;
      if (name != names.end() && !loop) {
        loop = static_cast<unsigned>(name - names.begin());
      } else if (!factor.getAsInteger(10, value)) {
        coefficient *= value;
      } else {
        result.isSum = false;
        result.terms.clear();
        return result;
      }
    }
    if (loop)
      result.terms.push_back({*loop, coefficient});
  }
  return result;
}

} // namespace

SmallVector<int> IndexingMap::resultLoops() const {
  SmallVector<int> loops;
  for (const MapResult &result : results) {
    std::optional<unsigned> loop = result.loop();
    loops.push_back(loop ? static_cast<int>(*loop) : -1);
  }
  return loops;
}

bool IndexingMap::allSums() const {
  return llvm::all_of(results, [](const MapResult &r) { return r.isSum; });
}

bool IndexingMap::isIdentity() const {
  if (results.size() != numLoops)
    return false;
  for (auto [index, result] : llvm::enumerate(results))
    if (result.loop() != std::optional<unsigned>(index))
      return false;
  return true;
}

std::optional<IndexingMap> parseIndexingMap(StringRef text,
                                            std::optional<unsigned> numLoops) {
  StringRef body = text.trim();
  body.consume_front("affine_map<");
  body.consume_back(">");
  auto [lhs, rhs] = body.split("->");
  lhs = lhs.trim();
  rhs = rhs.trim();
  if (!lhs.consume_front("(") || !lhs.consume_back(")") ||
      !rhs.consume_front("(") || !rhs.consume_back(")"))
    return std::nullopt;
  SmallVector<StringRef> names, results;
  lhs.split(names, ',', -1, /*KeepEmpty=*/false);
  for (StringRef &name : names)
    name = name.trim();
  if (numLoops && names.size() != *numLoops)
    return std::nullopt;
  IndexingMap map;
  map.numLoops = names.size();
  rhs.split(results, ',', -1, /*KeepEmpty=*/false);
  for (StringRef result : results)
    map.results.push_back(parseResult(result.trim(), names));
  return map;
}

} // namespace retune
