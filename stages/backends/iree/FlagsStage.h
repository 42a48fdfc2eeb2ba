//===- FlagsStage.h - The model's compile flags -----------------*- C++ -*-===//
//
// The work of the stage tool, callable from a unit: its main
// (stages/tools/iree/IreeFlagsMain.cpp) only parses the command line into
// FlagsOptions.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_IREE_FLAGSSTAGE_H
#define RETUNE_STAGES_BACKENDS_IREE_FLAGSSTAGE_H

#include "stages/backends/iree/ModelRun.h"
#include "stages/support/LLVM.h"

#include <string>

namespace retune::iree {

struct FlagsOptions {
  /// The whole model's builds and timing (the model stage's too).
  ModelRunOptions run;
  /// flags/sets.json: the flag sets to try.
  std::string setsPath{};
  /// flags/chosen.json to write.
  std::string outputPath{};
  /// compile_flags.txt to write: the compile flags and the chosen set.
  std::string flagsFile{};
  /// A set must beat the default by this fraction of its time.
  double margin = 0.02;
  /// Whether the model's strided ConvTransposes and Gemms that share their
  /// weights are rewritten first
  /// (ModelRewrite.h) and the sets built from the rewrite.
  bool rewriteModel = true;
};

/// Compiles the whole model with the default flags and with each set of
/// `setsPath` added, checks each build's results against the default's,
/// times those that pass in turn with the default, all in the same rounds
/// (ModelRunner::timeAllAgainst), and writes the choice
/// (ModelFlags.h). A set that fails to compile or computes other results is
/// a recorded outcome, never an error. IREE's tools start through
/// `processes`.
Error runFlagsStage(const FlagsOptions &options,
                    ProcessRunner &processes = systemProcessRunner());

} // namespace retune::iree

#endif // RETUNE_STAGES_BACKENDS_IREE_FLAGSSTAGE_H
