//===- ModelBench.cpp - whole model: mlir-cpu builds vs OpenBLAS-composed -===//
//
// Loads the default and the tuned mlir-cpu builds of a bundled example
// model (compile records of `retune-compile`) and times them interleaved
// with the same model written the way a user would without a compiler:
// OpenBLAS `cblas_sgemm` calls plus plain C loops for the elementwise ops.
// All three run on the same inputs after their outputs are checked to
// agree. Prints medians, the FMA peak of this machine measured in the same
// run (so GFLOP/s read as % of peak), and page faults per call (a steady
// state allocates nothing new).
//
//===----------------------------------------------------------------------===//
#include "bench/cpu/BenchCommon.h"
#include "stages/backends/mlircpu/Measure.h"
#include "stages/core/Statistics.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <cmath>
#include <cblas.h>
#include <cstdio>
#include <immintrin.h>
#include <sys/resource.h>
#include <thread>

using namespace llvm;
using namespace retune;
using bench::Buffer;

static cl::opt<std::string> modelKind(
    "model", cl::Required,
    cl::desc("which model: the bundled mlp, mixed or transformer, or "
             "[batch-]matmul-<nn|nt|tn|tt> (one contraction)"));
static cl::opt<std::string> tunedRecord("tuned", cl::Required,
                                        cl::desc("compile record of the tuned build"));
static cl::opt<std::string> defaultRecord("default", cl::Required,
                                          cl::desc("compile record of the default build"));
static cl::opt<unsigned> threads("blas-threads", cl::init(1),
                                 cl::desc("threads of OpenBLAS and of the FMA peak "
                                          "(set OMP_NUM_THREADS for the builds)"));
static cl::opt<unsigned> heads("heads", cl::init(8),
                               cl::desc("attention heads of the transformer"));
static cl::opt<unsigned> repetitions("repetitions", cl::init(15));
static cl::opt<unsigned> callsPerSample(
    "calls-per-sample", cl::init(3),
    cl::desc("back-to-back timed calls per sample, after one untimed call "
             "(the steady state of a process serving this model)"));
static cl::opt<unsigned> parkMs(
    "park-ms", cl::init(300),
    cl::desc("with --blas-threads > 1, idle milliseconds before each sample: "
             "the other variants' worker threads spin after their calls "
             "(libomp for 200 ms, OpenBLAS's pthreads likewise) and would "
             "take this one's cores"));
static cl::opt<bool> cold(
    "cold", cl::init(false),
    cl::desc("time single calls right after the other variants ran (their "
             "data evicted this one's), no untimed call first"));

namespace {

float *f32(const Buffer &b) { return static_cast<float *>(b.data()); }

/// C[m,n] = A[m,k] · op(B) with OpenBLAS; `transB`: B is [n,k].
void gemm(int m, int n, int k, const float *a, int lda, const float *b,
          int ldb, bool transB, float *c, int ldc, float beta = 0.f) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              m, n, k, 1.f, a, lda, b, ldb, beta, c, ldc);
}

/// The model composed of OpenBLAS calls and C loops, with its outputs and
/// the multiply-add work it does (2 flops each).
struct Reference {
  std::vector<Buffer> outputs;
  std::vector<Buffer> scratch;
  /// Runs the model; takes its own Reference (the lambdas outlive moves).
  std::function<void(Reference &)> run;
  double flops = 0;
};

bool shapeIs(const TensorSpec &t, std::initializer_list<int64_t> shape) {
  return t.elementType == "f32" && t.shape == std::vector<int64_t>(shape);
}

TensorSpec f32Tensor(std::vector<int64_t> shape) {
  return TensorSpec{std::move(shape), "f32"};
}

