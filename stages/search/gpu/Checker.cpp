//===- Checker.cpp - Independent check of a configuration -----------------===//
#include "stages/search/gpu/Checker.h"

#include "stages/search/gpu/LoadDistribution.h"

#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLExtras.h"

namespace retune::gpu {
namespace {

class Checker {
public:
  Checker(const Problem &problem, const GpuTarget &target, const GpuConfig &config,
          int64_t numSubgroups)
      : p(problem), t(target), g(config), numSubgroups(numSubgroups) {}

  Error run() {
    if (!g.mma)
      return makeError("no intrinsic");
    if (g.subgroupSize != t.minSubgroupSize())
      return makeError("subgroup size is not the target's smallest");
    if (p.kind == OpKind::Attention)
      return attention();
    bool vd = g.pipeline == Pipeline::VectorDistribute;
    if (!t.hasIntrinsic(g.mma->name) || g.mma->isVirtual)
      return makeError("intrinsic " + g.mma->name + " not offered by the target");
    if (!isCompatible(*g.mma, p.elementTypes[0], p.elementTypes[1], p.elementTypes[p.numInputs]))
      return makeError("intrinsic " + g.mma->name + " incompatible with the element types");
    if (p.kind == OpKind::Convolution && !(g.useIgemm && !*g.useIgemm) && !vd)
      return igemm();
    SmallVector<unsigned> m, n, k, batch, filter;
    if (p.kind == OpKind::Contraction) {
      m = p.dimsWithRole('m'), n = p.dimsWithRole('n'), k = p.dimsWithRole('k');
      batch = p.dimsWithRole('b');
    } else {
      // Both the nhwc VectorDistribute space and the direct TileAndFuse
      // space see M = batch + output image, N = output channel; VD tiles K
      // over (filter, channel), direct over the channel only.
      for (unsigned d = 0; d < p.dimRoles.size(); ++d) {
        char r = p.dimRoles[d];
        if (r == 'b' || r == 'o')
          m.push_back(d);
        else if (r == 'f')
          n.push_back(d);
        else if (r == 'c' || (vd && r == 'r'))
          k.push_back(d);
        else if (r == 'r')
          filter.push_back(d);
      }
    }
    SmallVector<int64_t> sizes(p.loopRanges.begin(), p.loopRanges.end());
    return vd ? vectorDistribute(m, n, k, batch, sizes)
              : tileAndFuse(m, n, k, batch, filter, sizes, p.kind == OpKind::Contraction && !lhsT(k));
  }

private:
  bool lhsT(ArrayRef<unsigned> k) {
    // The LHS is transposed when its last result is not a K loop.
    StringRef map = p.indexingMaps.empty() ? "" : StringRef(p.indexingMaps[0]);
    size_t close = map.rfind(')');
    size_t comma = map.substr(0, close).find_last_of("(, ");
    int loop = -1;
    StringRef last = map.slice(comma + 1, close).trim();
    if (!last.consume_front("d") || last.getAsInteger(10, loop))
      return false;
    return !llvm::is_contained(k, static_cast<unsigned>(loop));
  }

  int64_t bytes(unsigned operand) { return elementBytes(p.elementTypes[operand]); }

  Error subgroupCount(int64_t count) {
    if (numSubgroups > 0 ? count != numSubgroups : (count < 1 || count > 10))
      return makeError("subgroup count " + Twine(count) + " out of range");
    return Error::success();
  }

  Error vectorDistribute(ArrayRef<unsigned> mDims, ArrayRef<unsigned> nDims,
                         ArrayRef<unsigned> kDims, ArrayRef<unsigned> batch,
                         ArrayRef<int64_t> sizes) {
    int64_t imn = g.mma->m, ik = g.mma->k;
    int64_t M = sizes[mDims.back()], N = sizes[nDims.back()], K = sizes[kDims.back()];
    int64_t m = g.workgroup[mDims.back()], n = g.workgroup[nDims.back()],
            k = g.reduction[kDims.back()];
    for (unsigned d : mDims.drop_back())
      if (g.workgroup[d] != 1)
        return makeError("outer M tile must be 1");
    for (unsigned d : kDims.drop_back())
      if (g.reduction[d] != 1)
        return makeError("outer K tile must be 1");
    if (M % m || N % n || K % k)
      return makeError("tiles must divide the problem");
    if (m < imn || m > std::min<int64_t>(512, M) || n < imn || n > std::min<int64_t>(512, N) ||
        k < ik || k > std::min<int64_t>(512, K))
      return makeError("tile out of bounds");
    int64_t sgM = g.basisCounts[mDims.back()], sgN = g.basisCounts[nDims.back()];
    if (sgM < 1 || sgM > 32 || sgN < 1 || sgN > 32)
      return makeError("subgroup counts out of [1, 32]");
    if (m % (sgM * imn) || n % (sgN * imn) || k % ik)
      return makeError("tiles are not subgroup counts times intrinsics");
    if (m / (sgM * imn) > 32 || n / (sgN * imn) > 32 || k / ik > 32)
      return makeError("per-subgroup tile counts over 32");
    int64_t threads = g.subgroupSize * sgM * sgN;
    if (g.workgroupSize != std::array<int64_t, 3>{threads, 1, 1})
      return makeError("workgroup size must be [subgroup_size * sg_m * sg_n, 1, 1]");
    if (threads > t.maxThreadsPerWorkgroup)
      return makeError("too many threads");
    if (!(threads <= n || threads <= m))
      return makeError("wg_x larger than both tiles");
    if (k % imn || (k * n) % threads || (k * m) % threads)
      return makeError("K tile not distributable");
    if (Error e = promotedReads(threads))
      return e;
    if (bytes(0) * m * k + bytes(1) * n * k > t.maxWorkgroupMemoryBytes)
      return makeError("shared memory exceeded");
    return subgroupCount(sgM * sgN);
  }

