//===- RankerTool.h - What retune-ranker does -------------------*- C++ -*-===//
//
// The work of `retune-ranker train` and `retune-ranker evaluate`; its main
// (stages/tools/RankerMain.cpp) only parses the command line.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SEARCH_RANKER_RANKERTOOL_H
#define RETUNE_SEARCH_RANKER_RANKERTOOL_H

#include "stages/support/LLVM.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace retune::ranker {

struct RankerToolOptions {
  /// Build directories of finished tunes (their measured candidates).
  std::vector<std::string> buildDirs;
  /// train: the model file to write.
  std::string output;
};

/// Trains on every measured candidate of the build directories and writes
/// the model; says on `os` what it learned from.
Error runTrain(const RankerToolOptions &options, llvm::raw_ostream &os);

/// Leave-one-dispatch-out on the build directories' dispatches: prints the
/// search-efficiency table (printTrials).
Error runEvaluate(const RankerToolOptions &options, llvm::raw_ostream &os);

} // namespace retune::ranker

#endif // RETUNE_SEARCH_RANKER_RANKERTOOL_H