/// (x, (w_i, b_i)...) -> relu(...relu(x·w_1 + b_1)...)·w_L + b_L.
Expected<Reference> mlp(const FuncSignature &sig, const std::vector<Buffer> &in) {
  if (sig.args.size() < 3 || sig.args.size() % 2 == 0)
    return makeError("mlp: expected (x, w1, b1, ..., wL, bL)");
  Reference ref;
  int64_t m = sig.args[0].shape[0], width = sig.args[0].shape[1];
  size_t layers = (sig.args.size() - 1) / 2;
  for (size_t l = 0; l < layers; ++l) {
    const TensorSpec &w = sig.args[1 + 2 * l];
    if (w.shape.size() != 2 || w.shape[0] != width)
      return makeError("mlp: layer " + Twine(l + 1) + " does not chain");
    width = w.shape[1];
    ref.flops += 2.0 * m * w.shape[0] * width;
    (l + 1 == layers ? ref.outputs : ref.scratch).emplace_back(f32Tensor({m, width}));
  }
  ref.run = [&in, m, layers](Reference &ref) {
    const float *act = f32(in[0]);
    int k = in[0].spec().shape[1];
    for (size_t l = 0; l < layers; ++l) {
      const Buffer &w = in[1 + 2 * l], &bias = in[2 + 2 * l];
      int n = w.spec().shape[1];
      float *out = f32(l + 1 == layers ? ref.outputs[0] : ref.scratch[l]);
      gemm(m, n, k, act, k, f32(w), n, false, out, n);
      const float *b = f32(bias);
      bool relu = l + 1 < layers;
      for (int64_t i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          float v = out[i * n + j] + b[j];
          out[i * n + j] = relu ? std::max(v, 0.f) : v;
        }
      act = out;
      k = n;
    }
  };
  return ref;
}

/// (q, wt, a, b, img, filter) -> (q·wtᵀ, batch a·b, conv 3x3 via im2col).
Expected<Reference> mixed(const FuncSignature &sig, const std::vector<Buffer> &in) {
  if (sig.args.size() != 6 || sig.args[4].shape.size() != 4 ||
      sig.args[5].shape.size() != 4 || sig.args[2].shape.size() != 3)
    return makeError("mixed: expected (q, wt, a, b, img, filter)");
  Reference ref;
  auto &q = sig.args[0].shape, &a = sig.args[2].shape, &b = sig.args[3].shape,
       &img = sig.args[4].shape, &flt = sig.args[5].shape;
  int64_t m = q[0], k = q[1], n = sig.args[1].shape[0];
  int64_t batch = a[0], bm = a[1], bk = a[2], bn = b[2];
  int64_t oh = img[1] - flt[0] + 1, ow = img[2] - flt[1] + 1, c = img[3],
          f = flt[3], patch = flt[0] * flt[1] * c;
  ref.outputs.emplace_back(f32Tensor({m, n}));
  ref.outputs.emplace_back(f32Tensor({batch, bm, bn}));
  ref.outputs.emplace_back(f32Tensor({1, oh, ow, f}));
  ref.scratch.emplace_back(f32Tensor({oh * ow, patch}));
  ref.flops = 2.0 * (m * n * k + batch * bm * bn * bk + oh * ow * f * patch);
  ref.run = [&in, m, n, k, batch, bm, bk, bn, oh, ow, c, f, patch](Reference &ref) {
    gemm(m, n, k, f32(in[0]), k, f32(in[1]), k, true, f32(ref.outputs[0]), n);
    for (int64_t i = 0; i < batch; ++i)
      gemm(bm, bn, bk, f32(in[2]) + i * bm * bk, bk, f32(in[3]) + i * bk * bn,
           bn, false, f32(ref.outputs[1]) + i * bm * bn, bn);
    // im2col: one row of kh·kw·c taps per output pixel, then one sgemm.
    const float *image = f32(in[4]);
    float *cols = f32(ref.scratch[0]);
    int64_t kh = in[5].spec().shape[0], kw = in[5].spec().shape[1],
            iw = in[4].spec().shape[2];
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t dy = 0; dy < kh; ++dy)
          std::copy_n(image + ((y + dy) * iw + x) * c, kw * c,
                      cols + (y * ow + x) * patch + dy * kw * c);
    gemm(oh * ow, f, patch, cols, patch, f32(in[5]), f, false,
         f32(ref.outputs[2]), f);
  };
  return ref;
}

