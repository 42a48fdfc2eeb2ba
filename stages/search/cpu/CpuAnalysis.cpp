//===- CpuAnalysis.cpp - What the CPU space knows of a problem ------------===//
#include "stages/search/cpu/CpuAnalysis.h"

#include "stages/core/IndexingMap.h"

#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace retune::cpu {
namespace {

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

} // namespace

Expected<Analysis> analyze(const Problem &problem, const CpuHost &host) {
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
        an.vectorOperandConflicts =
            stride > 0 && stride % host.l1SetPeriodBytes == 0;
      }
    }
  }
  return an;
}


std::optional<SmallVector<int>> mapResultLoops(StringRef text,
                                               unsigned numLoops) {
  std::optional<IndexingMap> map = parseIndexingMap(text, numLoops);
  if (!map)
    return std::nullopt;
  return map->resultLoops();
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

} // namespace retune::cpu
