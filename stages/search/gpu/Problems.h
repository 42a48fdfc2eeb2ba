//===- Problems.h - Problems of common shapes (tests, benches) --*- C++ -*-===//
//
// The GPU side's defaults (f16 in, f32 accumulation, gfx942) over the shared
// shapes of stages/core/ProblemBuilder.h.
//
#ifndef RETUNE_GPU_PROBLEMS_H
#define RETUNE_GPU_PROBLEMS_H

#include "stages/core/Problem.h"
#include "stages/search/gpu/GpuTarget.h"

namespace retune::gpu {

/// sm_80 as IREE 3.13 prints it in a CUDA dispatch's executable target
/// (`--iree-hal-target-device=cuda --iree-cuda-target=sm_80`).
GpuTarget sm80Target();

/// linalg.matmul with a transposed RHS (C[m,n] += A[m,k] * B[n,k]), the
/// shape IREE's ROCm tests and the reference's examples use.
Problem makeMatmul(int64_t m, int64_t n, int64_t k, StringRef inType = "f16",
                   StringRef accType = "f32", StringRef target = "gfx942");

/// linalg.conv_2d_nhwc_hwcf with unit strides: output n x oh x ow x oc,
/// filter fh x fw x ic.
Problem makeConvNhwcHwcf(int64_t n, int64_t oh, int64_t ow, int64_t oc, int64_t fh, int64_t fw,
                         int64_t ic, StringRef inType = "f16", StringRef accType = "f32",
                         StringRef target = "gfx942");

/// iree_linalg_ext.attention with loops (B, M, N, K1, K2) and Q[b,m,k1],
/// K[b,k2,k1], V[b,k2,n], O[b,m,n].
Problem makeAttention(int64_t b, int64_t m, int64_t n, int64_t k1, int64_t k2,
                      StringRef type = "f16", StringRef target = "gfx942");

} // namespace retune::gpu

#endif // RETUNE_GPU_PROBLEMS_H