/// (x, wq, wk, wv, wg, wu, wd): see examples/transformer/model.mlir. Heads
/// are strided views of q, k, v (lda = width): no copies.
Expected<Reference> transformer(const FuncSignature &sig,
                                const std::vector<Buffer> &in) {
  if (sig.args.size() != 7 || sig.args[0].shape.size() != 2)
    return makeError("transformer: expected (x, wq, wk, wv, wg, wu, wd)");
  int64_t s = sig.args[0].shape[0], d = sig.args[0].shape[1],
          ff = sig.args[4].shape[1], h = heads, dh = d / h;
  if (d % h || !shapeIs(sig.args[1], {d, d}) || !shapeIs(sig.args[6], {ff, d}))
    return makeError("transformer: unexpected weight shapes");
  Reference ref;
  ref.outputs.emplace_back(f32Tensor({s, d}));
  for (int i = 0; i < 4; ++i) // q, k, v, h
    ref.scratch.emplace_back(f32Tensor({s, d}));
  ref.scratch.emplace_back(f32Tensor({h, s, s}));  // scores
  ref.scratch.emplace_back(f32Tensor({s, ff}));    // gate
  ref.scratch.emplace_back(f32Tensor({s, ff}));    // up
  ref.flops = 2.0 * (3 * s * d * d + 2 * h * s * s * dh + 3 * s * d * ff);
  ref.run = [&in, s, d, ff, h, dh](Reference &ref) {
    float *q = f32(ref.scratch[0]), *k = f32(ref.scratch[1]),
          *v = f32(ref.scratch[2]), *hid = f32(ref.scratch[3]),
          *scores = f32(ref.scratch[4]), *g = f32(ref.scratch[5]),
          *u = f32(ref.scratch[6]), *y = f32(ref.outputs[0]);
    const float *x = f32(in[0]);
    gemm(s, d, d, x, d, f32(in[1]), d, true, q, d);
    gemm(s, d, d, x, d, f32(in[2]), d, true, k, d);
    gemm(s, d, d, x, d, f32(in[3]), d, true, v, d);
    for (int64_t i = 0; i < h; ++i) {
      float *sc = scores + i * s * s;
      gemm(s, s, dh, q + i * dh, d, k + i * dh, d, true, sc, s);
      // The context lands in `hid` at the head's columns.
      gemm(s, dh, s, sc, s, v + i * dh, d, false, hid + i * dh, d);
    }
    for (int64_t i = 0; i < s * d; ++i)
      hid[i] += x[i];
    gemm(s, ff, d, hid, d, f32(in[4]), ff, false, g, ff);
    gemm(s, ff, d, hid, d, f32(in[5]), ff, false, u, ff);
    for (int64_t i = 0; i < s * ff; ++i)
      g[i] = std::max(g[i], 0.f) * u[i];
    gemm(s, d, ff, g, ff, f32(in[6]), d, false, y, d);
  };
  return ref;
}

/// (a, b) -> a · b for `matmul-<A><B>` or `batch-matmul-<A><B>`, each
/// letter n (as stored) or t (transposed: A as [k, m], B as [n, k]).
Expected<Reference> contraction(StringRef kind, const FuncSignature &sig,
                                const std::vector<Buffer> &in) {
  bool batched = kind.consume_front("batch-");
  if (!kind.consume_front("matmul-") || kind.size() != 2 ||
      kind.find_first_not_of("nt") != StringRef::npos)
    return makeError("expected matmul-<nn|nt|tn|tt> or batch-matmul-<..>");
  bool ta = kind[0] == 't', tb = kind[1] == 't';
  size_t rank = batched ? 3 : 2;
  if (sig.args.size() != 2 || sig.args[0].shape.size() != rank ||
      sig.args[1].shape.size() != rank)
    return makeError("expected (a, b) of rank " + Twine(rank));
  const std::vector<int64_t> &a = sig.args[0].shape, &b = sig.args[1].shape;
  int64_t batch = batched ? a[0] : 1, r = rank - 2;
  int64_t m = ta ? a[r + 1] : a[r], k = ta ? a[r] : a[r + 1],
          n = tb ? b[r] : b[r + 1];
  Reference ref;
  ref.outputs.emplace_back(
      f32Tensor(batched ? std::vector<int64_t>{batch, m, n}
                        : std::vector<int64_t>{m, n}));
  ref.flops = 2.0 * batch * m * n * k;
  ref.run = [&in, batch, m, n, k, ta, tb](Reference &ref) {
    for (int64_t i = 0; i < batch; ++i)
      cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                  tb ? CblasTrans : CblasNoTrans, m, n, k, 1.f,
                  f32(in[0]) + i * m * k, ta ? m : k, f32(in[1]) + i * k * n,
                  tb ? k : n, 0.f, f32(ref.outputs[0]) + i * m * n, n);
  };
  return ref;
}

