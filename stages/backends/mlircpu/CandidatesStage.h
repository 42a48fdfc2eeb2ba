//===- CandidatesStage.h - The CPU space of a dispatch -> specs -*- C++ -*-===//
//
// The work of the stage tool, callable from a unit: its main
// (stages/tools/mlircpu/CandidatesMain.cpp) only parses the command line
// into CandidatesOptions.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_MLIRCPU_CANDIDATESSTAGE_H
#define RETUNE_STAGES_BACKENDS_MLIRCPU_CANDIDATESSTAGE_H

#include "stages/support/LLVM.h"

#include <cstdint>
#include <string>

namespace retune::mlircpu {

struct CandidatesOptions {
  /// Dispatches/<id>/problem.json
  std::string problemPath{};
  /// Candidates/<id> directory
  std::string outputDir{};
  /// Candidates to emit (the cheapest first)
  unsigned candidateCount = 8;
  /// Threads the generated code may use
  unsigned threads = 1;
  /// Emit no candidates and record this reason
  std::string skipReason{};
  /// After a compiler change: the verify round's select record
  /// (verify/<id>/best.json). A previous winner that still wins is the only
  /// candidate; otherwise the space is searched again.
  std::string verifiedPath{};
  /// Content-addressed cache (default: $RETUNE_CACHE_DIR, else
  /// ~/.cache/retune; 'off' disables it)
  std::string cacheDir{};
  /// A `retune.ranker/1` model (retune-ranker train): candidates in its
  /// order instead of the cost heuristic's, when it saw enough dispatches
  /// like this one (CandidateIndex::order says which order was used).
  std::string rankerModelPath{};
  /// With a ranker model: the heuristic's best `explore` stay in the set
  /// whatever the model says.
  unsigned explore = 0;
};

/// Runs the stage with `options`; `argv0` identifies this tool in the
/// candidates' cache keys.
Error runCandidatesStage(const CandidatesOptions &options, const char *argv0);

} // namespace retune::mlircpu

#endif // RETUNE_STAGES_BACKENDS_MLIRCPU_CANDIDATESSTAGE_H
