//===- CandidatesStage.h - One dispatch's space -> IREE specs -*- C++ -*-===//
//
// The work of the stage tool, callable from a unit: its main
// (stages/tools/iree/IreeCandidatesMain.cpp) only parses the command line
// into CandidatesOptions.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_IREE_CANDIDATESSTAGE_H
#define RETUNE_STAGES_BACKENDS_IREE_CANDIDATESSTAGE_H

#include "stages/backends/iree/IreeTools.h"
#include "stages/support/LLVM.h"

#include <cstdint>
#include <string>

namespace retune::iree {

struct CandidatesOptions {
  /// IREE's tools, release and flags.
  IreeToolOptions iree;
  /// Dispatches/<id>/problem.json
  std::string problemPath{};
  /// Dispatches/<id>/dispatch.mlir
  std::string dispatchPath{};
  /// TOML with a [gpu] table
  std::string gpuOptionsPath{};
  /// Candidates/<id> directory
  std::string outputDir{};
  /// Candidates to emit, best  ordered first
  unsigned candidateCount = 8;
  /// Emit no candidates and record  this reason
  std::string skipReason{};
  /// After a compiler change: the verify round's select record
  /// (verify/<id>/best.json). A previous winner that still wins is the only
  /// candidate; otherwise the space is searched again.
  std::string verifiedPath{};
};

/// Writes the candidates of one dispatch (index.json, <n>.spec.mlir,
/// baseline.spec.mlir), every spec verified; IREE's tools (its own config
/// and constraints) start through `runner`.
Error runCandidatesStage(const CandidatesOptions &options,
                         ProcessRunner &runner = systemProcessRunner());

} // namespace retune::iree

#endif // RETUNE_STAGES_BACKENDS_IREE_CANDIDATESSTAGE_H