Expected<Reference> referenceFor(StringRef kind, const FuncSignature &sig,
                                 const std::vector<Buffer> &in) {
  if (kind.contains("matmul-"))
    return contraction(kind, sig, in);
  if (kind == "mlp")
    return mlp(sig, in);
  if (kind == "mixed")
    return mixed(sig, in);
  if (kind == "transformer")
    return transformer(sig, in);
  return makeError("--model=" + kind + ": expected mlp, mixed or transformer");
}

// FMA peak: independent chains of vector FMAs, enough to cover the FMA
// latency on every port; 2 flops per lane per FMA.
constexpr int kChains = 16;
constexpr long kIterations = 20'000'000;

__attribute__((target("avx512f"))) double fmaLoop512() {
  __m512 acc[kChains], mul = _mm512_set1_ps(0.999999f), add = _mm512_set1_ps(1e-7f);
  for (int c = 0; c < kChains; ++c)
    acc[c] = _mm512_set1_ps(float(c));
  for (long i = 0; i < kIterations; ++i)
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm512_fmadd_ps(acc[c], mul, add);
  float sink[16];
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c)
    sum = _mm512_add_ps(sum, acc[c]);
  _mm512_storeu_ps(sink, sum);
  asm volatile("" ::"r"(sink[0]));
  return 2.0 * 16 * kChains * kIterations;
}

__attribute__((target("avx2,fma"))) double fmaLoop256() {
  __m256 acc[kChains], mul = _mm256_set1_ps(0.999999f), add = _mm256_set1_ps(1e-7f);
  for (int c = 0; c < kChains; ++c)
    acc[c] = _mm256_set1_ps(float(c));
  for (long i = 0; i < kIterations; ++i)
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm256_fmadd_ps(acc[c], mul, add);
  float sink[8];
  __m256 sum = acc[0];
  for (int c = 1; c < kChains; ++c)
    sum = _mm256_add_ps(sum, acc[c]);
  _mm256_storeu_ps(sink, sum);
  asm volatile("" ::"r"(sink[0]));
  return 2.0 * 8 * kChains * kIterations;
}

/// FMA GFLOP/s of `n` threads, best of three runs; names the vector width.
std::pair<double, const char *> fmaPeak(unsigned n) {
  bool wide = __builtin_cpu_supports("avx512f");
  double best = 0;
  for (int run = 0; run < 3; ++run) {
    std::vector<double> flops(n);
    double t = bench::seconds([&] {
      std::vector<std::thread> workers;
      for (unsigned i = 0; i < n; ++i)
        workers.emplace_back(
            [&, i] { flops[i] = wide ? fmaLoop512() : fmaLoop256(); });
      for (std::thread &w : workers)
        w.join();
    });
    double total = 0;
    for (double f : flops)
      total += f;
    best = std::max(best, total / t * 1e-9);
  }
  return {best, wide ? "AVX-512" : "AVX2"};
}

long minorFaults() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

/// A timed variant: its samples and the page faults its calls took.
struct Timing {
  const char *name;
  std::function<void()> call;
  std::vector<double> samples;
  long faults = 0;
};

/// Largest |a - e| over each result, relative to that result's largest
/// |e|: a sum's rounding error scales with its terms, not with its value,
/// and the deep products here reach 1e12 from inputs in [-1, 1].
double maxScaledError(const std::vector<bench::Values> &actual,
                      const std::vector<bench::Values> &expected) {
  if (actual.size() != expected.size())
    return INFINITY;
  double worst = 0;
  for (auto [a, e] : llvm::zip(actual, expected)) {
    if (a.size() != e.size())
      return INFINITY;
    double scale = 1, diff = 0;
    for (auto [x, y] : llvm::zip(a, e)) {
      scale = std::max(scale, std::fabs(y));
      diff = std::max(diff, std::isnan(x) != std::isnan(y) ? INFINITY
                                                           : std::fabs(x - y));
    }
    worst = std::max(worst, diff / scale);
  }
  return worst;
}