  /// Every promoted operand tile must be loadable by the workgroup's
  /// threads (IREE's derived thread layout, LoadDistribution.h).
  Error promotedReads(int64_t threads) {
    SmallVector<int64_t> loopTiles;
    for (auto [wg, red] : llvm::zip(g.workgroup, g.reduction))
      loopTiles.push_back(std::max<int64_t>({wg, red, 1}));
    for (int64_t operand : g.promoteOperands) {
      if (operand >= static_cast<int64_t>(p.indexingMaps.size()))
        return makeError("promoted operand " + Twine(operand) + " has no indexing map");
      std::optional<IndexingMap> map = parseIndexingMap(p.indexingMaps[operand]);
      if (!map || !map->allSums())
        return makeError("promoted operand " + Twine(operand) + ": unparsable map");
      SmallVector<int64_t> shape = operandTileShape(map->results, loopTiles);
      if (!promotedReadDistributes(shape, threads, 8 * bytes(operand)))
        return makeError("promoted operand " + Twine(operand) + " tile cannot be loaded by " +
                         Twine(threads) + " threads in 128-bit pieces");
    }
    return Error::success();
  }

  /// The padded extents, computed independently of Spaces.cpp.
  SmallVector<int64_t> pad(ArrayRef<int64_t> sizes, ArrayRef<unsigned> m, ArrayRef<unsigned> n,
                           ArrayRef<unsigned> k, bool overPad) {
    SmallVector<int64_t> out(sizes);
    auto up = [](int64_t v, int64_t q) { return (v + q - 1) / q * q; };
    if (overPad) {
      for (ArrayRef<unsigned> group : {m, n, k})
        for (unsigned d : group)
          out[d] = out[d] > 128 ? up(out[d], 128) : out[d] > 32 ? up(out[d], 32) : out[d];
    }
    out[m.back()] = up(out[m.back()], g.mma->m);
    out[n.back()] = up(out[n.back()], g.mma->n);
    out[k.back()] = up(out[k.back()], g.mma->k);
    return out;
  }

  Error tileAndFuse(ArrayRef<unsigned> mDims, ArrayRef<unsigned> nDims, ArrayRef<unsigned> kDims,
                    ArrayRef<unsigned> batch, ArrayRef<unsigned> filter, ArrayRef<int64_t> sizes,
                    bool overPad) {
    // NVIDIA's MMA_SYNC intrinsics are not square (16x8): M and N each take
    // their own intrinsic size.
    int64_t im = g.mma->m, in = g.mma->n, ik = g.mma->k;
    SmallVector<int64_t> padded = pad(sizes, mDims, nDims, kDims, overPad);
    int64_t prodM = 1, prodN = 1, prodK = 1, prodSgM = 1, prodSgN = 1;
    for (unsigned d : mDims) {
      int64_t tile = g.workgroup[d];
      if (tile < 1 || tile > padded[d] || padded[d] % tile)
        return makeError("M tile must divide its padded dim");
      prodM *= tile;
      prodSgM *= g.subgroup[d];
    }
    for (unsigned d : nDims) {
      int64_t tile = g.workgroup[d];
      if (tile < 1 || tile > padded[d] || padded[d] % tile)
        return makeError("N tile must divide its padded dim");
      prodN *= tile;
      prodSgN *= g.subgroup[d];
    }
    for (unsigned d : kDims) {
      int64_t tile = g.reduction[d];
      int64_t elems = d == kDims.back() ? tile * ik : tile;
      if (tile < 1 || elems > padded[d] || padded[d] % elems)
        return makeError("K tile must divide its padded dim");
      prodK *= tile;
    }
    for (unsigned d : filter)
      if (g.reduction[d] != 1 || g.workgroup[d] != 0)
        return makeError("filter loops: reduction 1, workgroup 0");
    int64_t mIn = g.workgroup[mDims.back()], nIn = g.workgroup[nDims.back()];
    if (mIn < im || mIn % im || nIn < in || nIn % in)
      return makeError("inner tiles must be intrinsic multiples");
    if (prodM > 512 || prodN > 512 || prodK > 512 / ik)
      return makeError("tile products too large");
    if (mIn % (g.subgroup[mDims.back()] * im) || nIn % (g.subgroup[nDims.back()] * in))
      return makeError("subgroup tile must divide the workgroup tile");
    if (prodM % (prodSgM * im) || prodN % (prodSgN * in))
      return makeError("subgroup tiles inconsistent with the workgroup tiles");
    int64_t sgM = prodM / (prodSgM * im), sgN = prodN / (prodSgN * in);
    if (g.workgroupSize != std::array<int64_t, 3>{sgM * sgN * g.subgroupSize, 1, 1})
      return makeError("workgroup size must be [sg_m * sg_n * subgroup_size, 1, 1]");
    if (g.workgroupSize[0] > t.maxThreadsPerWorkgroup)
      return makeError("too many threads");
    if ((bytes(0) * prodM * prodK + bytes(1) * prodN * prodK) * ik > t.maxWorkgroupMemoryBytes)
      return makeError("shared memory exceeded");
    // padding: present exactly when a dim was padded; workgroup tiles with K
    // replaced by reduction tiles, inner K in elements.
    bool padNeeded = SmallVector<int64_t>(sizes) != padded;
    if (padNeeded != !g.padding.empty())
      return makeError("padding attribute present/absent wrongly");
    if (padNeeded) {
      for (unsigned d : kDims)
        if (g.padding[d] != (d == kDims.back() ? g.reduction[d] * ik : g.reduction[d]))
          return makeError("padding of K must be the reduction tile");
      for (ArrayRef<unsigned> group : {mDims, nDims})
        for (unsigned d : group)
          if (g.padding[d] != g.workgroup[d])
            return makeError("padding of M/N must be the workgroup tile");
    }
    return subgroupCount(sgM * sgN);
  }

