//===- ModelStage.h - Does the spec help the whole model? ------*- C++ -*-===//
//
// The work of the stage tool, callable from a unit: its main
// (stages/tools/iree/IreeModelMain.cpp) only parses the command line into
// ModelOptions.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_IREE_MODELSTAGE_H
#define RETUNE_STAGES_BACKENDS_IREE_MODELSTAGE_H

#include "stages/backends/iree/IreeRun.h"
#include "stages/backends/iree/ModelRun.h"
#include "stages/core/WinnerPruning.h"
#include "stages/support/LLVM.h"

#include <string>
#include <vector>

namespace retune::iree {

struct ModelOptions {
  /// The whole model's builds and timing (the flags stage's too).
  ModelRunOptions run;
  /// spec/linked.mlir: the link step's spec of every selected winner.
  std::string linkedPath{};
  /// The selection records (best/<id>.json) whose winners are tried.
  std::vector<std::string> selections;
  /// Tuning spec to write.
  std::string finalSpec{};
  /// Model result record (retune.model/2) to write.
  std::string outputPath{};
  /// Per dispatch, measure this many of its fastest candidates alone in the
  /// whole model and keep the one the model runs fastest with (0: the
  /// dispatch's winner).
  unsigned inModel = 3;
  /// A spec helps the model only when it runs it in less than
  /// `1 - max(margin, noise)` of the baseline's time ([select] margin).
  double margin = 0.02;
};

/// The trial of one attempt timed against the baseline: its ratio is
/// stats::estimateRatio's of the tuned samples against the baseline's (as
/// every bench record's), and it helps when that ratio is below
/// `1 - max(margin, its noise)`, the rule a dispatch's winner meets: a
/// spec is kept only where the whole model gets faster beyond noise. A
/// failed side, or no tuned sample, is a trial that does not help, with
/// ratio 0 and the failure's message.
Trial modelTrial(const InterleavedOutcome &timed, double margin);

/// Per selection record (`<build>/best/<id>.json`), the dispatch's
/// `inModel` fastest candidates that beat the baseline on the dispatch
/// (ratio < 1), fastest first, read from `<build>/results/<id>/` and
/// `<build>/candidates/<id>/index.json`; dispatches with none are left out.
Expected<std::vector<DispatchOptions>>
readInModelOptions(llvm::ArrayRef<std::string> selections, unsigned inModel);

/// Compiles the whole model without and with specs, benchmarks both
/// alternately on one device, decides which winners the model keeps
/// (chooseInModel, decideWinners) and writes the final spec and the result.
/// IREE's tools start through `processes`.
Error runModelStage(const ModelOptions &options,
                    ProcessRunner &processes = systemProcessRunner());

} // namespace retune::iree

#endif // RETUNE_STAGES_BACKENDS_IREE_MODELSTAGE_H
