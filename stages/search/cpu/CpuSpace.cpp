//===- CpuSpace.cpp - Z3 enumeration of the CPU knob space ----------------===//
//
// The space (see docs/cpu-search.md for the numbers behind it):
//   register level  rows tile `mr` on the innermost 'm' loop (convolutions:
//                   the innermost output-image loop), `nr = width x nv` on the
//                   vectorized loop, every other loop 1; k-unroll; loop order.
//                   Enumerated with Z3 (blocking clauses).
//   outer level     cache tiles (scf.for) on m/n plus a reduction tile on k,
//                   or, with threads > 1, scf.forall tiles over the parallel
//                   loops. Enumerated directly from small divisor domains and
//                   filtered by the same rules `checkCpuConfig` applies.
//
// Its constraints are a solver::Model, solved by Z3 (stages/search/solver).
//
//===----------------------------------------------------------------------===//
#include "stages/search/cpu/CpuSpace.h"

#include "stages/search/solver/Model.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string>

using namespace llvm;

namespace retune::cpu {
namespace {

//===----------------------------------------------------------------------===//
// Constants of the space and of the cost model
//===----------------------------------------------------------------------===//

constexpr unsigned kUnrollChoices[] = {1, 2, 4, 8};
/// Smallest reduction (kc) tile worth a loop.
constexpr int64_t kMinReductionTile = 32;

/// Cost model (docs/cpu-search.md, "Cost model").
constexpr double kClockHz = 3.5e9;
constexpr double kFmaPipes = 2;
constexpr double kLoadPorts = 2;
/// Independent accumulators that hide the FMA latency: 2 pipes x 4 cycles.
constexpr double kLatencyAccumulators = 8;
/// Cycles per cache line served from L1, L2, L3, memory (beyond the FMAs).
constexpr double kLineCycles[] = {0.0, 1.0, 2.5, 6.0};
/// Loop overhead per innermost iteration (divided by the unroll factor) and
/// per register-tile pass (accumulator set-up).
constexpr double kStepOverhead = 0.5;
constexpr double kPassOverhead = 20;
/// Rows of A (each its own stream) that L1 ways and prefetchers keep up with.
constexpr double kMaxRowStreams = 8;
constexpr double kRowStreamExponent = 0.6;
/// Registers left for addresses, broadcast temporaries: closer than this to
/// the register file's size risks spills.
constexpr unsigned kRegisterSlack = 4;
constexpr double kNearSpillFactor = 1.1;
/// Per doubling of the k-unroll: code size and scheduling (measured 8x32x4).
constexpr double kUnrollPenalty = 0.03;
/// Per doubling of the number of cache blocks (measured c1, c2, c3).
constexpr double kBlockPenalty = 0.03;
/// Thread speed-up efficiency (measured 2 threads: 192.6 vs 2 x 100).
constexpr double kThreadEfficiency = 0.965;
constexpr double kPerForallTile = 0.001;
/// L1 set period: rows whose stride is a multiple of it share L1 sets.
constexpr int64_t kL1SetPeriod = 4096;
constexpr int64_t kConflictRows = 8;

//===----------------------------------------------------------------------===//
// Problem analysis
//===----------------------------------------------------------------------===//

/// One parsed indexing map: per result, the loop it is (or -1 when the
/// result is an expression such as `d1 + d4`).
struct MapInfo {
  SmallVector<int> results;
  bool hasDim(int dim) const { return llvm::is_contained(results, dim); }
  /// The loop of the contiguous (last) result, -1 when not a plain loop.
  int contiguous() const { return results.empty() ? -1 : results.back(); }
};

static std::optional<MapInfo> parseMap(StringRef text, unsigned numLoops) {
  std::optional<SmallVector<int>> results = mapResultLoops(text, numLoops);
  if (!results)
    return std::nullopt;
  return MapInfo{std::move(*results)};
}

static std::optional<unsigned> elementBytes(StringRef type) {
  return StringSwitch<std::optional<unsigned>>(type)
      .Cases({"f64", "i64"}, 8u)
      .Cases({"f32", "i32"}, 4u)
      .Cases({"f16", "bf16", "i16"}, 2u)
      .Case("i8", 1u)
      .Default(std::nullopt);
}

/// What the space and the cost model need to know about a problem.
struct Analysis {
  OpKind kind = OpKind::Contraction;
  SmallVector<int64_t> ranges;
  unsigned inBytes = 4, outBytes = 4;
  /// Elements per vector register of the vectorized loop.
  int64_t width = 1;
  /// Register-tiled rows loop (innermost 'm' / output-image loop); -1: none.
  int mDim = -1;
  /// Vectorized loop (innermost 'n' / output-channel loop).
  unsigned nDim = 0;
  /// Innermost reduction loop: the innermost register loop, reduction tiled.
  unsigned kDim = 0;
  /// Loops that may carry scf.for cache tiles (threads == 1).
  SmallVector<unsigned> cacheDims;
  /// Loops that may carry scf.forall tiles (threads > 1).
  SmallVector<unsigned> threadDims;
  /// Packed operands: loops outer tiles leave whole, and batch loops they
  /// take one at a time (see packedLoops).
  PackedLoops packed;
  /// Whether the operands overflow L2 so cache tiling is worth a loop.
  bool cacheTiling = false;
  /// Register-loop orders: rows loop outer (identity for the usual loop
  /// orders) and, where allowed, vectorized loop outer.
  SmallVector<int64_t> orderRowsOuter, orderColsOuter;
  bool twoOrders = false;
  /// Cost-model facts about the operands: the broadcast operand's rows are
  /// separate streams; the vector operand is strided (transposed) along n;
  /// its rows share L1 sets.
  bool rowStreams = false;
  bool transposedVectorOperand = false;
  bool vectorOperandConflicts = false;

