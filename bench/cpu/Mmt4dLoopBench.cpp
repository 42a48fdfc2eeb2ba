//===- Mmt4dLoopBench.cpp - The data-tiled matmul's inner loop, timed -----===//
//
// How fast the inner loop of IREE's f32 mmt4d microkernel on AVX-512 can
// run on this CPU, and what a software prefetch ahead in K would give it.
// IREE 3.13 data-tiles f32 matmuls into 16x16x1 tiles there; its ukernel
// (and its codegen, which emits the same loop) keeps a 16x16 accumulator in
// 16 zmm registers and, per K step, loads one RHS row and broadcasts 16 LHS
// values into 16 FMAs, through the whole K of a tile, with no prefetch in
// the loop. This tool runs that loop over a grid of M1 x N1 tiles of K
// steps, the LHS and RHS packed as IREE packs them, with and without a
// prefetch of both panels `--prefetch` steps ahead, and prints GFLOP/s and
// the ratio. Nothing a tuning spec can set adds such a prefetch
// (docs/iree-backend.md, "The data-tiled inner loop"): this measures the
// ceiling the spec cannot reach, not something Retune does.
//
// usage: retune-mmt4d-loop-bench --k K --m1 M1 --n1 N1 [--prefetch 16]
//===----------------------------------------------------------------------===//

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <immintrin.h>
#include <memory>
#include <vector>

using namespace llvm;

namespace {
cl::opt<int> kSteps("k", cl::desc("K1: steps of the inner loop per tile"),
                    cl::init(1024));
cl::opt<int> m1Tiles("m1", cl::desc("M1: LHS tiles of 16 rows"), cl::init(16));
cl::opt<int> n1Tiles("n1", cl::desc("N1: RHS tiles of 16 columns"),
                     cl::init(64));
cl::opt<int> prefetchSteps("prefetch",
                           cl::desc("K steps ahead the prefetching loop "
                                    "reads both panels"),
                           cl::init(16));

constexpr int kTile = 16;

/// One 16x16 output tile over `k` steps: what the ukernel's loop does. With
/// `ahead` > 0, also prefetches both panels `ahead` steps ahead.
__attribute__((target("avx512f"))) void
tile(const float *lhs, const float *rhs, float *out, int k, int ahead) {
  __m512 acc[kTile];
  for (__m512 &a : acc)
    a = _mm512_setzero_ps();
  for (int step = 0; step < k; ++step) {
    const float *l = lhs + step * kTile;
    __m512 r = _mm512_load_ps(rhs + step * kTile);
    if (ahead) {
      _mm_prefetch(reinterpret_cast<const char *>(l + ahead * kTile),
                   _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char *>(rhs + (step + ahead) * kTile),
                   _MM_HINT_T0);
    }
#pragma GCC unroll 16
    for (int row = 0; row < kTile; ++row)
      acc[row] = _mm512_fmadd_ps(_mm512_set1_ps(l[row]), r, acc[row]);
  }
  for (int row = 0; row < kTile; ++row)
    _mm512_store_ps(out + row * kTile, acc[row]);
}

struct AlignedFree {
  void operator()(float *p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float[], AlignedFree>;

Buffer allocate(size_t floats, float value) {
  Buffer b(static_cast<float *>(std::aligned_alloc(64, floats * sizeof(float))));
  std::fill(b.get(), b.get() + floats, value);
  return b;
}

/// Best of five timings of the whole grid (M1 outer, N1 inner: a
/// workgroup's order), in GFLOP/s.
double gflops(const float *lhs, const float *rhs, float *out, int ahead) {
  size_t panel = size_t(kSteps) * kTile;
  double flops = 2.0 * m1Tiles * n1Tiles * kSteps * kTile * kTile;
  int reps = std::max(1, int(2e10 / flops));
  double best = 1e30;
  for (int round = 0; round < 5; ++round) {
    auto start = std::chrono::steady_clock::now();
    for (int rep = 0; rep < reps; ++rep)
      for (int m = 0; m < m1Tiles; ++m)
        for (int n = 0; n < n1Tiles; ++n)
          tile(lhs + m * panel, rhs + n * panel,
               out + (size_t(m) * n1Tiles + n) * kTile * kTile, kSteps, ahead);
    std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count() / reps);
  }
  return flops / best / 1e9;
}
} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv,
                              "the data-tiled f32 matmul's inner loop\n");
  if (kSteps < 1 || m1Tiles < 1 || n1Tiles < 1 || prefetchSteps < 1) {
    errs() << "retune-mmt4d-loop-bench: --k, --m1, --n1 and --prefetch must "
              "be at least 1\n";
    return 1;
  }
  if (!__builtin_cpu_supports("avx512f")) {
    outs() << "skipped: this CPU has no AVX-512 (IREE's f32 tiles are 16x16x1 "
              "only there)\n";
    return 0;
  }
  size_t panel = size_t(kSteps) * kTile;
  Buffer lhs = allocate(panel * m1Tiles, 1e-3f);
  Buffer rhs = allocate(panel * n1Tiles, 1e-3f);
  Buffer out = allocate(size_t(m1Tiles) * n1Tiles * kTile * kTile, 0);
  // Interleaved, so that a slow phase of the machine hits both.
  double plain = 0, ahead = 0;
  for (int round = 0; round < 3; ++round) {
    plain = std::max(plain, gflops(lhs.get(), rhs.get(), out.get(), 0));
    ahead = std::max(ahead, gflops(lhs.get(), rhs.get(), out.get(),
                                   prefetchSteps));
  }
  double mb = 1.0 / (1 << 20);
  outs() << format("mmt4d %dx%dx%dx16x16x1 f32 (LHS %.2f MB, RHS %.2f MB): "
                   "ukernel's loop %.1f GFLOP/s, with a prefetch %d steps "
                   "ahead %.1f GFLOP/s (%.2fx)\n",
                   int(m1Tiles), int(n1Tiles), int(kSteps),
                   panel * m1Tiles * 4 * mb, panel * n1Tiles * 4 * mb, plain,
                   int(prefetchSteps), ahead, ahead / plain);
  return 0;
}