  Error igemm() {
    // IGEMM loops: batch, output image, output channel, K = filter x channel.
    SmallVector<int64_t> sizes;
    SmallVector<unsigned> m, n, k;
    for (char role : {'b', 'o'})
      for (unsigned d : p.dimsWithRole(role)) {
        m.push_back(sizes.size());
        sizes.push_back(p.loopRanges[d]);
      }
    for (unsigned d : p.dimsWithRole('f')) {
      n.push_back(sizes.size());
      sizes.push_back(p.loopRanges[d]);
    }
    k.push_back(sizes.size());
    sizes.push_back(p.extentOf('r') * p.extentOf('c'));
    if (g.workgroup.size() != sizes.size())
      return makeError("IGEMM config needs one entry per IGEMM loop");
    return tileAndFuse(m, n, k, {}, {}, sizes, true);
  }

  Error attention() {
    const Intrinsic *qk = g.mma, *pv = g.pvMma;
    if (!pv || !(qk->c == pv->c))
      return makeError("QK and PV accumulator layouts must agree");
    unsigned mD = p.dimsWithRole('m').back(), nD = p.dimsWithRole('n').back(),
             lD = p.dimsWithRole('l').back();
    int64_t M = p.loopRanges[mD], N = p.loopRanges[nD], K2 = p.loopRanges[lD],
            K1 = p.extentOf('k');
    int64_t m = g.workgroup[mD], n = g.workgroup[nD], k = g.reduction[lD];
    int64_t sgM = g.basisCounts[mD];
    if (g.basisCounts[nD] != 1)
      return makeError("attention uses one subgroup along N");
    if (M % m || N % n || K2 % k || m > 512 || n > 512 || k > 512)
      return makeError("attention tiles must divide and be <= 512");
    if (m % (sgM * pv->m) || n % pv->n || k % pv->k || m % qk->m || k % qk->n || K1 % qk->k)
      return makeError("attention tiles must be intrinsic multiples");
    if (m / (sgM * pv->m) > 32 || n / pv->n > 32 || k / pv->k > 32)
      return makeError("per-subgroup tile counts over 32");
    int64_t threads = sgM * g.subgroupSize;
    if (g.workgroupSize[0] != threads || threads > t.maxThreadsPerWorkgroup)
      return makeError("attention workgroup size");
    int64_t loadBits = t.maxLoadInstructionBits;
    if ((k * K1) % (threads * (loadBits / 8 / bytes(1))) ||
        (k * n) % (threads * (loadBits / 8 / bytes(2))))
      return makeError("K/V tile loads not distributable");
    int64_t qkBytes = bytes(0) * m * K1 + bytes(1) * k * K1;
    int64_t pvBytes = bytes(2) * m * k + bytes(2) * k * n;
    if (g.reuseQkOutput)
      pvBytes /= 2;
    if (qkBytes + pvBytes > t.maxWorkgroupMemoryBytes)
      return makeError("attention shared memory exceeded");
    return subgroupCount(sgM);
  }

  const Problem &p;
  const GpuTarget &t;
  const GpuConfig &g;
  int64_t numSubgroups;
};

} // namespace

Error checkConfig(const Problem &problem, const GpuTarget &target, const GpuConfig &config,
                  int64_t numSubgroups) {
  return Checker(problem, target, config, numSubgroups).run();
}

} // namespace retune::gpu