bench::Values valuesOf(const Buffer &b) {
  bench::Values v(b.numElements());
  for (int64_t i = 0; i < b.numElements(); ++i)
    v[i] = b.at(i);
  return v;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv, "whole model: default and tuned mlir-cpu builds vs the "
                  "same model composed of OpenBLAS calls\n");
  auto fail = [](Error err) {
    WithColor::error() << toString(std::move(err)) << "\n";
    return 1;
  };
  FuncSignature signature;
  auto tuned = bench::loadFromRecord(tunedRecord, "forward", signature);
  if (!tuned)
    return fail(tuned.takeError());
  auto base = bench::loadFromRecord(defaultRecord, "forward", signature);
  if (!base)
    return fail(base.takeError());
  std::vector<Buffer> inputs = bench::makeInputs(signature, 7);
  (*tuned)->setInputs(inputs);
  (*base)->setInputs(inputs);
  Expected<Reference> ref = referenceFor(modelKind, signature, inputs);
  if (!ref)
    return fail(ref.takeError());
  openblas_set_num_threads(threads);

  // The three must agree before any of them is timed.
  ref->run(*ref);
  std::vector<bench::Values> expected;
  for (const Buffer &out : ref->outputs)
    expected.push_back(valuesOf(out));
  for (auto [name, kernel] : {std::pair{"tuned", tuned->get()},
                              std::pair{"default", base->get()}}) {
    double error = maxScaledError(kernel->call(true), expected);
    if (error > bench::toleranceFor("f32"))
      return fail(makeError(Twine(name) + " build differs from the OpenBLAS "
                            "reference (max rel error " + std::to_string(error) + ")"));
  }

  auto [peak, isa] = fmaPeak(threads);
  std::vector<Timing> timings = {
      {"OpenBLAS-composed", [&] { ref->run(*ref); }, {}, 0},
      {"default mlir-cpu", [&] { (*base)->call(false); }, {}, 0},
      {"tuned mlir-cpu", [&] { (*tuned)->call(false); }, {}, 0}};
  for (int warm = 0; warm < 3; ++warm)
    for (Timing &t : timings)
      t.call();
  // Variants take turns sample by sample, so machine noise hits all.
  unsigned calls = cold ? 1 : std::max(1u, callsPerSample.getValue());
  for (unsigned r = 0; r < repetitions; ++r)
    for (Timing &t : timings) {
      if (threads > 1)
        std::this_thread::sleep_for(std::chrono::milliseconds(parkMs));
      if (!cold)
        t.call();
      long before = minorFaults();
      t.samples.push_back(bench::seconds([&] {
                            for (unsigned c = 0; c < calls; ++c)
                              t.call();
                          }) /
                          calls);
      t.faults += minorFaults() - before;
    }
  std::printf("model %s, %u thread%s, %.2f GFLOP per call, median of %u "
              "samples taken in turn, %s\n",
              modelKind.c_str(), threads.getValue(), threads > 1 ? "s" : "",
              ref->flops * 1e-9, repetitions.getValue(),
              cold ? "1 cold call each"
                   : (std::to_string(calls) +
                      " back-to-back calls each after an untimed one")
                        .c_str());
  if (threads > 1)
    std::printf("each sample after %u ms idle, so that no variant's spinning "
                "workers take the cores of the next\n",
                parkMs.getValue());
  std::printf("FMA peak, %u thread%s (%s): %.1f GFLOP/s; OpenBLAS kernel: %s\n",
              threads.getValue(), threads > 1 ? "s" : "", isa, peak,
              openblas_get_corename());
  std::printf("  %-18s %9s %9s %7s %12s\n", "", "ms", "GFLOP/s", "% peak",
              "faults/call");
  std::vector<double> medians;
  for (Timing &t : timings) {
    double median = stats::quantile(t.samples, 0.5);
    medians.push_back(median);
    double gflops = ref->flops / median * 1e-9;
    std::printf("  %-18s %9.3f %9.1f %6.1f%% %12.1f\n", t.name, median * 1e3,
                gflops, 100 * gflops / peak,
                double(t.faults) / (repetitions * calls));
  }
  std::printf("  tuned / OpenBLAS-composed speed: %.2fx   default / OpenBLAS: "
              "%.2fx   tuned / default: %.2fx\n",
              medians[0] / medians[2], medians[0] / medians[1],
              medians[1] / medians[2]);
  return 0;
}
