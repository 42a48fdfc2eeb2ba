//===- Spaces.cpp - Constraint systems per pipeline and op kind -----------===//
//
// Each builder states the reference tuner's constraints (amdsharktuner.md
// §3.4) as a Model. Variables whose values are divisors of a problem extent
// get explicit domains (the "divisor lattice"); subgroup counts and the
// helper variables get intervals, and the helpers name the expression that
// defines them so the C++ engines can compute rather than search them.
//
//===----------------------------------------------------------------------===//
#include "stages/core/IndexingMap.h"
#include "stages/search/gpu/Candidates.h"
#include "stages/search/gpu/LoadDistribution.h"

#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <numeric>

namespace retune::gpu {
namespace {

constexpr int64_t kMaxTile = 512;
constexpr int64_t kMaxCount = 32;

/// Divisors of `n` within [lo, hi] that are multiples of `step`.
SmallVector<int64_t> divisors(int64_t n, int64_t lo, int64_t hi, int64_t step = 1) {
  SmallVector<int64_t> result;
  for (int64_t d = std::max<int64_t>(lo, 1); d <= std::min(n, hi); ++d)
    if (n % d == 0 && d % step == 0)
      result.push_back(d);
  return result;
}

int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/// The loops of a contraction-shaped problem by role, innermost last.
struct GemmDims {
  SmallVector<unsigned> batch, m, n, k;
  SmallVector<int64_t> sizes; // per loop
  unsigned numLoops = 0;
};

/// The subgroup count limit of the reference: exactly `numSubgroups`, or
/// 1..10 when it is -1.
Expr subgroupLimit(Model &model, Expr count, int64_t numSubgroups) {
  if (numSubgroups > 0)
    return model.eq(count, model.c(numSubgroups));
  return model.land(model.le(model.c(1), count), model.le(count, model.c(10)));
}

/// The loop the innermost result of `map` reads; -1 for an expression or
/// an unreadable map.
int innermostLoop(StringRef map) {
  std::optional<IndexingMap> parsed = parseIndexingMap(map);
  if (!parsed || parsed->results.empty())
    return -1;
  std::optional<unsigned> loop = parsed->results.back().loop();
  return loop ? static_cast<int>(*loop) : -1;
}

/// The reference over-pads only when the LHS is not transposed, i.e. when
/// its innermost dim is a reduction dim.
bool lhsTransposed(const Problem &problem, const GemmDims &dims) {
  if (problem.indexingMaps.empty())
    return false;
  int inner = innermostLoop(problem.indexingMaps[0]);
  return inner >= 0 && !llvm::is_contained(dims.k, static_cast<unsigned>(inner));
}

int64_t bytesOf(const Problem &problem, unsigned operand) {
  if (operand >= problem.elementTypes.size())
    return 0;
  return elementBytes(problem.elementTypes[operand]);
}

//===----------------------------------------------------------------------===//
// VectorDistribute, contraction and nhwc_hwcf convolution.
//===----------------------------------------------------------------------===//

/// The promoted read of `operand` as a tile [outer, inner] over the tile
/// expressions of `tiled` loops (all other loops tile to 1). Each result of
/// the operand's map spans 1 + sum(coeff * (tile - 1)) elements, so a conv
/// input dim "d2 * 2 + d5" spans 2 * (m - 1) + 1. std::nullopt when the map
/// is not a sum of loop terms or more than two dims of the tile exceed 1
/// (the formula covers two; no VD space is built for such layouts).
std::optional<std::pair<Expr, Expr>> promotedReadTile(Model &md, const Problem &problem,
                                                      unsigned operand,
                                                      ArrayRef<std::pair<unsigned, Expr>> tiled) {
  if (operand >= problem.indexingMaps.size())
    return std::nullopt;
  std::optional<IndexingMap> map = parseIndexingMap(problem.indexingMaps[operand]);
  if (!map || !map->allSums() || map->results.empty())
    return std::nullopt;
  SmallVector<Expr> outer;
  Expr inner = md.c(1);
  for (auto [index, result] : llvm::enumerate(map->results)) {
    std::optional<Expr> extent;
    for (auto [loop, coeff] : result.terms) {
      const auto *it = llvm::find_if(tiled, [&](const auto &t) { return t.first == loop; });
      if (it == tiled.end())
        continue;
      if (extent)
        return std::nullopt; // Two tiled loops in one dim: not modelled.
      extent = coeff == 1 ? it->second
                          : md.add(md.mul(md.c(coeff), md.sub(it->second, md.c(1))), md.c(1));
    }
    bool last = index + 1 == map->results.size();
    if (last)
      inner = extent ? *extent : md.c(1);
    else if (extent)
      outer.push_back(*extent);
  }
  if (outer.size() > 1)
    return std::nullopt;
  return std::make_pair(outer.empty() ? md.c(1) : outer.front(), inner);
}

std::optional<Space> buildVectorDistribute(const Problem &problem, const GpuTarget &target,
                                           const GpuSearchOptions &options, const GemmDims &dims,
                                           const Intrinsic &mma, bool isConv) {
  Space space;
  space.label = "vector_distribute/" + mma.name;
  Model &md = space.model;
  int64_t sizeM = dims.sizes[dims.m.back()], sizeN = dims.sizes[dims.n.back()],
          sizeK = dims.sizes[dims.k.back()];
  int64_t mn = mma.m, ik = mma.k, sgSize = target.minSubgroupSize();

  Expr m = md.addVarIn("m", divisors(sizeM, mn, kMaxTile));
  Expr n = md.addVarIn("n", divisors(sizeN, mn, kMaxTile));
  Expr k = md.addVarIn("k", divisors(sizeK, ik, kMaxTile));
  Expr sgM = md.addVar("sg_m_cnt", 1, kMaxCount);
  Expr sgN = md.addVar("sg_n_cnt", 1, kMaxCount);
  Expr cMn = md.c(mn), cK = md.c(ik);
  Expr mT = md.addVar("sg_m_tcnt", 1, kMaxCount, /*key=*/false);
  md.define(mT, md.div(m, md.mul(sgM, cMn)));
  Expr nT = md.addVar("sg_n_tcnt", 1, kMaxCount, false);
  md.define(nT, md.div(n, md.mul(sgN, cMn)));
  Expr kT = md.addVar("sg_k_tcnt", 1, kMaxCount, false);
  md.define(kT, md.div(k, cK));
  // IREE's VectorDistribute workgroup is 1-D: [threads, 1, 1]
  // (LLVMGPUConstraintGenerator.cpp, emitVectorDistributeConstraints,
  // "wg_size_x == total_threads"; KernelConfig.cpp sets the same).
  Expr wgX = md.addVar("wg_x", 1, target.maxThreadsPerWorkgroup, false);
  md.define(wgX, md.mul(md.mul(md.c(sgSize), sgM), sgN));
  Expr wgY = md.addVar("wg_y", 1, 1, false);
  md.define(wgY, md.c(1));
  Expr wgZ = md.addVar("wg_z", 1, 1, false);
  md.define(wgZ, md.c(1));
  // Whole subgroups only; the explicit domain also keeps the nonlinear
  // load rule below small enough for the Z3 engines to take as a table.
  SmallVector<int64_t> threadCounts;
  for (int64_t t = sgSize; t <= target.maxThreadsPerWorkgroup; t += sgSize)
    threadCounts.push_back(t);
  Expr threads = md.addVarIn("wg_threads", threadCounts, false);
  md.define(threads, md.mul(md.mul(wgX, wgY), wgZ));

  md.require(md.divides(m, md.c(sizeM)), "M % m == 0");
  md.require(md.divides(n, md.c(sizeN)), "N % n == 0");
  md.require(md.divides(k, md.c(sizeK)), "K % k == 0");
  md.require(md.eq(m, md.mul(md.mul(sgM, mT), cMn)), "m == sg_m_cnt * sg_m_tcnt * intrinsic_mn");
  md.require(md.eq(n, md.mul(md.mul(sgN, nT), cMn)), "n == sg_n_cnt * sg_n_tcnt * intrinsic_mn");
  md.require(md.eq(k, md.mul(kT, cK)), "k == sg_k_tcnt * intrinsic_k");
  md.require(md.eq(wgX, md.mul(md.mul(md.c(sgSize), sgM), sgN)),
             "wg_x == subgroup_size * sg_m_cnt * sg_n_cnt");
  md.require(md.eq(wgY, md.c(1)), "wg_y == 1");
  md.require(md.eq(wgZ, md.c(1)), "wg_z == 1");
  md.require(md.eq(threads, md.mul(md.mul(wgX, wgY), wgZ)), "wg_threads == wg_x * wg_y * wg_z");
  md.require(md.lor(md.le(wgX, n), md.le(wgX, m)), "wg_x <= n or wg_x <= m");
  md.require(md.divides(cMn, k), "k % intrinsic_mn == 0");
  md.require(md.divides(threads, md.mul(k, n)), "(k * n) % wg_threads == 0");
  md.require(md.divides(threads, md.mul(k, m)), "(k * m) % wg_threads == 0");
  // The exact rule behind IREE's "failed to derive layout for promoted
  // read-like op" (LoadDistribution.h), per promoted operand.
  SmallVector<std::pair<unsigned, Expr>> tiled = {
      {dims.m.back(), m}, {dims.n.back(), n}, {dims.k.back(), k}};
  for (unsigned operand : {0u, 1u}) {
    std::optional<std::pair<Expr, Expr>> tile = promotedReadTile(md, problem, operand, tiled);
    int64_t bits = 8 * bytesOf(problem, operand);
    if (!tile || bits <= 0)
      return std::nullopt;
    md.require(promotedReadDistributes(md, tile->first, tile->second, threads, bits),
               "operand " + std::to_string(operand) + " tile loads distribute over the threads");
  }
  Expr lds = md.add(md.mul(md.c(bytesOf(problem, 0)), md.mul(m, k)),
                    md.mul(md.c(bytesOf(problem, 1)), md.mul(n, k)));
  md.require(md.le(lds, md.c(target.maxWorkgroupMemoryBytes)), "shared memory of A and B tiles");
  md.require(subgroupLimit(md, md.mul(sgM, sgN), options.numSubgroups), "subgroup count");
  if (isConv) {
    md.require(md.le(m, md.c(sizeM)), "tile_m <= M[-1]");
    md.require(md.le(n, md.c(sizeN)), "tile_n <= N");
    md.require(md.le(k, md.c(sizeK)), "tile_k <= K[-1]");
  }

  OpKind kind = problem.kind;
  space.decode = [dims, &mma, sgSize, kind, sizeM, sizeN, sizeK](ArrayRef<int64_t> v) {
    GpuConfig cfg;
    cfg.pipeline = Pipeline::VectorDistribute;
    cfg.kind = kind;
    cfg.mma = &mma;
    cfg.workgroup.assign(dims.numLoops, 0);
    cfg.reduction.assign(dims.numLoops, 0);
    cfg.basisCounts.assign(dims.numLoops, 1);
    for (unsigned d : dims.batch)
      cfg.workgroup[d] = 1;
    for (unsigned d : dims.m)
      cfg.workgroup[d] = 1;
    for (unsigned d : dims.n)
      cfg.workgroup[d] = 1;
    for (unsigned d : dims.k)
      cfg.reduction[d] = 1;
    cfg.workgroup[dims.m.back()] = v[0];
    cfg.workgroup[dims.n.back()] = v[1];
    cfg.reduction[dims.k.back()] = v[2];
    cfg.basisCounts[dims.m.back()] = v[3];
    cfg.basisCounts[dims.n.back()] = v[4];
    for (unsigned d = 0; d < dims.numLoops; ++d)
      cfg.basisMapping.push_back(d);
    cfg.promoteOperands = {0, 1};
    cfg.workgroupSize = {v[8], v[9], v[10]};
    cfg.subgroupSize = sgSize;
    cfg.sgMCount = v[3];
    cfg.sgNCount = v[4];
    cfg.tileM = v[0];
    cfg.tileN = v[1];
    cfg.tileK = v[2];
    cfg.sizeM = sizeM;
    cfg.sizeN = sizeN;
    cfg.sizeK = sizeK;
    return cfg;
  };
  return space;
}

//===----------------------------------------------------------------------===//
// TileAndFuse, contraction / IGEMM / direct convolution.
//===----------------------------------------------------------------------===//

/// Padded extents: the reference's over-padding (dims > 128 to multiples of
/// 128, > 32 to multiples of 32, unless the LHS is transposed), then the
/// innermost M/N/K up to the intrinsic.
SmallVector<int64_t> paddedSizes(const GemmDims &dims, const Intrinsic &mma, bool overPad) {
  SmallVector<int64_t> padded(dims.sizes);
  auto pad = [&](unsigned d) {
    if (!overPad)
      return;
    if (padded[d] > 128)
      padded[d] = roundUp(padded[d], 128);
    else if (padded[d] > 32)
      padded[d] = roundUp(padded[d], 32);
  };
  for (unsigned d : dims.m)
    pad(d);
  for (unsigned d : dims.n)
    pad(d);
  for (unsigned d : dims.k)
    pad(d);
  padded[dims.m.back()] = roundUp(padded[dims.m.back()], mma.m);
  padded[dims.n.back()] = roundUp(padded[dims.n.back()], mma.n);
  padded[dims.k.back()] = roundUp(padded[dims.k.back()], mma.k);
  return padded;
}

struct TileAndFuseShape {
  GemmDims dims;
  /// Convolution loops the IGEMM K loop stands for, and the loop count of
  /// the convolution (for padding_conv); empty for contractions.
  unsigned convLoops = 0;
  SmallVector<unsigned> convMDims, convNDims, convFilterDims, convChannelDims;
  /// Direct convolution: filter loops tiled with reduction 1.
  SmallVector<unsigned> filterDims;
  std::optional<bool> useIgemm;
  bool emitPaddingConv = false;
  bool overPad = true;
};

Space buildTileAndFuse(const Problem &problem, const GpuTarget &target,
                       const GpuSearchOptions &options, const TileAndFuseShape &shape,
                       const Intrinsic &mma) {
  Space space;
  const GemmDims &dims = shape.dims;
  space.label = std::string("tile_and_fuse/") +
                (shape.useIgemm ? (*shape.useIgemm ? "igemm/" : "direct/") : "") + mma.name;
  Model &md = space.model;
  // M takes the intrinsic's m, N its n: NVIDIA's MMA_SYNC is 16x8.
  int64_t mn = mma.m, ik = mma.k, sgSize = target.minSubgroupSize();
  SmallVector<int64_t> padded = paddedSizes(dims, mma, shape.overPad);
  bool needsPadding = padded != dims.sizes;

  // Variable layout (the decoder relies on it): m tiles, n tiles, k tiles,
  // sg_m_cnt, subgroup m tiles, sg_n_cnt, subgroup n tiles, wg_x.
  SmallVector<Expr> mTiles, nTiles, kTiles, sgMTiles, sgNTiles;
  for (unsigned d : dims.m) {
    bool inner = d == dims.m.back();
    mTiles.push_back(md.addVarIn("m" + std::to_string(d),
                                 divisors(padded[d], inner ? mn : 1, kMaxTile, inner ? mn : 1)));
  }
  for (unsigned d : dims.n) {
    bool inner = d == dims.n.back();
    nTiles.push_back(md.addVarIn("n" + std::to_string(d),
                                 divisors(padded[d], inner ? mma.n : 1, kMaxTile, inner ? mma.n : 1)));
  }
  for (unsigned d : dims.k) {
    // The innermost K tile counts intrinsics.
    bool inner = d == dims.k.back();
    int64_t extent = inner ? padded[d] / ik : padded[d];
    kTiles.push_back(md.addVarIn("k" + std::to_string(d), divisors(extent, 1, kMaxTile)));
  }
  Expr sgM = md.addVar("sg_m_cnt", 1, kMaxCount);
  Expr cMn = md.c(mn), cK = md.c(ik);
  Expr prodM = md.product(mTiles), prodN = md.product(nTiles), prodK = md.product(kTiles);
  for (auto [i, d] : llvm::enumerate(dims.m)) {
    bool inner = d == dims.m.back();
    // An outer subgroup tile divides its workgroup tile, hence the padded
    // dim: its domain is that dim's divisor lattice.
    Expr t = inner ? md.addVar("subgroup_m" + std::to_string(d), 1, kMaxCount)
                   : md.addVarIn("subgroup_m" + std::to_string(d), divisors(padded[d], 1, kMaxTile));
    if (inner) {
      // The innermost subgroup tile is what the product constraint leaves.
      Expr outer = md.product(ArrayRef<Expr>(sgMTiles));
      md.define(t, md.div(prodM, md.mul(md.mul(outer, sgM), cMn)));
    }
    sgMTiles.push_back(t);
  }
  Expr sgN = md.addVar("sg_n_cnt", 1, kMaxCount);
  for (unsigned d : dims.n) {
    bool inner = d == dims.n.back();
    Expr t = inner ? md.addVar("subgroup_n" + std::to_string(d), 1, kMaxCount)
                   : md.addVarIn("subgroup_n" + std::to_string(d), divisors(padded[d], 1, kMaxTile));
    if (inner) {
      Expr outer = md.product(ArrayRef<Expr>(sgNTiles));
      md.define(t, md.div(prodN, md.mul(md.mul(outer, sgN), md.c(mma.n))));
    }
    sgNTiles.push_back(t);
  }
  Expr wgX = md.addVar("wg_x", 1, target.maxThreadsPerWorkgroup, false);
  md.define(wgX, md.mul(md.mul(sgM, sgN), md.c(sgSize)));

  auto tileRules = [&](ArrayRef<unsigned> loops, ArrayRef<Expr> tiles, StringRef what) {
    for (auto [d, t] : llvm::zip(loops, tiles)) {
      md.require(md.le(md.c(1), t), (what + " tile >= 1").str());
      md.require(md.le(t, md.c(padded[d])), (what + " tile <= dim").str());
      md.require(md.divides(t, md.c(padded[d])), (what + " tile divides the padded dim").str());
    }
  };
  tileRules(dims.m, mTiles, "m");
  tileRules(dims.n, nTiles, "n");
  tileRules(ArrayRef<unsigned>(dims.k).drop_back(), ArrayRef<Expr>(kTiles).drop_back(), "k");
  Expr mInner = mTiles.back(), nInner = nTiles.back(), kInner = kTiles.back();
  md.require(md.le(cMn, mInner), "m[-1] >= intrinsic_mn");
  md.require(md.divides(cMn, mInner), "m[-1] % intrinsic_mn == 0");
  md.require(md.le(md.c(mma.n), nInner), "n[-1] >= intrinsic_mn");
  md.require(md.divides(md.c(mma.n), nInner), "n[-1] % intrinsic_mn == 0");
  int64_t kExtent = padded[dims.k.back()];
  md.require(md.le(md.c(1), kInner), "k[-1] >= 1");
  md.require(md.le(md.mul(kInner, cK), md.c(kExtent)), "k[-1] * intrinsic_k <= K[-1]");
  md.require(md.divides(md.mul(kInner, cK), md.c(kExtent)), "K[-1] % (k[-1] * intrinsic_k) == 0");
  md.require(md.le(prodM, md.c(kMaxTile)), "prod(m) <= 512");
  md.require(md.le(prodN, md.c(kMaxTile)), "prod(n) <= 512");
  md.require(md.le(prodK, md.c(kMaxTile / ik)), "prod(k) <= 512 / intrinsic_k");
  md.require(md.divides(md.mul(sgMTiles.back(), cMn), mInner),
             "m[-1] % (subgroup_m[-1] * intrinsic_mn) == 0");
  md.require(md.divides(md.mul(sgNTiles.back(), md.c(mma.n)), nInner),
             "n[-1] % (subgroup_n[-1] * intrinsic_mn) == 0");
  for (size_t i = 0; i + 1 < mTiles.size(); ++i)
    md.require(md.divides(sgMTiles[i], mTiles[i]), "outer subgroup m tile divides its tile");
  for (size_t i = 0; i + 1 < nTiles.size(); ++i)
    md.require(md.divides(sgNTiles[i], nTiles[i]), "outer subgroup n tile divides its tile");
  md.require(md.eq(prodM, md.mul(md.mul(md.product(sgMTiles), sgM), cMn)),
             "prod(m) == prod(subgroup_m) * sg_m_cnt * intrinsic_mn");
  md.require(md.eq(prodN, md.mul(md.mul(md.product(sgNTiles), sgN), md.c(mma.n))),
             "prod(n) == prod(subgroup_n) * sg_n_cnt * intrinsic_mn");
  md.require(md.eq(wgX, md.mul(md.mul(sgM, sgN), md.c(sgSize))),
             "wg_x == sg_m_cnt * sg_n_cnt * subgroup_size");
  md.require(md.le(wgX, md.c(target.maxThreadsPerWorkgroup)), "wg_x <= max threads");
  md.require(subgroupLimit(md, md.mul(sgM, sgN), options.numSubgroups), "subgroup count");
  Expr lds = md.mul(md.add(md.mul(md.c(bytesOf(problem, 0)), md.mul(prodM, prodK)),
                           md.mul(md.c(bytesOf(problem, 1)), md.mul(prodN, prodK))),
                    cK);
  md.require(md.le(lds, md.c(target.maxWorkgroupMemoryBytes)), "shared memory of A and B tiles");

  size_t numM = dims.m.size(), numN = dims.n.size(), numK = dims.k.size();
  OpKind kind = problem.kind;
  space.decode = [shape, &mma, sgSize, padded, needsPadding, numM, numN, numK,
                  kind](ArrayRef<int64_t> v) {
    const GemmDims &dims = shape.dims;
    GpuConfig cfg;
    cfg.pipeline = Pipeline::TileAndFuse;
    cfg.kind = kind;
    cfg.mma = &mma;
    cfg.workgroup.assign(dims.numLoops, 0);
    cfg.reduction.assign(dims.numLoops, 0);
    cfg.subgroup.assign(dims.numLoops, 0);
    for (unsigned d : dims.batch)
      cfg.workgroup[d] = cfg.subgroup[d] = 1;
    for (unsigned d : shape.filterDims)
      cfg.reduction[d] = 1;
    size_t at = 0;
    for (unsigned d : dims.m)
      cfg.workgroup[d] = v[at++];
    for (unsigned d : dims.n)
      cfg.workgroup[d] = v[at++];
    for (unsigned d : dims.k)
      cfg.reduction[d] = v[at++];
    cfg.sgMCount = v[at++];
    for (unsigned d : dims.m)
      cfg.subgroup[d] = v[at++];
    cfg.sgNCount = v[at++];
    for (unsigned d : dims.n)
      cfg.subgroup[d] = v[at++];
    cfg.workgroupSize = {v[at], 1, 1};
    cfg.subgroupSize = sgSize;
    cfg.promoteOperands = {0, 1};
    cfg.useIgemm = shape.useIgemm;
    cfg.tileM = cfg.workgroup[dims.m.back()];
    cfg.tileN = cfg.workgroup[dims.n.back()];
    cfg.tileK = cfg.reduction[dims.k.back()];
    cfg.sizeM = padded[dims.m.back()];
    cfg.sizeN = padded[dims.n.back()];
    cfg.sizeK = padded[dims.k.back()];
    if (needsPadding) {
      cfg.padding = cfg.workgroup;
      for (unsigned d : dims.k)
        cfg.padding[d] = cfg.reduction[d];
      cfg.padding[dims.k.back()] *= mma.k;
      if (shape.emitPaddingConv) {
        cfg.paddingConv.assign(shape.convLoops, 0);
        for (auto [conv, igemm] : llvm::zip(shape.convMDims, dims.m))
          cfg.paddingConv[conv] = cfg.padding[igemm];
        for (auto [conv, igemm] : llvm::zip(shape.convNDims, dims.n))
          cfg.paddingConv[conv] = cfg.padding[igemm];
        // The IGEMM K loop is (filter window x input channel), channel
        // innermost: its padding lands on the input channel.
        if (!shape.convChannelDims.empty())
          cfg.paddingConv[shape.convChannelDims.back()] = cfg.padding[dims.k.back()];
      }
    }
    (void)numM;
    (void)numN;
    (void)numK;
    return cfg;
  };
  return space;
}

//===----------------------------------------------------------------------===//
// Attention, VectorDistribute.
//===----------------------------------------------------------------------===//

SubgroupLayout transposed(const SubgroupLayout &l) {
  auto swap = [](std::array<int64_t, 2> a) { return std::array<int64_t, 2>{a[1], a[0]}; };
  return {swap(l.outer), swap(l.thread), swap(l.threadStrides), swap(l.element)};
}

Space buildAttention(const Problem &problem, const GpuTarget &target,
                     const GpuSearchOptions &options, const Intrinsic &qk, const Intrinsic &pv) {
  Space space;
  space.label = "vector_distribute/attention/" + qk.name + "+" + pv.name;
  Model &md = space.model;
  SmallVector<unsigned> mDims = problem.dimsWithRole('m'), nDims = problem.dimsWithRole('n'),
                        k1Dims = problem.dimsWithRole('k'), k2Dims = problem.dimsWithRole('l'),
                        bDims = problem.dimsWithRole('b');
  int64_t sizeM = problem.loopRanges[mDims.back()], sizeN = problem.loopRanges[nDims.back()],
          sizeK1 = problem.extentOf('k'), sizeK2 = problem.loopRanges[k2Dims.back()];
  int64_t sgSize = target.minSubgroupSize();
  // Layout agreement decides these per intrinsic pair, before solving.
  bool colMajor = qk.c == pv.b;
  bool reuse = (colMajor ? transposed(qk.c) : qk.c) == pv.a;

  Expr mTile = md.addVarIn("m_tile", divisors(sizeM, pv.m, kMaxTile));
  Expr nTile = md.addVarIn("n_tile", divisors(sizeN, pv.n, kMaxTile));
  Expr kTile = md.addVarIn("k_tile", divisors(sizeK2, pv.k, kMaxTile));
  Expr sgM = md.addVar("sg_m_cnt", 1, kMaxCount);
  Expr sgN = md.addVar("sg_n_cnt", 1, 1, false);
  md.define(sgN, md.c(1));
  Expr mT = md.addVar("m_tcnt", 1, kMaxCount, false);
  md.define(mT, md.div(mTile, md.mul(sgM, md.c(pv.m))));
  Expr nT = md.addVar("n_tcnt", 1, kMaxCount, false);
  md.define(nT, md.div(nTile, md.mul(sgN, md.c(pv.n))));
  Expr kT = md.addVar("k_tcnt", 1, kMaxCount, false);
  md.define(kT, md.div(kTile, md.c(pv.k)));
  Expr threads = md.addVar("wg_threads", 1, target.maxThreadsPerWorkgroup, false);
  md.define(threads, md.mul(md.mul(sgM, sgN), md.c(sgSize)));

  md.require(md.divides(mTile, md.c(sizeM)), "M % m_tile == 0");
  md.require(md.divides(nTile, md.c(sizeN)), "N % n_tile == 0");
  md.require(md.divides(kTile, md.c(sizeK2)), "K2 % k_tile == 0");
  md.require(md.eq(sgN, md.c(1)), "sg_n_cnt == 1");
  md.require(md.eq(mTile, md.mul(md.mul(sgM, mT), md.c(pv.m))), "m_tile == sg_m_cnt * m_tcnt * pv_mn");
  md.require(md.eq(nTile, md.mul(md.mul(sgN, nT), md.c(pv.n))), "n_tile == sg_n_cnt * n_tcnt * pv_mn");
  md.require(md.eq(kTile, md.mul(kT, md.c(pv.k))), "k_tile == k_tcnt * pv_k");
  md.require(md.divides(md.c(qk.m), mTile), "m_tile % qk_m == 0");
  md.require(md.divides(md.c(qk.n), kTile), "k_tile % qk_n == 0");
  md.require(md.divides(md.c(qk.k), md.c(sizeK1)), "K1 % qk_k == 0");
  md.require(md.eq(threads, md.mul(md.mul(sgM, sgN), md.c(sgSize))), "wg_threads");
  md.require(md.le(threads, md.c(target.maxThreadsPerWorkgroup)), "wg_threads <= max threads");
  md.require(subgroupLimit(md, md.mul(sgM, sgN), options.numSubgroups), "subgroup count");
  // Distributability of 128-bit loads of the K and V tiles over the threads.
  int64_t bq = bytesOf(problem, 0), bk = bytesOf(problem, 1), bv = bytesOf(problem, 2);
  int64_t kPerLoad = std::max<int64_t>(1, target.maxLoadInstructionBits / 8 / std::max<int64_t>(bk, 1));
  int64_t vPerLoad = std::max<int64_t>(1, target.maxLoadInstructionBits / 8 / std::max<int64_t>(bv, 1));
  md.require(md.divides(md.mul(threads, md.c(kPerLoad)), md.mul(kTile, md.c(sizeK1))),
             "K tile loads distribute over the threads");
  md.require(md.divides(md.mul(threads, md.c(vPerLoad)), md.mul(kTile, nTile)),
             "V tile loads distribute over the threads");
  Expr qkBytes = md.add(md.mul(md.c(bq * sizeK1), mTile), md.mul(md.c(bk * sizeK1), kTile));
  Expr pvBytes = md.add(md.mul(md.c(bv), md.mul(mTile, kTile)), md.mul(md.c(bv), md.mul(kTile, nTile)));
  if (reuse)
    pvBytes = md.div(pvBytes, md.c(2));
  md.require(md.le(md.add(qkBytes, pvBytes), md.c(target.maxWorkgroupMemoryBytes)),
             "shared memory of QK and PV operands");

  unsigned numLoops = problem.loopRanges.size();
  space.decode = [=, &qk, &pv](ArrayRef<int64_t> v) {
    GpuConfig cfg;
    cfg.pipeline = Pipeline::VectorDistribute;
    cfg.kind = OpKind::Attention;
    cfg.mma = &qk;
    cfg.pvMma = &pv;
    cfg.colMajor = colMajor;
    cfg.reuseQkOutput = reuse;
    cfg.workgroup.assign(numLoops, 0);
    cfg.reduction.assign(numLoops, 0);
    cfg.basisCounts.assign(numLoops, 1);
    for (unsigned d : bDims)
      cfg.workgroup[d] = 1;
    for (unsigned d : mDims)
      cfg.workgroup[d] = 1;
    for (unsigned d : nDims)
      cfg.workgroup[d] = 1;
    for (unsigned d : k2Dims)
      cfg.reduction[d] = 1;
    cfg.workgroup[mDims.back()] = v[0];
    cfg.workgroup[nDims.back()] = v[1];
    cfg.reduction[k2Dims.back()] = v[2];
    cfg.basisCounts[mDims.back()] = v[3];
    cfg.basisCounts[nDims.back()] = v[4];
    for (unsigned d = 0; d < numLoops; ++d) {
      cfg.basisMapping.push_back(d);
      if (!llvm::is_contained(nDims, d))
        cfg.qkMapping.push_back(d);
      if (!llvm::is_contained(k1Dims, d))
        cfg.pvMapping.push_back(d);
    }
    cfg.promoteOperands = {0, 1, 2};
    cfg.workgroupSize = {v[8], 1, 1};
    cfg.subgroupSize = sgSize;
    cfg.sgMCount = v[3];
    cfg.sgNCount = v[4];
    cfg.tileM = v[0];
    cfg.tileN = v[1];
    cfg.tileK = v[2];
    cfg.sizeM = sizeM;
    cfg.sizeN = sizeN;
    cfg.sizeK = sizeK2;
    return cfg;
  };
  return space;
}

Expected<GemmDims> contractionDims(const Problem &problem) {
  GemmDims dims;
  dims.batch = problem.dimsWithRole('b');
  dims.m = problem.dimsWithRole('m');
  dims.n = problem.dimsWithRole('n');
  dims.k = problem.dimsWithRole('k');
  dims.sizes.assign(problem.loopRanges.begin(), problem.loopRanges.end());
  dims.numLoops = problem.loopRanges.size();
  if (dims.m.empty() || dims.n.empty() || dims.k.empty())
    return makeError("contraction '" + problem.opName + "' needs M, N and K dims (roles '" +
                     problem.dimRoles + "')");
  return dims;
}

/// A convolution with a stride or dilation shows it in the input map as a
/// product ("d1 * 2 + d4").
bool hasUnitStrides(const Problem &problem) {
  return problem.indexingMaps.empty() || !StringRef(problem.indexingMaps[0]).contains('*');
}

Error checkProblem(const Problem &problem) {
  if (problem.dimRoles.size() != problem.loopRanges.size())
    return makeError("problem '" + problem.opName + "': " + Twine(problem.dimRoles.size()) +
                     " dim roles for " + Twine(problem.loopRanges.size()) + " loops");
  if (problem.elementTypes.size() < problem.numInputs + 1 || problem.numInputs < 2)
    return makeError("problem '" + problem.opName + "': element types of inputs and init needed");
  for (int64_t range : problem.loopRanges)
    if (range <= 0)
      return makeError("problem '" + problem.opName + "': dynamic or empty loop range");
  return Error::success();
}

Expected<std::vector<Space>> convolutionSpaces(const Problem &problem, const GpuTarget &target,
                                               Pipeline pipeline, const GpuSearchOptions &options,
                                               ArrayRef<const Intrinsic *> intrinsics) {
  std::vector<Space> spaces;
  StringRef roles = problem.dimRoles;
  if (roles.contains('d'))
    return spaces; // Depthwise / grouped: not modelled by the reference's VD or TF spaces.
  SmallVector<unsigned> batch = problem.dimsWithRole('b'), image = problem.dimsWithRole('o'),
                        channel = problem.dimsWithRole('f'), filter = problem.dimsWithRole('r'),
                        input = problem.dimsWithRole('c');
  if (image.empty() || channel.empty() || input.empty())
    return makeError("convolution '" + problem.opName + "' needs output image, output channel "
                     "and input channel dims (roles '" + problem.dimRoles + "')");
  if (pipeline == Pipeline::VectorDistribute) {
    // Only conv_2d_nhwc_hwcf-shaped loops: b, oh, ow, oc, fh, fw, ic.
    if (roles != "boofrrc")
      return spaces;
    GemmDims dims;
    dims.batch = {};
    dims.m = {0, 1, 2};
    dims.n = {3};
    dims.k = {4, 5, 6};
    dims.sizes.assign(problem.loopRanges.begin(), problem.loopRanges.end());
    dims.numLoops = 7;
    for (const Intrinsic *in : intrinsics)
      if (std::optional<Space> space = buildVectorDistribute(problem, target, options, dims, *in, true))
        spaces.push_back(std::move(*space));
    return spaces;
  }
  // IGEMM: loops (batch, output image..., output channel..., K) with K the
  // filter window times the input channels.
  bool igemm = options.convStrategy != ConvStrategy::Direct;
  bool direct = options.convStrategy != ConvStrategy::Igemm && hasUnitStrides(problem);
  if (igemm) {
    TileAndFuseShape shape;
    for (unsigned d : batch)
      shape.dims.m.push_back(shape.dims.sizes.size()), shape.dims.sizes.push_back(problem.loopRanges[d]);
    for (unsigned d : image)
      shape.dims.m.push_back(shape.dims.sizes.size()), shape.dims.sizes.push_back(problem.loopRanges[d]);
    for (unsigned d : channel)
      shape.dims.n.push_back(shape.dims.sizes.size()), shape.dims.sizes.push_back(problem.loopRanges[d]);
    shape.dims.k.push_back(shape.dims.sizes.size());
    shape.dims.sizes.push_back(problem.extentOf('r') * problem.extentOf('c'));
    shape.dims.numLoops = shape.dims.sizes.size();
    shape.useIgemm = true;
    shape.convLoops = problem.loopRanges.size();
    llvm::append_range(shape.convMDims, batch);
    llvm::append_range(shape.convMDims, image);
    shape.convNDims = channel;
    shape.convFilterDims = filter;
    shape.convChannelDims = input;
    // padding_conv is skipped for channel-first (NCHW) outputs, where the
    // output channel is not the innermost result of the output map.
    shape.emitPaddingConv =
        innermostLoop(problem.indexingMaps.back()) == static_cast<int>(channel.back());
    for (const Intrinsic *in : intrinsics)
      spaces.push_back(buildTileAndFuse(problem, target, options, shape, *in));
  }
  if (direct) {
    TileAndFuseShape shape;
    llvm::append_range(shape.dims.m, batch);
    llvm::append_range(shape.dims.m, image);
    llvm::sort(shape.dims.m);
    shape.dims.n = channel;
    shape.dims.k = input;
    shape.filterDims = filter;
    shape.dims.sizes.assign(problem.loopRanges.begin(), problem.loopRanges.end());
    shape.dims.numLoops = problem.loopRanges.size();
    shape.useIgemm = false;
    // A direct convolution cannot pad its image dims beyond the input, so
    // only the intrinsic alignment applies.
    shape.overPad = false;
    for (const Intrinsic *in : intrinsics)
      spaces.push_back(buildTileAndFuse(problem, target, options, shape, *in));
  }
  return spaces;
}

/// The intrinsics a contraction or convolution space of `pipeline` is built
/// with. VectorDistribute's systems (the reference's) take one square
/// intrinsic_mn. TileAndFuse takes M and N sizes apart, so NVIDIA's 16x8
/// MMA_SYNC fits; not NV_WMMA: IREE 3.13's TileAndFuse fails every NV_WMMA
/// config for sm_80 ("'tensor.expand_shape' op expected dimension 2 of
/// collapsed type to be static value of ...").
SmallVector<const Intrinsic *> intrinsicsFor(const GpuTarget &target, Pipeline pipeline,
                                             StringRef lhs, StringRef rhs, StringRef acc) {
  SmallVector<const Intrinsic *> result;
  for (const Intrinsic *in : compatibleIntrinsics(target, lhs, rhs, acc, false)) {
    if (pipeline == Pipeline::VectorDistribute ? in->m != in->n
                                               : StringRef(in->name).starts_with("NV_WMMA"))
      continue;
    result.push_back(in);
  }
  return result;
}

} // namespace

Expected<std::vector<Space>> buildSpaces(const Problem &problem, const GpuTarget &target,
                                         Pipeline pipeline, const GpuSearchOptions &options) {
  if (Error e = checkProblem(problem))
    return std::move(e);
  std::vector<Space> spaces;
  // IREE 3.13 crashes in GPUVectorAlloc (deriveThreadTileSizes) on every
  // VectorDistribute config for CUDA; it picks TileAndFuse there itself.
  if (pipeline == Pipeline::VectorDistribute && target.isNvidia())
    return spaces;
  const auto &types = problem.elementTypes;
  StringRef acc = types[problem.numInputs];
  switch (problem.kind) {
  case OpKind::Contraction: {
    Expected<GemmDims> dims = contractionDims(problem);
    if (!dims)
      return dims.takeError();
    for (const Intrinsic *in : intrinsicsFor(target, pipeline, types[0], types[1], acc)) {
      if (pipeline == Pipeline::VectorDistribute) {
        if (std::optional<Space> space =
                buildVectorDistribute(problem, target, options, *dims, *in, false))
          spaces.push_back(std::move(*space));
        continue;
      }
      TileAndFuseShape shape;
      shape.dims = *dims;
      shape.overPad = !lhsTransposed(problem, *dims);
      spaces.push_back(buildTileAndFuse(problem, target, options, shape, *in));
    }
    return spaces;
  }
  case OpKind::Elementwise:
    return spaces; // never a dispatch root
  case OpKind::Convolution: {
    return convolutionSpaces(problem, target, pipeline, options,
                             intrinsicsFor(target, pipeline, types[0], types[1], acc));
  }
  case OpKind::Attention: {
    // The reference has no TileAndFuse attention space.
    if (pipeline != Pipeline::VectorDistribute || problem.numInputs < 3)
      return spaces;
    if (problem.dimsWithRole('m').empty() || problem.dimsWithRole('n').empty() ||
        problem.dimsWithRole('k').empty() || problem.dimsWithRole('l').empty())
      return makeError("attention '" + problem.opName + "' needs m, n, k (K1) and l (K2) dims");
    // QK: Q x K with an f32 accumulator; PV: P (in V's type) x V into the output.
    auto qks = compatibleIntrinsics(target, types[0], types[1], "f32", true);
    // Attention accumulates in f32 whatever its output type.
    StringRef pvAcc = StringRef(acc).starts_with("i") ? acc : StringRef("f32");
    auto pvs = compatibleIntrinsics(target, types[2], types[2], pvAcc, true);
    for (const Intrinsic *qk : qks)
      for (const Intrinsic *pv : pvs)
        if (qk->c == pv->c && qk->m == qk->n && pv->m == pv->n)
          spaces.push_back(buildAttention(problem, target, options, *qk, *pv));
    return spaces;
  }
  }
  llvm_unreachable("unknown op kind");
}

} // namespace retune::gpu
