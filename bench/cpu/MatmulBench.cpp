//===- MatmulBench.cpp - tuned vs default config vs OpenBLAS sgemm --------===//
//
// Loads the tuned and the default-config builds of a row-major f32 matmul
// dispatch (compile records from a `ninja tune` build directory) and times
// them interleaved with OpenBLAS's cblas_sgemm on one thread, on the same
// inputs, after checking all three agree. Prints GFLOP/s and ratios.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/KernelRunner.h"
#include "stages/backends/mlircpu/Measure.h"
#include "stages/core/Records.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"

#include <cblas.h>
#include <chrono>
#include <cstdio>

using namespace llvm;
using namespace retune;

static cl::opt<std::string> tunedRecord("tuned", cl::Required,
                                        cl::desc("compile record of the tuned build"));
static cl::opt<std::string> defaultRecord("default", cl::Required,
                                          cl::desc("compile record of the default build"));
static cl::opt<unsigned> repetitions("repetitions", cl::init(15));

extern "C" void openblas_set_num_threads(int);
extern "C" char *openblas_get_corename(void);

static Expected<std::unique_ptr<bench::Kernel>> load(StringRef recordPath,
                                                     FuncSignature &signature) {
  Expected<CompileRecord> record =
      readRecord<CompileRecord>(recordPath, schema::kCompile, compileRecordFromJson);
  if (!record)
    return record.takeError();
  if (record->status != Status::Ok || record->functions.size() != 1)
    return createStringError(inconvertibleErrorCode(),
                             recordPath + ": not a successful single-function build");
  signature = record->functions.front();
  return bench::Kernel::load(record->artifact, signature);
}

static double seconds(const std::function<void()> &call) {
  auto start = std::chrono::steady_clock::now();
  call();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "tuned vs default vs OpenBLAS sgemm\n");
  FuncSignature signature;
  auto tuned = load(tunedRecord, signature);
  auto base = load(defaultRecord, signature);
  if (!tuned || !base) {
    WithColor::error() << (tuned ? toString(base.takeError())
                                 : toString(tuned.takeError()))
                       << "\n";
    return 1;
  }
  // (A[M,K], B[K,N], C[M,N]) -> C: the dispatch of a row-major matmul.
  const std::vector<int64_t> &a = signature.args[0].shape, &b = signature.args[1].shape;
  if (signature.args.size() != 3 || a.size() != 2 || b.size() != 2 ||
      a[1] != b[0] || signature.args[0].elementType != "f32") {
    WithColor::error() << "expected an f32 matmul dispatch (A[M,K], B[K,N], C)\n";
    return 1;
  }
  int64_t m = a[0], k = a[1], n = b[1];
  double flops = 2.0 * m * n * k;
  std::vector<bench::Buffer> inputs = bench::makeInputs(signature, 7);
  (*tuned)->setInputs(inputs);
  (*base)->setInputs(inputs);
  bench::Buffer c(signature.args[2]);
  openblas_set_num_threads(1);
  auto blas = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                static_cast<float *>(inputs[0].data()), k,
                static_cast<float *>(inputs[1].data()), n, 0.0f,
                static_cast<float *>(c.data()), n);
  };
  blas();
  std::vector<bench::Values> tunedOut = (*tuned)->call(true);
  bench::Values blasOut(c.numElements());
  for (int64_t i = 0; i < c.numElements(); ++i)
    blasOut[i] = c.at(i);
  double error = bench::maxRelativeError(tunedOut, {blasOut});
  if (error > bench::toleranceFor("f32")) {
    WithColor::error() << "tuned result differs from OpenBLAS (max rel error "
                       << error << ")\n";
    return 1;
  }
  std::vector<double> tTuned, tBase, tBlas;
  for (int warm = 0; warm < 3; ++warm) {
    blas();
    (*tuned)->call(false);
    (*base)->call(false);
  }
  for (unsigned r = 0; r < repetitions; ++r) {
    tBlas.push_back(seconds(blas));
    tTuned.push_back(seconds([&] { (*tuned)->call(false); }));
    tBase.push_back(seconds([&] { (*base)->call(false); }));
  }
  double gTuned = flops / bench::quantile(tTuned, 0.5) * 1e-9;
  double gBase = flops / bench::quantile(tBase, 0.5) * 1e-9;
  double gBlas = flops / bench::quantile(tBlas, 0.5) * 1e-9;
  std::printf("matmul %lldx%lldx%lld f32, 1 thread, median of %u interleaved runs\n",
              (long long)m, (long long)n, (long long)k, repetitions.getValue());
  std::printf("  tuned spec       %7.1f GFLOP/s\n", gTuned);
  std::printf("  default config   %7.1f GFLOP/s\n", gBase);
  std::printf("  OpenBLAS sgemm   %7.1f GFLOP/s  (%s kernel)\n", gBlas,
              openblas_get_corename());
  std::printf("  tuned / OpenBLAS %7.2fx   tuned / default %7.2fx\n",
              gTuned / gBlas, gTuned / gBase);
  return 0;
}