  int64_t rows() const { return mDim < 0 ? 1 : ranges[mDim]; }
  int64_t cols() const { return ranges[nDim]; }
  /// Product of all reduction ranges except kDim.
  int64_t otherReduction = 1;
};

static Error unsupported(const Problem &problem, const Twine &why) {
  return makeError("cpu space: " + problem.readableName() + " (" +
                   toString(problem.kind) + " " + problem.opName +
                   ") is not covered: " + why);
}

static SmallVector<int64_t> identityOrder(unsigned n) {
  SmallVector<int64_t> order;
  for (unsigned i = 0; i < n; ++i)
    order.push_back(i);
  return order;
}

/// Stride in elements of the operand described by `map` along loop `dim`,
/// or 0 when the map has expressions or does not use the loop.
static int64_t strideAlong(const MapInfo &map, ArrayRef<int64_t> ranges,
                           int dim) {
  int64_t stride = 1;
  for (int i = static_cast<int>(map.results.size()) - 1; i >= 0; --i) {
    int result = map.results[i];
    if (result < 0)
      return 0;
    if (result == dim)
      return stride;
    stride *= ranges[result];
  }
  return 0;
}

static Expected<Analysis> analyze(const Problem &problem, const CpuHost &host) {
  unsigned numLoops = problem.loopRanges.size();
  if (problem.kind == OpKind::Attention)
    return unsupported(problem, "attention has no CPU knob space yet");
  if (numLoops == 0 || problem.dimRoles.size() != numLoops ||
      problem.iteratorTypes.size() != numLoops)
    return unsupported(problem, "dim_roles and iterator_types must have one "
                                "entry per loop");
  for (auto [index, range] : llvm::enumerate(problem.loopRanges))
    if (range <= 0)
      return unsupported(problem, "loop " + Twine(index) +
                                      " has a dynamic or empty range");
  if (problem.elementTypes.empty() || problem.numInputs == 0 ||
      problem.indexingMaps.size() != problem.elementTypes.size())
    return unsupported(problem, "needs one element type and indexing map "
                                "per operand");
  Analysis an;
  an.kind = problem.kind;
  an.ranges.assign(problem.loopRanges.begin(), problem.loopRanges.end());
  an.inBytes = 0;
  for (auto [index, type] : llvm::enumerate(problem.elementTypes)) {
    std::optional<unsigned> bytes = elementBytes(type);
    if (!bytes)
      return unsupported(problem, "element type '" + type +
                                      "' (supported: f64 f32 f16 bf16 i64 "
                                      "i32 i16 i8)");
    if (index < problem.numInputs)
      an.inBytes = std::max(an.inBytes, *bytes);
    else
      an.outBytes = *bytes;
  }
  SmallVector<MapInfo> maps;
  for (const std::string &text : problem.indexingMaps) {
    std::optional<MapInfo> map = parseMap(text, numLoops);
    if (!map)
      return unsupported(problem, "cannot read indexing map '" + text + "'");
    maps.push_back(*map);
  }
  const MapInfo &outMap = maps.back();

  auto last = [&](StringRef roles) -> int {
    for (int i = numLoops - 1; i >= 0; --i)
      if (roles.contains(problem.dimRoles[i]))
        return i;
    return -1;
  };
  char rowsRole = 'm', colsRole = 'n';
  StringRef reductionRoles = "k";
  if (problem.kind == OpKind::Convolution) {
    if (problem.opName != "linalg.conv_2d_nhwc_hwcf")
      return unsupported(problem, "only linalg.conv_2d_nhwc_hwcf convolutions "
                                  "(decomposed to 1-D) are covered");
    rowsRole = 'o';
    colsRole = 'f';
    reductionRoles = "rc";
  }
  int cols = -1;
  for (unsigned d : problem.dimsWithRole(colsRole))
    if (outMap.contiguous() == static_cast<int>(d))
      cols = d;
  if (cols < 0)
    cols = last(StringRef(&colsRole, 1));
  if (cols < 0)
    return unsupported(problem,
                       problem.kind == OpKind::Contraction
                           ? "a contraction without an 'n' loop (nothing "
                             "to vectorize along the output)"
                           : "a convolution without an output-channel loop");
  an.nDim = cols;
  an.mDim = last(StringRef(&rowsRole, 1));
  int k = last(reductionRoles);
  if (k < 0)
    return unsupported(problem, "no reduction loop");
  an.kDim = k;
  for (unsigned i = 0; i < numLoops; ++i) {
    bool isReduction = problem.iteratorTypes[i] == "reduction";
    if (isReduction != reductionRoles.contains(problem.dimRoles[i]))
      return unsupported(problem, "loop " + Twine(i) + " role '" +
                                      Twine(problem.dimRoles[i]) +
                                      "' disagrees with its iterator type");
    if (StringRef("?d").contains(problem.dimRoles[i]))
      return unsupported(problem, "loop " + Twine(i) + " has role '" +
                                      Twine(problem.dimRoles[i]) + "'");
    if (isReduction && i != an.kDim)
      an.otherReduction *= an.ranges[i];
  }

  // Vector width: full lanes of the accumulator type, else the widest
  // half/quarter register that divides the vectorized range (no masking).
  int64_t lanes = host.lanes(an.outBytes * 8);
  an.width = 0;
  for (int64_t w = lanes; w >= std::max<int64_t>(2, lanes / 4); w /= 2)
    if (an.cols() % w == 0) {
      an.width = w;
      break;
    }
  if (an.width == 0)
    return unsupported(problem, "the vectorized loop range " +
                                    Twine(an.cols()) +
                                    " is not a multiple of " +
                                    Twine(std::max<int64_t>(2, lanes / 4)) +
                                    " elements (partial vectors need masking, "
                                    "which this space does not model)");

  // Register-loop orders: other parallel loops, rows/cols, reductions.
  SmallVector<int64_t> head, tail;
  for (unsigned i = 0; i < numLoops; ++i) {
    if (static_cast<int>(i) == an.mDim || i == an.nDim)
      continue;
    (problem.iteratorTypes[i] == "reduction" ? tail : head).push_back(i);
  }
  // kDim is the last reduction loop in loop order, so it ends `tail`.
  auto order = [&](bool colsOuter) {
    SmallVector<int64_t> o(head);
    if (an.mDim < 0)
      o.push_back(an.nDim);
    else if (colsOuter)
      o.append({static_cast<int64_t>(an.nDim), an.mDim});
    else
      o.append({an.mDim, static_cast<int64_t>(an.nDim)});
    o.append(tail);
    return o == identityOrder(numLoops) ? SmallVector<int64_t>() : o;
  };
  an.orderRowsOuter = order(false);
  an.orderColsOuter = order(true);
  an.twoOrders = problem.kind == OpKind::Contraction && an.mDim >= 0;

  // Outer-level loops.
  if (problem.kind == OpKind::Contraction) {
    if (an.mDim >= 0)
      an.cacheDims.push_back(an.mDim);
    an.cacheDims.push_back(an.nDim);
    int64_t footprint =
        (an.rows() * an.ranges[an.kDim] + an.ranges[an.kDim] * an.cols()) *
        an.inBytes;
    an.cacheTiling = footprint > host.l2Bytes / 2;
  }
  for (unsigned i = 0; i < numLoops; ++i)
    if (problem.iteratorTypes[i] == "parallel" &&
        (StringRef("bof").contains(problem.dimRoles[i]) ||
         static_cast<int>(i) == an.mDim || i == an.nDim))
      an.threadDims.push_back(i);
  an.packed = packedLoops(problem);
  auto reused = [&](unsigned dim) {
    return llvm::is_contained(an.packed.reused, dim);
  };
  llvm::erase_if(an.cacheDims, reused);
  llvm::erase_if(an.threadDims, reused);

  // Operand facts for the cost model (contractions with plain maps only).
  if (problem.kind == OpKind::Contraction && an.mDim >= 0) {
    for (unsigned i = 0; i < problem.numInputs; ++i) {
      const MapInfo &map = maps[i];
      if (map.hasDim(an.mDim) && !map.hasDim(an.nDim))
        an.rowStreams = map.contiguous() != an.mDim;
      if (map.hasDim(an.nDim) && !map.hasDim(an.mDim)) {
        an.transposedVectorOperand =
            map.contiguous() != static_cast<int>(an.nDim);
        int64_t stride = std::max(strideAlong(map, an.ranges, an.kDim),
                                  strideAlong(map, an.ranges, an.nDim)) *
                         an.inBytes;
        an.vectorOperandConflicts = stride > 0 && stride % kL1SetPeriod == 0;
      }
    }
  }
  return an;
}

//===----------------------------------------------------------------------===//
// Knobs and rules
//===----------------------------------------------------------------------===//

/// The register-level choice Z3 enumerates.
struct RegisterChoice {
  int64_t mr = 1, nv = 1;
  unsigned unroll = 1;
  bool colsOuter = false;
};

/// Tile choices on a loop of `range` for a unit of `unit`: multiples of the
/// unit that divide the range, smaller than it, and either unit x 2^i or
/// range / 2^j (powers of two preferred, few choices per loop).
static SmallVector<int64_t> tileChoices(int64_t range, int64_t unit,
                                        int64_t minimum = 1) {
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

static SmallVector<int64_t> divisors(int64_t range, int64_t limit) {
  SmallVector<int64_t> values;
  for (int64_t d = 1; d <= std::min(range, limit); ++d)
    if (range % d == 0)
      values.push_back(d);
  return values;
}

static int64_t registerLimit(const CpuHost &host) {
  return host.vectorRegisters;
}

/// Register rule; nullopt when satisfied, else the violated rule.
static std::optional<std::string> checkRegister(const Analysis &an,
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
  if (used > registerLimit(host))
    return "register pressure: " + std::to_string(r.mr) + "x" +
           std::to_string(r.nv) + " accumulators + " + std::to_string(r.nv) +
           " operand vectors + 1 broadcast = " + std::to_string(used) +
           " registers > " + std::to_string(registerLimit(host));
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

/// A full point of the space in compact form.
struct Knobs {
  RegisterChoice reg;
  unsigned threads = 1;
  /// Per loop: scf.for cache tile (threads == 1) or scf.forall tile.
  SmallVector<int64_t, 8> outer;
  int64_t kc = 0;
};

static int64_t registerTileOf(const Analysis &an, const RegisterChoice &r,
                              unsigned dim) {
  if (static_cast<int>(dim) == an.mDim)
    return r.mr;
  if (dim == an.nDim)
    return r.nv * an.width;
  return 1;
}

/// Extent of `dim` inside one outer tile.
static int64_t blockExtent(const Analysis &an, const Knobs &k, int dim) {
  if (dim < 0)
    return 1;
  return k.outer[dim] ? k.outer[dim] : an.ranges[dim];
}

/// Loops that may carry outer tiles: scf.forall tiles with threads, else
/// cache tiles where the operands overflow L2, and the batch loops of a
/// packed panel.
static SmallVector<unsigned> outerDims(const Analysis &an, unsigned threads) {
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

/// Outer, reduction and thread rules.
static std::optional<std::string> checkOuter(const Analysis &an,
                                             const CpuHost &host,
                                             const CpuSpaceOptions &options,
                                             const Knobs &k) {
  if (k.threads != 1 && k.threads != options.threads)
    return "threads: " + std::to_string(k.threads) + " is neither 1 nor the " +
           std::to_string(options.threads) + " threads allowed";
  SmallVector<unsigned> allowed = outerDims(an, k.threads);
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
    if (!llvm::is_contained(allowed, dim))
      return "outer tiles: loop " + std::to_string(dim) + " may not be " +
             (k.threads > 1 ? "distributed"
                            : "cache tiled (the operands fit L2 or the loop "
                              "is not m/n)");
    int64_t unit = registerTileOf(an, k.reg, dim);
    if (!llvm::is_contained(tileChoices(an.ranges[dim], unit), tile))
      return "cache tile domain: outer tile " + std::to_string(tile) +
             " on loop " + std::to_string(dim) + " (range " +
             std::to_string(an.ranges[dim]) +
             ") must be a smaller divisor, a multiple of the register tile " +
             std::to_string(unit) + ", unit x 2^i or range / 2^j";
    tiles *= an.ranges[dim] / tile;
  }
  // A packed panel lives on the stack of the thread that packs it (see
  // StaticBuffers.h) and should stay in its L2 while the rows reuse it.
  if (!an.packed.panelLoops.empty()) {
    int64_t panel = an.inBytes;
    for (unsigned dim : an.packed.panelLoops)
      panel *= blockExtent(an, k, dim);
    if (panel > host.l2Bytes)
      return "packed panel: " + std::to_string(panel) + " bytes > L2 " +
             std::to_string(host.l2Bytes) + " (tile the panel's n loop)";
  }
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
    if (!llvm::is_contained(tileChoices(range, 1, kMinReductionTile), k.kc))
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
  if (cacheTiled) {
    int64_t kE = k.kc ? k.kc : an.ranges[an.kDim];
    int64_t block =
        (blockExtent(an, k, an.mDim) * kE + kE * blockExtent(an, k, an.nDim)) *
        an.inBytes;
    if (block > host.l2Bytes)
      return "cache fit (L2): mc x kc + kc x nc blocks " +
             std::to_string(block) + " bytes > L2 " +
             std::to_string(host.l2Bytes);
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Conversions between knobs and configs
//===----------------------------------------------------------------------===//

static CpuConfig toConfig(const Analysis &an, const Knobs &k) {
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

/// The knobs of `config`, or the structural rule it breaks.
static Expected<Knobs> fromConfig(const Analysis &an, const CpuConfig &config) {
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

//===----------------------------------------------------------------------===//
// Cost model
//===----------------------------------------------------------------------===//

static double lineCycles(const CpuHost &host, int64_t bytes) {
  if (bytes <= host.l1Bytes)
    return kLineCycles[0];
  if (bytes <= host.l2Bytes / 2)
    return kLineCycles[1];
  if (bytes <= host.l3Bytes / 2)
    return kLineCycles[2];
  return kLineCycles[3];
}

static double costOf(const Analysis &an, const CpuHost &host, const Knobs &k) {
  const RegisterChoice &r = k.reg;
  int64_t nr = r.nv * an.width;
  double acc = static_cast<double>(r.mr * r.nv);
  // AVX-512 on Zen 4 runs zmm FMAs on two 256-bit pipes (double-pumped).
  double pump =
      (StringRef(host.cpuName).starts_with("znver4") && host.vectorBits > 256)
          ? 2.0
          : 1.0;
  double fmaCycles = acc * pump / kFmaPipes;
  double latencyCycles = kLatencyAccumulators * pump / kFmaPipes;
  double loadCycles = (r.mr + r.nv * pump) / kLoadPorts;
  double step = std::max({fmaCycles, latencyCycles, loadCycles});

  // Block extents seen by the register loops (per thread / per cache tile).
  int64_t mE = blockExtent(an, k, an.mDim);
  int64_t nE = blockExtent(an, k, an.nDim);
  int64_t kE = k.kc ? k.kc : an.ranges[an.kDim];
  int64_t pass = kE * an.otherReduction;
  double in = an.inBytes;
  // Lines per innermost step: rows operand (broadcasts) and vector operand.
  double rowLines = r.mr * in / 64, vecLines = nr * in / 64;
  int64_t rowStrip = r.mr * pass * an.inBytes;
  int64_t rowBlock = mE * pass * an.inBytes;
  int64_t vecPanel = pass * nr * an.inBytes;
  int64_t vecBlock = pass * nE * an.inBytes;
  // Vector-operand rows whose stride is a multiple of the L1 set period share
  // L1 sets: more than a few of them cannot stay in L1.
  auto vecCycles = [&](int64_t bytes) {
    if (an.vectorOperandConflicts && pass > kConflictRows &&
        bytes <= host.l1Bytes)
      return kLineCycles[1];
    return lineCycles(host, bytes);
  };
  bool rowsReused = nE / nr > 1, colsReused = mE / r.mr > 1;
  double rowCost, vecCost;
  if (r.colsOuter) {
    vecCost = colsReused ? vecCycles(vecPanel) : vecCycles(vecBlock);
    rowCost = lineCycles(host, rowsReused ? rowBlock : rowStrip);
  } else {
    rowCost = lineCycles(host, rowsReused ? rowStrip : rowBlock);
    vecCost = colsReused ? vecCycles(vecBlock) : vecCycles(vecPanel);
  }
  step += rowLines * rowCost + vecLines * vecCost;
  // Transposed vector operand: vectors assembled element by element.
  if (an.transposedVectorOperand)
    step += r.nv * an.width;
  step += kStepOverhead / r.unroll;
  // Accumulators loaded and stored once per pass, plus pass set-up.
  double cLines = 2.0 * r.mr * nr * an.outBytes / 64;
  step += (kPassOverhead +
           cLines * std::max(kLineCycles[1],
                             lineCycles(host, mE * nE * an.outBytes))) /
          static_cast<double>(pass);

  if (an.rowStreams && r.mr > kMaxRowStreams)
    step *= std::pow(r.mr / kMaxRowStreams, kRowStreamExponent);
  if (r.mr * r.nv + r.nv + 1 > registerLimit(host) - kRegisterSlack)
    step *= kNearSpillFactor;
  step *= 1 + kUnrollPenalty * std::log2(static_cast<double>(r.unroll));

  // Cache blocking overhead and threading.
  double blocks = 1;
  if (k.kc)
    blocks *= static_cast<double>(an.ranges[an.kDim]) / k.kc;
  int64_t outerTiles = 1;
  for (auto [dim, tile] : llvm::enumerate(k.outer))
    if (tile)
      outerTiles *= an.ranges[dim] / tile;
  double speedup = 1;
  if (k.threads > 1) {
    speedup = std::min<double>(k.threads, host.cores) * kThreadEfficiency;
    step *= 1 + kPerForallTile * outerTiles / k.threads;
  } else {
    blocks *= outerTiles;
  }
  if (blocks > 1)
    step *= 1 + kBlockPenalty * std::log2(blocks);

  double iterations = 1;
  for (int64_t range : an.ranges)
    iterations *= static_cast<double>(range);
  double steps = iterations / (static_cast<double>(r.mr) * nr);
  return steps * step / kClockHz / speedup;
}

//===----------------------------------------------------------------------===//
// Enumeration
//===----------------------------------------------------------------------===//

/// The register level with Z3 (the solver's blocking-clause engine).
static Expected<std::vector<RegisterChoice>>
enumerateRegisters(const Analysis &an, const CpuHost &host) {
  SmallVector<int64_t> rowsDomain = divisors(an.rows(), registerLimit(host));
  SmallVector<int64_t> vecDomain;
  for (int64_t nv = 1; nv <= registerLimit(host); ++nv)
    if (an.cols() % (nv * an.width) == 0)
      vecDomain.push_back(nv);
  SmallVector<int64_t> unrollDomain;
  for (unsigned u : kUnrollChoices)
    unrollDomain.push_back(u);
  solver::Model m;
  // Divisibility: domains of divisors (computed here, cheap).
  solver::Expr mr = m.addVarIn("mr", rowsDomain);
  solver::Expr nv = m.addVarIn("nv", vecDomain);
  solver::Expr unroll = m.addVarIn("unroll", unrollDomain);
  solver::Expr colsOuter = m.addVar("cols_outer", 0, 1);
  m.require(m.divides(unroll, m.c(an.ranges[an.kDim])),
            "unroll divides the innermost register loop's trip count");
  m.require(
      m.le(m.add(m.add(m.mul(mr, nv), nv), m.c(1)), m.c(registerLimit(host))),
      "accumulators + operand vectors + one broadcast fit the registers");
  // Loop order: the second order only where it differs.
  solver::Expr rowsFirst = m.eq(colsOuter, m.c(0));
  if (an.twoOrders)
    m.require(m.lor(rowsFirst,
                    m.land(m.lt(mr, m.c(an.rows())),
                           m.lt(m.mul(nv, m.c(an.width)), m.c(an.cols())))),
              "columns-outer order only where it differs");
  else
    m.require(rowsFirst, "one loop order: both are the same");
  Expected<std::vector<SmallVector<int64_t>>> solutions =
      solver::solveAll(m, solver::Engine::Z3Blocking);
  if (!solutions)
    return makeError("cpu space: " + toString(solutions.takeError()));
  std::vector<RegisterChoice> found;
  for (const SmallVector<int64_t> &values : *solutions) {
    RegisterChoice r;
    r.mr = values[0];
    r.nv = values[1];
    r.unroll = static_cast<unsigned>(values[2]);
    r.colsOuter = values[3] == 1;
    found.push_back(r);
  }
  // Enumeration order of Z3 models is arbitrary: make it deterministic.
  llvm::sort(found, [](const RegisterChoice &a, const RegisterChoice &b) {
    return std::tie(a.mr, a.nv, a.colsOuter, a.unroll) <
           std::tie(b.mr, b.nv, b.colsOuter, b.unroll);
  });
  return found;
}

/// Calls `visit` with every combination of per-loop tiles over `dims`.
template <typename Fn>
static void forEachOuter(const Analysis &an, const RegisterChoice &r,
                         ArrayRef<unsigned> dims,
                         SmallVector<int64_t, 8> &outer, unsigned index,
                         Fn &&visit) {
  if (index == dims.size()) {
    visit();
    return;
  }
  unsigned dim = dims[index];
  outer[dim] = 0;
  forEachOuter(an, r, dims, outer, index + 1, visit);
  for (int64_t t : tileChoices(an.ranges[dim], registerTileOf(an, r, dim))) {
    outer[dim] = t;
    forEachOuter(an, r, dims, outer, index + 1, visit);
  }
  outer[dim] = 0;
}

} // namespace

Expected<CpuSpaceResult> enumerateCpuSpace(const Problem &problem,
                                           const CpuHost &host,
                                           const CpuSpaceOptions &options) {
  Expected<Analysis> an = analyze(problem, host);
  if (!an)
    return an.takeError();
  Expected<std::vector<RegisterChoice>> registers =
      enumerateRegisters(*an, host);
  if (!registers)
    return registers.takeError();

  SmallVector<int64_t> reductionDomain = {0};
  if (an->cacheTiling)
    llvm::append_range(reductionDomain,
                       tileChoices(an->ranges[an->kDim], 1, kMinReductionTile));
  SmallVector<unsigned> threadCounts = {1};
  if (options.threads > 1)
    threadCounts.push_back(options.threads);

  std::vector<std::pair<Knobs, double>> valid;
  CpuSpaceResult result;
  for (const RegisterChoice &r : *registers) {
    for (unsigned threads : threadCounts) {
      Knobs k;
      k.reg = r;
      k.threads = threads;
      k.outer.assign(an->ranges.size(), 0);
      SmallVector<unsigned> dims = outerDims(*an, threads);
      forEachOuter(*an, r, dims, k.outer, 0, [&] {
        for (int64_t kc : reductionDomain) {
          k.kc = kc;
          if (checkOuter(*an, host, options, k))
            continue;
          ++result.totalSolutions;
          valid.emplace_back(k, costOf(*an, host, k));
        }
      });
    }
  }
  std::stable_sort(
      valid.begin(), valid.end(),
      [](const auto &a, const auto &b) { return a.second < b.second; });
  if (valid.size() > options.maxSolutions)
    valid.resize(options.maxSolutions);
  result.ranked.reserve(valid.size());
  for (const auto &[k, cost] : valid)
    result.ranked.push_back({toConfig(*an, k), cost});
  return result;
}

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

/// A configuration's blocking strategy: which outer dims it tiles and
/// which reduction dims it cache-tiles (not the sizes).
static std::pair<uint64_t, uint64_t> strategyOf(const CpuConfig &config) {
  uint64_t outer = 0, reduction = 0;
  for (auto [i, tile] : llvm::enumerate(config.outerTiles))
    outer |= tile ? uint64_t{1} << i : 0;
  for (auto [i, tile] : llvm::enumerate(config.reductionTiles))
    reduction |= tile ? uint64_t{1} << i : 0;
  return {outer, reduction};
}

std::optional<SmallVector<int>> mapResultLoops(StringRef text,
                                               unsigned numLoops) {
  // "affine_map<(d0, d1, d2) -> (d0, d2)>"
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
  lhs.split(names, ',', -1, false);
  if (names.size() != numLoops)
    return std::nullopt;
  rhs.split(results, ',', -1, false);
  SmallVector<int> loops;
  for (StringRef result : results) {
    result = result.trim();
    int dim = -1;
    for (auto [index, name] : llvm::enumerate(names))
      if (name.trim() == result)
        dim = static_cast<int>(index);
    loops.push_back(dim);
  }
  return loops;
}

std::vector<size_t> spreadAcrossStrategies(ArrayRef<RankedConfig> ranked,
                                           size_t count) {
  count = std::min(count, ranked.size());
  // The first of each strategy, and the first with and without a reduction
  // tile (the costliest misjudgement: a whole operand streamed from L3 per
  // tile, or not).
  std::optional<size_t> blocked, unblocked;
  std::set<std::pair<uint64_t, uint64_t>> seen;
  std::vector<size_t> strategyFirsts;
  for (auto [n, r] : llvm::enumerate(ranked)) {
    auto strategy = strategyOf(r.config);
    if (seen.insert(strategy).second)
      strategyFirsts.push_back(n);
    std::optional<size_t> &first = strategy.second ? blocked : unblocked;
    if (!first)
      first = n;
  }
  std::vector<size_t> picks;
  std::vector<bool> picked(ranked.size(), false);
  auto pick = [&](size_t n) {
    if (picks.size() < count && !picked[n]) {
      picked[n] = true;
      picks.push_back(n);
    }
  };
  // One sequence whatever the count, so that a larger count only adds
  // candidates: the pair (the heuristic's best is one of them), then the
  // heuristic's next and the next strategy's first, in turn.
  for (std::optional<size_t> first :
       {std::min(blocked, unblocked), std::max(blocked, unblocked)})
    if (first)
      pick(*first);
  size_t nextRanked = 0, nextStrategy = 0;
  while (picks.size() < count) {
    while (nextRanked < ranked.size() && picked[nextRanked])
      ++nextRanked;
    if (nextRanked < ranked.size())
      pick(nextRanked);
    while (nextStrategy < strategyFirsts.size() &&
           picked[strategyFirsts[nextStrategy]])
      ++nextStrategy;
    if (nextStrategy < strategyFirsts.size())
      pick(strategyFirsts[nextStrategy]);
  }
  return picks;
}

PackedLoops packedLoops(const Problem &problem) {
  PackedLoops packed;
  if (problem.prologue.empty())
    return packed;
  unsigned numLoops = problem.loopRanges.size();
  for (const PrologueOp &op : problem.prologue) {
    if (op.input >= problem.indexingMaps.size())
      continue;
    std::optional<SmallVector<int>> read =
        mapResultLoops(problem.indexingMaps[op.input], numLoops);
    for (unsigned dim = 0; read && dim < numLoops; ++dim)
      if (problem.iteratorTypes[dim] == "parallel" &&
          problem.dimRoles[dim] != 'b' &&
          !llvm::is_contained(*read, static_cast<int>(dim)) &&
          !llvm::is_contained(packed.reused, dim))
        packed.reused.push_back(dim);
    for (int dim : read ? *read : SmallVector<int>())
      if (dim >= 0 && !llvm::is_contained(packed.panelLoops, dim))
        packed.panelLoops.push_back(dim);
  }
  packed.batch = problem.dimsWithRole('b');
  return packed;
}

double estimateCost(const Problem &problem, const CpuHost &host,
                    const CpuConfig &config) {
  Expected<Analysis> an = analyze(problem, host);
  if (!an) {
    consumeError(an.takeError());
    return std::numeric_limits<double>::infinity();
  }
  Expected<Knobs> k = fromConfig(*an, config);
  if (!k) {
    consumeError(k.takeError());
    return std::numeric_limits<double>::infinity();
  }
  return costOf(*an, host, *k);
}

} // namespace retune::cpu
