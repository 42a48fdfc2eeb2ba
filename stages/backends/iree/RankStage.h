//===- RankStage.h - Measurements -> results against baselines -*- C++ -*-===//
//
// The work of the stage tool, callable from a unit: its main
// (stages/tools/iree/IreeRankMain.cpp) only parses the command line into
// RankOptions.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_IREE_RANKSTAGE_H
#define RETUNE_STAGES_BACKENDS_IREE_RANKSTAGE_H

#include "stages/core/Records.h"
#include "stages/support/LLVM.h"

#include <string>
#include <vector>

namespace retune::iree {

struct RankOptions {
  /// candidates/<id>/index.json: the candidates to rank.
  std::string candidatesPath{};
  /// measure/<id>: `<n>.json` per candidate, and per device k
  /// `baseline.before.<k>.json` and `baseline.after.<k>.json`.
  std::string measureDir{};
  /// results/<id>: `<n>.json` per candidate is written here.
  std::string outputDir{};
  /// Device URIs in pool order: candidate n ran on device n mod their count.
  std::vector<std::string> devices;
};

/// One device's baseline samples, measured before and after the
/// candidates; a side is empty when its measurement failed.
struct DeviceBaseline {
  std::vector<double> before, after;
  bool complete() const { return !before.empty() && !after.empty(); }
};

/// The results record of candidate `index` (measured on device
/// `index % devices`, whose baseline is `baselines[that]`): its ratio and
/// noise against that device's baseline before and after it
/// (makeBenchRecord). A device whose baseline is incomplete falls back to
/// every device's baseline samples, and says so; with none at all an Ok
/// measurement becomes a bench error. The message ends with the device.
BenchRecord rankCandidate(const BenchRecord &measured, size_t index,
                          llvm::ArrayRef<DeviceBaseline> baselines,
                          const RankOptions &options);

/// Reads the candidates' measurements and the devices' baselines from
/// `measureDir` and writes each candidate's results record to `outputDir`.
Error runRankStage(const RankOptions &options);

} // namespace retune::iree

#endif // RETUNE_STAGES_BACKENDS_IREE_RANKSTAGE_H
