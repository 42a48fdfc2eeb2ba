//===- CpuKnobs.cpp - A point of the CPU knob space -----------------------===//
#include "stages/search/cpu/CpuKnobs.h"

#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace llvm;

namespace retune::cpu {

SmallVector<int64_t> tileChoices(int64_t range, int64_t unit,
                                 int64_t minimum) {
  SmallVector<int64_t> choices;
  if (unit <= 0 || range % unit != 0)
    return choices;
  auto consider = [&](int64_t t) {
    if (t >= minimum && t < range && t % unit == 0 && range % t == 0)
      choices.push_back(t);
  };
  for (int64_t t = unit; t < range; t *= 2)
    consider(t);
  for (int64_t count = 2; count <= range; count *= 2)
    if (range % count == 0)
      consider(range / count);
  llvm::sort(choices);
  choices.erase(std::unique(choices.begin(), choices.end()), choices.end());
  return choices;
}

int64_t registerTileOf(const Analysis &an, const RegisterChoice &r,
                              unsigned dim) {
  if (static_cast<int>(dim) == an.mDim)
    return r.mr;
  if (dim == an.nDim)
    return r.nv * an.width;
  return 1;
}

int64_t blockExtent(const Analysis &an, const Knobs &k, int dim) {
  if (dim < 0)
    return 1;
  return k.outer[dim] ? k.outer[dim] : an.ranges[dim];
}

SmallVector<unsigned> outerDims(const Analysis &an, unsigned threads) {
  SmallVector<unsigned> dims;
  if (threads > 1)
    dims.assign(an.threadDims.begin(), an.threadDims.end());
  else if (an.cacheTiling)
    dims.assign(an.cacheDims.begin(), an.cacheDims.end());
  for (unsigned dim : an.packed.batch)
    if (!llvm::is_contained(dims, dim))
      dims.push_back(dim);
  llvm::sort(dims);
  return dims;
}

int64_t packedPanelBytes(const Analysis &an, const Knobs &k) {
  if (an.packed.panelLoops.empty())
    return 0;
  int64_t panel = an.inBytes;
  for (unsigned dim : an.packed.panelLoops)
    panel *= blockExtent(an, k, dim);
  return panel;
}

int64_t cacheBlockBytes(const Analysis &an, const Knobs &k) {
  int64_t kE = k.kc ? k.kc : an.ranges[an.kDim];
  return (blockExtent(an, k, an.mDim) * kE + kE * blockExtent(an, k, an.nDim)) *
         an.inBytes;
}

//===----------------------------------------------------------------------===//
// Conversions between knobs and configs
//===----------------------------------------------------------------------===//

CpuConfig toConfig(const Analysis &an, const Knobs &k) {
  CpuConfig config;
  unsigned numLoops = an.ranges.size();
  config.outerTiles.assign(k.outer.begin(), k.outer.end());
  config.threads = k.threads;
  config.reductionTiles.assign(numLoops, 0);
  config.reductionTiles[an.kDim] = k.kc;
  for (unsigned i = 0; i < numLoops; ++i)
    config.registerTiles.push_back(registerTileOf(an, k.reg, i));
  config.registerInterchange =
      k.reg.colsOuter ? an.orderColsOuter : an.orderRowsOuter;
  config.kUnroll = k.reg.unroll;
  config.decompose = an.kind == OpKind::Convolution;
  return config;
}

Expected<Knobs> fromConfig(const Analysis &an, const CpuConfig &config) {
  size_t numLoops = an.ranges.size();
  for (auto [name, tiles] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"outer", config.outerTiles},
        {"reduction", config.reductionTiles},
        {"register", config.registerTiles}})
    if (tiles.size() != numLoops && !(name != "register" && tiles.empty()))
      return makeError("shape: " + name + " tiles need one entry per loop (" +
                       Twine(numLoops) + ")");
  if (!config.outerInterchange.empty())
    return makeError("outer order: the space uses the identity outer order");
  Knobs k;
  k.threads = config.threads;
  k.reg.unroll = config.kUnroll;
  if (config.outerTiles.empty())
    k.outer.assign(numLoops, 0);
  else
    k.outer.assign(config.outerTiles.begin(), config.outerTiles.end());
  for (unsigned i = 0; i < numLoops; ++i) {
    int64_t tile = config.registerTiles[i];
    if (static_cast<int>(i) == an.mDim) {
      k.reg.mr = tile;
    } else if (i == an.nDim) {
      if (tile % an.width != 0 || tile <= 0)
        return makeError("vector width: register tile " + Twine(tile) +
                         " on the vectorized loop is not a multiple of " +
                         Twine(an.width) + " elements");
      k.reg.nv = tile / an.width;
    } else if (tile != 1) {
      return makeError("register tile: loop " + Twine(i) +
                       " must have register tile 1, not " + Twine(tile));
    }
    int64_t reduction =
        config.reductionTiles.empty() ? 0 : config.reductionTiles[i];
    if (i == an.kDim)
      k.kc = reduction;
    else if (reduction != 0)
      return makeError("reduction tile: only loop " + Twine(an.kDim) +
                       " (innermost reduction) may be reduction tiled");
  }
  if (config.registerInterchange == an.orderRowsOuter)
    k.reg.colsOuter = false;
  else if (config.registerInterchange == an.orderColsOuter)
    k.reg.colsOuter = true;
  else
    return makeError("register order: the register loops must run other "
                     "parallel loops, rows and vector loops (either order), "
                     "then the reductions");
  if (config.decompose != (an.kind == OpKind::Convolution))
    return makeError(Twine("decompose: must be ") +
                     (an.kind == OpKind::Convolution ? "true" : "false") +
                     " for this op kind");
  if (k.threads == 0)
    return makeError("threads: must be at least 1");
  return k;
}

} // namespace retune::cpu
