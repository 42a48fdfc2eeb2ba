//===- CompileWorker.h - The compile itself, in its own process -*- C++ -*-===//
//
// The MLIR half of the compile stage. retune-compile (CompileStage.h) keeps
// the cache protocol and links no MLIR, so a cache hit costs no libMLIR load;
// on a miss it runs retune-compile-worker, which calls this, as a child under
// time and memory limits.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_MLIRCPU_COMPILEWORKER_H
#define RETUNE_STAGES_BACKENDS_MLIRCPU_COMPILEWORKER_H

#include "stages/support/LLVM.h"

#include <string>
#include <vector>

namespace retune::mlircpu {

/// The worker's exit status for compiler flags it does not know: a broken
/// invocation, not a failed candidate.
constexpr int kUnknownCompilerFlagExit = 64;

struct CompileWorkerOptions {
  std::string payloadPath{};
  /// Empty: the baseline
  std::string specPath{};
  std::string outputPath{};
  std::string recordPath{};
  unsigned threads = 1;
  /// The cache key the record carries
  std::string key{};
  /// A fault to inject (tests): crash, hang or wrong numbers
  std::string injectFault{};
};

/// Every flag must name an option registered in this process (the worker's
/// --retune-* codegen options and LLVM's): the message names the first that
/// does not and where to fix it.
Error checkCompilerFlags(ArrayRef<std::string> flags);

/// Compiles the payload with the spec into a shared object and writes an ok
/// compile record; an Error is a failed compile (the parent records it).
Error runCompileWorker(const CompileWorkerOptions &options);

} // namespace retune::mlircpu

#endif // RETUNE_STAGES_BACKENDS_MLIRCPU_COMPILEWORKER_H
