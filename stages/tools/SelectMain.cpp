//===- SelectMain.cpp - retune-select: results -> a dispatch's winner -----===//
#include "stages/core/Selection.h"
#include "stages/core/Defaults.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Text.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-select options");
#define RETUNE_STAGE_CATEGORY category
#include "stages/tools/StageDeclare.h"
#include "stages/tools/Select.def"

static Error run() {
  Expected<CandidateIndex> index = readRecord<CandidateIndex>(
      candidatesPath, schema::kCandidates, candidateIndexFromJson);
  if (!index)
    return index.takeError();
  std::vector<select::Measured> measured;
  for (const CandidateEntry &candidate : index->candidates) {
    std::string path = formatv("{0}/{1}.json", resultsDir, candidate.index);
    Expected<BenchRecord> record =
        readRecord<BenchRecord>(path, schema::kBench, benchRecordFromJson);
    if (!record)
      return record.takeError();
    // A measured candidate's numbers are in range; a ratio of 0 (or
    // 1e-320) would win every time.
    if (record->status == Status::Ok)
      if (Error err = checkMeasuredComparison(*record))
        return damagedRecord(path, toString(std::move(err)));
    measured.push_back({candidate.index, std::move(*record)});
  }
  select::Selection selection = select::selectWinner(measured, margin);
  if (index->candidates.empty() && !index->note.empty())
    selection.reason = "no candidates: " + index->note;
  std::string spec;
  if (selection.winner)
    spec = (sys::path::parent_path(candidatesPath) + "/" +
            index->candidates[*selection.winner].file)
               .str();
  return writeJsonFile(outputPath,
                       toJson(select::toRecord(selection, index->dispatch, spec)));
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-select: pick the candidate of a dispatch that beats the "
      "baseline by more than max(--margin, measured noise), if any.\n");
  return finishTool("retune-select", run());
}
