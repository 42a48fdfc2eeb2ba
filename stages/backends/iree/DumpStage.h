//===- DumpStage.h - A model's dispatches, problems and shares -*- C++ -*-===//
//
// The work of the stage tool, callable from a unit: its main
// (stages/tools/iree/IreeDumpMain.cpp) only parses the command line into
// DumpOptions.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_IREE_DUMPSTAGE_H
#define RETUNE_STAGES_BACKENDS_IREE_DUMPSTAGE_H

#include "stages/backends/iree/IreeTools.h"
#include "stages/support/LLVM.h"

#include <cstdint>
#include <string>

namespace retune::iree {

struct DumpOptions {
  /// IREE's tools, release and flags.
  IreeToolOptions iree;
  /// The model iree-compile reads
  std::string modelPath{};
  /// Dispatches directory
  std::string outputDir{};
  /// Scratch directory (benchmarks,  logs)
  std::string workDir{};
  /// Weigh dispatches by this  profile's times
  std::string profilePath{};
  /// Seconds the dump may take
  unsigned timeoutSeconds = 1800;
  /// Profile the model on this device: shares are each dispatch's time in
  /// the model (where the profile fails, each dispatch timed alone with
  /// IREE's default config, time x calls; empty: FLOPs x calls)
  std::string timeDevice{};
  /// The model's function the profile runs (empty: its only public one)
  std::string entry{};
  /// Benchmark repetitions of each  dispatch's timing
  unsigned repetitions = 3;
  /// The flag search's choice (flags/chosen.json), read when the dump runs:
  /// its flags follow the compile flags, and the model it names (the
  /// search's rewrite) replaces modelPath. Read here rather than planned
  /// into the command, so that a plan made before the search ran again
  /// never dumps with the choice it replaced.
  std::string flagChoicePath{};
};

/// Dumps the model's dispatches into options.outputDir (index.json,
/// <id>/problem.json, <id>/dispatch.mlir; unchanged files keep their mtime).
/// IREE's tools start through `processes`.
Error runDumpStage(const DumpOptions &options,
                   ProcessRunner &processes = systemProcessRunner());

} // namespace retune::iree

#endif // RETUNE_STAGES_BACKENDS_IREE_DUMPSTAGE_H
