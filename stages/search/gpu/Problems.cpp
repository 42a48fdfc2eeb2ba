//===- Problems.cpp - Problems of common shapes ---------------------------===//
#include "stages/search/gpu/Problems.h"

#include "stages/core/ProblemBuilder.h"

namespace retune::gpu {

Problem makeMatmul(int64_t m, int64_t n, int64_t k, StringRef inType, StringRef accType,
                   StringRef target) {
  return matmulProblem(m, n, k, /*transposedB=*/true,
                       {inType.str(), accType.str(), target.str()});
}

Problem makeConvNhwcHwcf(int64_t n, int64_t oh, int64_t ow, int64_t oc, int64_t fh, int64_t fw,
                         int64_t ic, StringRef inType, StringRef accType, StringRef target) {
  return convNhwcHwcfProblem(n, oh, ow, oc, fh, fw, ic,
                             {inType.str(), accType.str(), target.str()});
}

Problem makeAttention(int64_t b, int64_t m, int64_t n, int64_t k1, int64_t k2, StringRef type,
                      StringRef target) {
  return attentionProblem({b}, m, n, k1, k2, /*transposedV=*/false,
                          {type.str(), type.str(), target.str()});
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
