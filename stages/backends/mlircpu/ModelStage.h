//===- ModelStage.h - The whole model with the winners ------*- C++ -*-===//
//
// The work of the stage tool, callable from a unit: its main
// (stages/tools/mlircpu/ModelMain.cpp) only parses the command line into
// ModelOptions.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_MLIRCPU_MODELSTAGE_H
#define RETUNE_STAGES_BACKENDS_MLIRCPU_MODELSTAGE_H

#include "stages/core/Subprocess.h"
#include "stages/support/LLVM.h"

#include <cstdint>
#include <string>
#include <vector>

namespace retune::mlircpu {

struct ModelOptions {
  /// The selection records (best/<id>.json) whose winners are linked.
  std::vector<std::string> selections;
  /// The model (.mlir)
  std::string modelPath{};
  /// Directory for model builds
  std::string workDir{};
  /// Tuning spec to write
  std::string finalSpec{};
  /// Model result record
  std::string outputPath{};
  /// Only compile the model without a spec (<work-dir>/baseline. json) and fail
  /// if it does not compile; a later run reuses it
  bool baselineOnly{};
  /// Function to time
  std::string entry{};
  /// Threads of the generated code
  unsigned threads = 1;
  /// warmup
  unsigned warmup = 2;
  /// repetitions
  unsigned repetitions = 10;
  /// minSample
  double minSample = 0.002;
  /// compileTimeout
  unsigned compileTimeout = 300;
  /// benchTimeout
  unsigned benchTimeout = 600;
  /// Passed on to retune-compile and retune-bench
  std::string cacheDir{};
  /// Passed to every compile (retune-compile --compiler-flag)
  std::vector<std::string> compilerFlags{};
};

/// Runs the stage with `options`; `argv0` finds the stage tools it runs
/// (retune-link, retune-compile, retune-bench) beside this binary, started
/// through `processes`.
Error runModelStage(const ModelOptions &options, const char *argv0,
                    ProcessRunner &processes = systemProcessRunner());

} // namespace retune::mlircpu

#endif // RETUNE_STAGES_BACKENDS_MLIRCPU_MODELSTAGE_H
