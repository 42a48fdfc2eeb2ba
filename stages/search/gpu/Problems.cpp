//===- Problems.cpp - Problems of common shapes ---------------------------===//
#include "stages/search/gpu/Problems.h"

namespace retune::gpu {

Problem makeMatmul(int64_t m, int64_t n, int64_t k, StringRef inType, StringRef accType,
                   StringRef target) {
  Problem p;
  p.kind = OpKind::Contraction;
  p.opName = "linalg.matmul";
  p.loopRanges = {m, n, k};
  p.iteratorTypes = {"parallel", "parallel", "reduction"};
  p.indexingMaps = {"affine_map<(d0, d1, d2) -> (d0, d2)>", "affine_map<(d0, d1, d2) -> (d1, d2)>",
                    "affine_map<(d0, d1, d2) -> (d0, d1)>"};
  p.elementTypes = {inType.str(), inType.str(), accType.str()};
  p.numInputs = 2;
  p.dimRoles = "mnk";
  p.target = target.str();
  return p;
}

Problem makeConvNhwcHwcf(int64_t n, int64_t oh, int64_t ow, int64_t oc, int64_t fh, int64_t fw,
                         int64_t ic, StringRef inType, StringRef accType, StringRef target) {
  Problem p;
  p.kind = OpKind::Convolution;
  p.opName = "linalg.conv_2d_nhwc_hwcf";
  p.loopRanges = {n, oh, ow, oc, fh, fw, ic};
  p.iteratorTypes = {"parallel",  "parallel",  "parallel", "parallel",
                     "reduction", "reduction", "reduction"};
  p.indexingMaps = {
      "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>",
      "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>",
      "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>"};
  p.elementTypes = {inType.str(), inType.str(), accType.str()};
  p.numInputs = 2;
  p.dimRoles = "boofrrc";
  p.target = target.str();
  return p;
}

Problem makeAttention(int64_t b, int64_t m, int64_t n, int64_t k1, int64_t k2, StringRef type,
                      StringRef target) {
  Problem p;
  p.kind = OpKind::Attention;
  p.opName = "iree_linalg_ext.attention";
  p.loopRanges = {b, m, n, k1, k2};
  p.iteratorTypes = {"parallel", "parallel", "parallel", "reduction", "reduction"};
  p.indexingMaps = {"affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>",
                    "affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>",
                    "affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>",
                    "affine_map<(d0, d1, d2, d3, d4) -> ()>",
                    "affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>"};
  // Q, K, V, scale, then the output.
  p.elementTypes = {type.str(), type.str(), type.str(), type.str(), type.str()};
  p.numInputs = 4;
  p.dimRoles = "bmnkl";
  p.target = target.str();
  return p;
}

GpuTarget sm80Target() {
  return cantFail(parseGpuTargetAttr(
      "#iree_gpu.target<arch = \"sm_80\", features = \"+ptx76\", wgp = <compute "
      "= fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, "
      "subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = "
      "[<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, "
      "<NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_WMMA_F32_16x16x16_F16>, "
      "<NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], "
      "max_workgroup_sizes = [1024, 1024, 1024], "
      "max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = "
      "166912, max_workgroup_counts = [2147483647, 65535, 65535]>>"));
}

} // namespace retune::gpu
