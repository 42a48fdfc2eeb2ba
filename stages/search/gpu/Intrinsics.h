//===- Intrinsics.h - MMA intrinsics: shapes, types, layouts ----*- C++ -*-===//
//
// Every MMA intrinsic named in IREE's known GPU targets, with its M/N/K shape
// and element types (parsed from the name, which IREE spells
// <family>_<C type>_<M>x<N>x<K>_<A type>[_<B type>]), plus the virtual
// intrinsics that IREE's TargetInfo derives from real ones (attention only).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_GPU_INTRINSICS_H
#define RETUNE_GPU_INTRINSICS_H

#include "stages/search/gpu/GpuTarget.h"

#include <array>

namespace retune::gpu {

/// One operand's single-subgroup layout (IREE's
/// `get_single_subgroup_layout`): outer, thread and element counts and thread
/// strides along the operand's two dims.
struct SubgroupLayout {
  std::array<int64_t, 2> outer{1, 1}, thread{1, 1}, threadStrides{1, 1}, element{1, 1};
  bool operator==(const SubgroupLayout &other) const = default;
};

struct Intrinsic {
  std::string name;
  int64_t m = 0, n = 0, k = 0;
  /// MLIR element type spellings ("f16", "bf16", "f8E4M3FNUZ", "i8", ...).
  std::string aType, bType, cType;
  /// VMFMA_*: usable only for attention.
  bool isVirtual = false;
  /// Block-scaled intrinsics need scale operands the search does not model.
  bool isScaled = false;
  SubgroupLayout a, b, c;
};

/// Every intrinsic the tuner knows, in a fixed order.
ArrayRef<Intrinsic> allIntrinsics();
const Intrinsic *lookupIntrinsic(StringRef name);

/// Parses `name` into an Intrinsic (shape, types and layouts); an error for a
/// name that does not follow IREE's spelling.
Expected<Intrinsic> parseIntrinsicName(StringRef name);

/// IREE's compatibility rule (GPUHeuristics.cpp, canTargetIntrinsic with
/// canUpcastAcc): A and B types equal the LHS and RHS element types; the
/// result type equals the accumulator or is a wider float type.
bool isCompatible(const Intrinsic &intrinsic, StringRef lhs, StringRef rhs, StringRef acc);

/// The target's intrinsics compatible with the operand types, plus the
/// virtual ones derived from them when `allowVirtual` (attention).
SmallVector<const Intrinsic *> compatibleIntrinsics(const GpuTarget &target, StringRef lhs,
                                                    StringRef rhs, StringRef acc,
                                                    bool allowVirtual);

/// Bytes of one element of an MLIR element type (f16 -> 2); 0 if unknown.
int64_t elementBytes(StringRef type);

} // namespace retune::gpu

#endif // RETUNE_GPU_INTRINSICS_H
