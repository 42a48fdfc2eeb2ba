//===- LoadDistribution.cpp - Can the threads load a promoted tile? -------===//
#include "stages/search/gpu/LoadDistribution.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <numeric>

namespace retune::gpu {

SmallVector<int64_t> deriveElementTile(ArrayRef<int64_t> shape, int64_t threads,
                                       int64_t elementBits) {
  SmallVector<int64_t> tile(shape.size(), 1);
  if (shape.empty() || threads <= 0 || elementBits <= 0)
    return tile;
  int64_t vectorSize = std::max<int64_t>(1, kPreferredCopyNumBits / elementBits);
  int64_t inner = shape.back();
  int64_t flat = std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
  // Uneven trips: IREE keeps the plain vector size (or the whole inner dim).
  if (flat % threads != 0) {
    tile.back() = inner >= vectorSize ? vectorSize : inner;
    return tile;
  }
  // No vector longer than one thread's share, so no lane is masked off.
  int64_t width = std::min(vectorSize, flat / threads);
  if (inner % width != 0 && width % inner != 0)
    return tile;
  tile.back() = std::min(inner, width);
  if (inner >= width)
    return tile;
  // A short inner dim: whole outer dims join the vector while they fit.
  width /= inner;
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) {
    if (width % shape[i] != 0)
      break;
    tile[i] = shape[i];
    width /= shape[i];
  }
  return tile;
}

bool promotedReadDistributes(ArrayRef<int64_t> shape, int64_t threads, int64_t elementBits) {
  if (shape.empty())
    return false;
  SmallVector<int64_t> element = deriveElementTile(shape, threads, elementBits);
  int64_t residual = threads;
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    if (element[i] <= 0 || shape[i] % element[i] != 0)
      return false;
    int64_t size = shape[i] / element[i];
    // Threads go innermost first; a dim takes all of them or a divisor.
    int64_t block;
    if (residual % size == 0)
      block = size;
    else if (size % residual == 0)
      block = residual;
    else
      return false;
    residual /= block;
  }
  return true;
}

namespace {

/// getDerivedThreadLayout on [outer, inner] after the element tile.
Expr threadLayoutExists(Model &md, Expr outer, Expr inner, Expr threads) {
  // ceil(threads / inner): equal to the quotient where it matters, and never
  // zero, so no branch of the formula divides by zero.
  Expr residual = md.div(md.add(threads, md.sub(inner, md.c(1))), inner);
  Expr innerIsDivisor = md.land(md.divides(inner, threads),
                                md.lor(md.divides(outer, residual), md.divides(residual, outer)));
  // When the inner dim takes every thread, the outer dim takes none.
  return md.lor(innerIsDivisor, md.divides(threads, inner));
}

/// The even-trips branch of deriveElementTile for a vector width `width`
/// (an expression dividing one thread's share).
Expr evenTripsDistribute(Model &md, Expr outer, Expr inner, Expr threads, Expr width) {
  Expr one = md.c(1);
  Expr aligned = md.lor(md.divides(width, inner), md.divides(inner, width));
  Expr unitTile = md.land(md.lnot(aligned), threadLayoutExists(md, outer, inner, threads));
  Expr wide = md.land(md.le(width, inner), threadLayoutExists(md, outer, md.div(inner, width),
                                                              threads));
  // inner < width: the outer dim joins the vector when it divides the rest.
  Expr rest = md.div(width, inner);
  Expr collapsed = md.lor(md.divides(outer, rest), threadLayoutExists(md, outer, one, threads));
  Expr narrow = md.land(md.lt(inner, width), collapsed);
  return md.lor(unitTile, md.land(aligned, md.lor(wide, narrow)));
}

} // namespace

Expr promotedReadDistributes(Model &md, Expr outer, Expr inner, Expr threads,
                             int64_t elementBits) {
  int64_t vectorSize = std::max<int64_t>(1, kPreferredCopyNumBits / elementBits);
  Expr v = md.c(vectorSize);
  Expr flat = md.mul(outer, inner);
  Expr even = md.divides(threads, flat);
  // Uneven: element tile min-free [1, v] when inner >= v, else [1, inner].
  Expr unevenWide = md.land(md.le(v, inner), md.land(md.divides(v, inner),
                                                     threadLayoutExists(md, outer, md.div(inner, v),
                                                                        threads)));
  Expr unevenNarrow = md.land(md.lt(inner, v), threadLayoutExists(md, outer, md.c(1), threads));
  Expr uneven = md.land(md.lnot(even), md.lor(unevenWide, unevenNarrow));
  // Even: width = min(v, share); share is a ceiling so it is never zero.
  Expr share = md.div(md.add(flat, md.sub(threads, md.c(1))), threads);
  Expr fullWidth = md.land(md.le(v, share), evenTripsDistribute(md, outer, inner, threads, v));
  Expr shareWidth = md.land(md.lt(share, v), evenTripsDistribute(md, outer, inner, threads, share));
  return md.lor(uneven, md.land(even, md.lor(fullWidth, shareWidth)));
}

SmallVector<int64_t> operandTileShape(ArrayRef<MapResult> results, ArrayRef<int64_t> loopTiles) {
  SmallVector<int64_t> shape;
  for (const MapResult &result : results) {
    int64_t extent = 1;
    for (auto [loop, coeff] : result.terms)
      if (loop < loopTiles.size())
        extent += coeff * (loopTiles[loop] - 1);
    shape.push_back(extent);
  }
  return shape;
}

} // namespace retune::gpu
