//===- BenchWorker.h - The measurement itself, in its own process -*- C++ -*-===//
//
// The measuring half of the bench stage. retune-bench (BenchStage.h) keeps
// the cache protocol and the device lock; on a miss it runs
// retune-bench-worker, which calls this, as a child under a timeout, so a
// kernel that crashes or hangs becomes a record, not a failed build. The
// same pattern as the compile, dump and link stages and their workers.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_MLIRCPU_BENCHWORKER_H
#define RETUNE_STAGES_BACKENDS_MLIRCPU_BENCHWORKER_H

#include "stages/support/LLVM.h"

#include <string>

namespace retune::mlircpu {

struct BenchWorkerOptions {
  std::string baselinePath{};
  std::string candidatePath{};
  /// The bench record to write
  std::string outputPath{};
  /// Empty: the only function
  std::string functionName{};
  unsigned warmup = 2;
  unsigned repetitions = 10;
  double minSample = 0.002;
  unsigned seed = 1;
  /// The cache key the record carries
  std::string key{};
};

/// Loads both kernels, checks the candidate's results against the
/// baseline's and times both interleaved; writes the bench record. An Error
/// is a failed measurement (the parent records it).
Error runBenchWorker(const BenchWorkerOptions &options);

} // namespace retune::mlircpu

#endif // RETUNE_STAGES_BACKENDS_MLIRCPU_BENCHWORKER_H
