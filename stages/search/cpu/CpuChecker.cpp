//===- CpuChecker.cpp - Whether a configuration is a point of the space ---===//
#include "stages/search/cpu/CpuChecker.h"

#include "stages/search/cpu/CpuKnobs.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <string>

using namespace llvm;

namespace retune::cpu {
namespace {

/// The tile domain in closed form: a smaller divisor of `range` of at
/// least `minimum`, a multiple of `unit`, and unit x 2^i or range / 2^j.
bool inTileDomain(int64_t range, int64_t unit, int64_t tile,
                  int64_t minimum = 1) {
  if (unit <= 0 || tile < minimum || tile >= range || range % tile != 0 ||
      tile % unit != 0)
    return false;
  return isPowerOf2_64(tile / unit) || isPowerOf2_64(range / tile);
}

/// Which loops may be split: with threads, the parallel loops the analysis
/// allows scf.forall on; else the cache loops, and only when the operands
/// overflow L2; the batch loops of a packed panel always.
bool mayCarryOuterTile(const Analysis &an, unsigned threads, unsigned dim) {
  if (llvm::is_contained(an.packed.batch, dim))
    return true;
  if (threads > 1)
    return llvm::is_contained(an.threadDims, dim);
  return an.cacheTiling && llvm::is_contained(an.cacheDims, dim);
}

/// Register rule; nullopt when satisfied, else the violated rule.
std::optional<std::string> checkRegister(const Analysis &an,
                                                const CpuHost &host,
                                                const RegisterChoice &r) {
  if (r.mr < 1 || an.rows() % r.mr != 0)
    return "divisibility: rows register tile " + std::to_string(r.mr) +
           " does not divide " + std::to_string(an.rows());
  int64_t nr = r.nv * an.width;
  if (r.nv < 1 || an.cols() % nr != 0)
    return "divisibility: vector register tile " + std::to_string(nr) +
           " does not divide " + std::to_string(an.cols());
  int64_t used = r.mr * r.nv + r.nv + 1;
  if (used > static_cast<int64_t>(host.vectorRegisters))
    return "register pressure: " + std::to_string(r.mr) + "x" +
           std::to_string(r.nv) + " accumulators + " + std::to_string(r.nv) +
           " operand vectors + 1 broadcast = " + std::to_string(used) +
           " registers > " + std::to_string(static_cast<int64_t>(host.vectorRegisters));
  if (!llvm::is_contained(kUnrollChoices, r.unroll))
    return "unroll: k-unroll " + std::to_string(r.unroll) +
           " is not one of 1, 2, 4, 8";
  if (an.ranges[an.kDim] % r.unroll != 0)
    return "unroll: k-unroll " + std::to_string(r.unroll) +
           " does not divide the reduction range " +
           std::to_string(an.ranges[an.kDim]);
  if (r.colsOuter && (!an.twoOrders || r.mr == an.rows() || nr == an.cols()))
    return std::string("register order: vector loop outer is only distinct "
                       "for contractions where both register loops iterate");
  return std::nullopt;
}

/// Outer, reduction and thread rules.
std::optional<std::string> checkOuter(const Analysis &an,
                                             const CpuHost &host,
                                             const CpuSpaceOptions &options,
                                             const Knobs &k) {
  if (k.threads != 1 && k.threads != options.threads)
    return "threads: " + std::to_string(k.threads) + " is neither 1 nor the " +
           std::to_string(options.threads) + " threads allowed";
  int64_t tiles = 1;
  bool anyOuter = false;
  for (unsigned dim : an.packed.batch)
    if (k.outer[dim] != 1)
      return "packed panel: batch loop " + std::to_string(dim) +
             " must be outer tiled by 1 (a panel holds one batch)";
  for (auto [dim, tile] : llvm::enumerate(k.outer)) {
    if (tile == 0)
      continue;
    anyOuter = true;
    if (llvm::is_contained(an.packed.reused, dim))
      return "packed panel: loop " + std::to_string(dim) +
             " reuses the packed panel and may not be outer tiled (each "
             "tile would pack it again)";
    if (!mayCarryOuterTile(an, k.threads, dim))
      return "outer tiles: loop " + std::to_string(dim) + " may not be " +
             (k.threads > 1 ? "distributed"
                            : "cache tiled (the operands fit L2 or the loop "
                              "is not m/n)");
    int64_t unit = registerTileOf(an, k.reg, dim);
    if (!inTileDomain(an.ranges[dim], unit, tile))
      return "cache tile domain: outer tile " + std::to_string(tile) +
             " on loop " + std::to_string(dim) + " (range " +
             std::to_string(an.ranges[dim]) +
             ") must be a smaller divisor, a multiple of the register tile " +
             std::to_string(unit) + ", unit x 2^i or range / 2^j";
    tiles *= an.ranges[dim] / tile;
  }
  // A packed panel lives on the stack of the thread that packs it (see
  // StaticBuffers.h) and should stay in its L2 while the rows reuse it.
  if (int64_t panel = packedPanelBytes(an, k); panel > host.l2Bytes)
    return "packed panel: " + std::to_string(panel) + " bytes > L2 " +
           std::to_string(host.l2Bytes) + " (tile the panel's n loop)";
  if (k.threads > 1 &&
      (!anyOuter || tiles < k.threads || tiles % k.threads != 0))
    return "thread tiles: " + std::to_string(tiles) +
           " outer tiles cannot be shared evenly by " +
           std::to_string(k.threads) + " threads";
  if (k.kc) {
    if (!an.cacheTiling)
      return std::string("cache tile domain: reduction tiling only pays when "
                         "the operands overflow L2");
    int64_t range = an.ranges[an.kDim];
    if (!inTileDomain(range, 1, k.kc, kMinReductionTile))
      return "cache tile domain: reduction tile " + std::to_string(k.kc) +
             " on a range of " + std::to_string(range) +
             " must be a smaller divisor >= " +
             std::to_string(kMinReductionTile) + ", 2^i or range / 2^j";
    if (k.kc % k.reg.unroll != 0)
      return "unroll: k-unroll " + std::to_string(k.reg.unroll) +
             " does not divide the reduction tile " + std::to_string(k.kc);
    int64_t panel = k.kc * k.reg.nv * an.width * an.inBytes;
    if (panel > host.l1Bytes)
      return "cache fit (L1): kc x nr panel " + std::to_string(panel) +
             " bytes > L1 " + std::to_string(host.l1Bytes);
  }
  bool cacheTiled = k.kc || (k.threads == 1 && anyOuter);
  if (int64_t block = cacheBlockBytes(an, k); cacheTiled && block > host.l2Bytes)
    return "cache fit (L2): mc x kc + kc x nc blocks " + std::to_string(block) +
           " bytes > L2 " + std::to_string(host.l2Bytes);
  return std::nullopt;
}

} // namespace

Error checkCpuConfig(const Problem &problem, const CpuHost &host,
                     const CpuSpaceOptions &options, const CpuConfig &config) {
  Expected<Analysis> an = analyze(problem, host);
  if (!an)
    return an.takeError();
  Expected<Knobs> k = fromConfig(*an, config);
  if (!k)
    return k.takeError();
  if (std::optional<std::string> why = checkRegister(*an, host, k->reg))
    return makeError(*why);
  if (std::optional<std::string> why = checkOuter(*an, host, options, *k))
    return makeError(*why);
  return Error::success();
}

} // namespace retune::cpu
