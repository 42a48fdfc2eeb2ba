//===- Intrinsics.cpp - MMA intrinsic table --------------------------------===//
#include "stages/search/gpu/Intrinsics.h"

#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

namespace retune::gpu {

/// Names from iree-interfaces.md §5 (all four AMD targets and the NVIDIA
/// ones), then the virtual intrinsics IREE's TargetInfo appends.
static constexpr const char *kNames[] = {
    // CDNA3 (gfx942).
    "MFMA_F32_16x16x16_BF16", "MFMA_F32_32x32x8_BF16", "MFMA_F32_16x16x32_F8E5M2FNUZ",
    "MFMA_F32_16x16x32_F8E5M2FNUZ_F8E4M3FNUZ", "MFMA_F32_16x16x32_F8E4M3FNUZ",
    "MFMA_F32_16x16x32_F8E4M3FNUZ_F8E5M2FNUZ", "MFMA_F32_32x32x16_F8E5M2FNUZ",
    "MFMA_F32_32x32x16_F8E5M2FNUZ_F8E4M3FNUZ", "MFMA_F32_32x32x16_F8E4M3FNUZ",
    "MFMA_F32_32x32x16_F8E4M3FNUZ_F8E5M2FNUZ", "MFMA_I32_16x16x32_I8", "MFMA_I32_32x32x16_I8",
    "MFMA_F64_16x16x4_F64", "MFMA_F32_16x16x4_F32", "MFMA_F32_16x16x16_F16",
    "MFMA_F32_32x32x8_F16",
    // CDNA4 (gfx950), beyond the CDNA3 shapes.
    "MFMA_F32_16x16x32_F16", "MFMA_F32_32x32x16_F16", "MFMA_F32_16x16x32_BF16",
    "MFMA_F32_32x32x16_BF16", "MFMA_F32_16x16x128_F8E5M2", "MFMA_F32_16x16x128_F8E5M2_F8E4M3FN",
    "MFMA_F32_16x16x128_F8E4M3FN", "MFMA_F32_16x16x128_F8E4M3FN_F8E5M2",
    "MFMA_F32_32x32x64_F8E5M2", "MFMA_F32_32x32x64_F8E5M2_F8E4M3FN",
    "MFMA_F32_32x32x64_F8E4M3FN", "MFMA_F32_32x32x64_F8E4M3FN_F8E5M2", "MFMA_I32_16x16x64_I8",
    "MFMA_I32_32x32x32_I8", "MFMA_F32_16x16x32_F8E5M2", "MFMA_F32_16x16x32_F8E5M2_F8E4M3FN",
    "MFMA_F32_16x16x32_F8E4M3FN", "MFMA_F32_16x16x32_F8E4M3FN_F8E5M2",
    "MFMA_F32_32x32x16_F8E5M2", "MFMA_F32_32x32x16_F8E5M2_F8E4M3FN",
    "MFMA_F32_32x32x16_F8E4M3FN", "MFMA_F32_32x32x16_F8E4M3FN_F8E5M2",
    "MFMA_SCALE_F32_16x16x128_B32", "MFMA_SCALE_F32_32x32x64_B32",
    // RDNA3 (gfx1100).
    "WMMAR3_F32_16x16x16_F16", "WMMAR3_F16_16x16x16_F16", "WMMAR3_F32_16x16x16_BF16",
    "WMMAR3_BF16_16x16x16_BF16", "WMMAR3_I32_16x16x16_I8",
    // RDNA4 (gfx1201).
    "WMMAR4_F32_16x16x16_F16", "WMMAR4_F16_16x16x16_F16", "WMMAR4_F32_16x16x16_BF16",
    "WMMAR4_BF16_16x16x16_BF16", "WMMAR4_F32_16x16x16_F8E5M2",
    "WMMAR4_F32_16x16x16_F8E5M2_F8E4M3FN", "WMMAR4_F32_16x16x16_F8E4M3FN",
    "WMMAR4_F32_16x16x16_F8E4M3FN_F8E5M2", "WMMAR4_I32_16x16x16_I8",
    // NVIDIA (sm_80), listed for completeness; no CUDA search space yet.
    "NV_MMA_SYNC_F32_16x8x16_F16", "NV_MMA_SYNC_F16_16x8x16_F16", "NV_MMA_SYNC_F32_16x8x16_BF16",
    "NV_WMMA_F32_16x16x16_F16", "NV_WMMA_F16_16x16x16_F16",
    // Virtual: two chained MFMAs along K (IREE VirtualMMAIntrinsic).
    "VMFMA_F32_16x16x32_F16", "VMFMA_F32_32x32x16_F16",
};

/// The real intrinsic a virtual one unrolls; the target must have it.
static StringRef virtualBase(StringRef name) {
  if (name == "VMFMA_F32_16x16x32_F16")
    return "MFMA_F32_16x16x16_F16";
  if (name == "VMFMA_F32_32x32x16_F16")
    return "MFMA_F32_32x32x8_F16";
  return "";
}

/// IREE's type token to the MLIR spelling: F8E4M3FNUZ -> f8E4M3FNUZ, BF16 -> bf16.
static std::string mlirType(StringRef token) {
  if (token.starts_with("F8"))
    return ("f8" + token.drop_front(2)).str();
  return token.lower();
}

/// Layouts by family, following IREE's MMA attribute definitions: CDNA MFMA
/// spreads 64 lanes as (M or N) x (K/lanes-per-row); RDNA3 WMMA holds the
/// accumulator in 8 strided rows; RDNA4 WMMA in 8 contiguous ones.
static void setLayouts(Intrinsic &in, StringRef family) {
  int64_t rows = in.m;
  if (family == "MFMA" || family == "VMFMA" || family == "MFMA_SCALE") {
    int64_t kLanes = 64 / rows;
    int64_t kOuter = family == "VMFMA" ? 2 : 1;
    int64_t kElems = in.k / (kLanes * kOuter);
    in.a = {{1, kOuter}, {rows, kLanes}, {1, rows}, {1, kElems}};
    in.b = {{kOuter, 1}, {kLanes, rows}, {rows, 1}, {kElems, 1}};
    int64_t cRowsPerLane = 4, cOuter = rows * rows / 64 / cRowsPerLane;
    in.c = {{cOuter, 1}, {kLanes, rows}, {rows, 1}, {cRowsPerLane, 1}};
    return;
  }
  if (family == "WMMAR3") {
    in.a = {{1, 1}, {16, 1}, {1, 16}, {1, 16}};
    in.b = {{1, 1}, {1, 16}, {16, 1}, {16, 1}};
    in.c = {{8, 1}, {2, 16}, {16, 1}, {1, 1}};
    return;
  }
  if (family == "WMMAR4") {
    in.a = {{1, 1}, {16, 2}, {1, 16}, {1, 8}};
    in.b = {{1, 1}, {2, 16}, {16, 1}, {8, 1}};
    in.c = {{1, 1}, {2, 16}, {16, 1}, {8, 1}};
    return;
  }
  // NVIDIA layouts are not needed: no NVIDIA space is built.
}

Expected<Intrinsic> parseIntrinsicName(StringRef name) {
  SmallVector<StringRef> parts;
  name.split(parts, '_');
  // The family may itself contain '_' (NV_MMA_SYNC, MFMA_SCALE): the shape
  // token "MxNxK" is the anchor.
  auto shapeIt = llvm::find_if(parts, [](StringRef p) {
    return p.count('x') == 2 && llvm::isDigit(p.front());
  });
  if (shapeIt == parts.end() || shapeIt - parts.begin() < 2 || shapeIt + 1 == parts.end())
    return makeError("'" + name + "' is not an MMA intrinsic name (<family>_<C>_<M>x<N>x<K>_<A>[_<B>])");
  Intrinsic in;
  in.name = name.str();
  SmallVector<StringRef> dims;
  shapeIt->split(dims, 'x');
  if (dims[0].getAsInteger(10, in.m) || dims[1].getAsInteger(10, in.n) ||
      dims[2].getAsInteger(10, in.k))
    return makeError("'" + name + "': bad shape '" + *shapeIt + "'");
  std::string family = llvm::join(llvm::make_range(parts.begin(), shapeIt - 1), "_");
  in.cType = mlirType(*(shapeIt - 1));
  in.aType = mlirType(*(shapeIt + 1));
  in.bType = shapeIt + 2 != parts.end() ? mlirType(*(shapeIt + 2)) : in.aType;
  in.isVirtual = family == "VMFMA";
  in.isScaled = family == "MFMA_SCALE";
  setLayouts(in, family);
  return in;
}

ArrayRef<Intrinsic> allIntrinsics() {
  static const std::vector<Intrinsic> table = [] {
    std::vector<Intrinsic> result;
    for (const char *name : kNames)
      result.push_back(cantFail(parseIntrinsicName(name)));
    return result;
  }();
  return table;
}

const Intrinsic *lookupIntrinsic(StringRef name) {
  for (const Intrinsic &in : allIntrinsics())
    if (in.name == name)
      return &in;
  return nullptr;
}

bool isCompatible(const Intrinsic &in, StringRef lhs, StringRef rhs, StringRef acc) {
  if (in.isScaled || in.aType != lhs || in.bType != rhs)
    return false;
  if (in.cType == acc)
    return true;
  // IREE's rule (GPUHeuristics.cpp, canTargetIntrinsic with canUpcastAcc):
  // a float intrinsic may accumulate in a wider type than the problem, never
  // a narrower one. The reference's opposite rule (an f16 C for an f32
  // accumulator) emits WMMAR3_F16 configurations for f16 -> f32 on gfx1100,
  // and IREE 3.13 fails every one of them ("write affecting operations on
  // shared resources are restricted to lane or thread distributed").
  bool floats = StringRef(in.cType).starts_with("f") || StringRef(in.cType).starts_with("bf");
  bool floatAcc = acc.starts_with("f") || acc.starts_with("bf");
  return floats && floatAcc && elementBytes(in.cType) > elementBytes(acc);
}

SmallVector<const Intrinsic *> compatibleIntrinsics(const GpuTarget &target, StringRef lhs,
                                                    StringRef rhs, StringRef acc,
                                                    bool allowVirtual) {
  SmallVector<const Intrinsic *> result;
  for (const Intrinsic &in : allIntrinsics()) {
    bool available = in.isVirtual ? allowVirtual && target.hasIntrinsic(virtualBase(in.name))
                                  : target.hasIntrinsic(in.name);
    if (available && isCompatible(in, lhs, rhs, acc))
      result.push_back(&in);
  }
  return result;
}

int64_t elementBytes(StringRef type) {
  unsigned bits = 0;
  if (type.starts_with("f8"))
    return 1;
  StringRef digits = type.drop_while([](char ch) { return !llvm::isDigit(ch); });
  if (digits.getAsInteger(10, bits))
    return 0;
  return (bits + 7) / 8;
}

} // namespace retune::gpu
