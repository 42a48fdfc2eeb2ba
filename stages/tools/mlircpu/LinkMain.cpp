//===- LinkMain.cpp - retune-link: winners -> one tuning spec -------------===//
//
// The command line of the link stage (stages/backends/mlircpu/LinkStage.h
// does the work).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/LinkStage.h"
#include "stages/core/Records.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-link options");
#define RETUNE_STAGE_CATEGORY category
#include "stages/tools/StageDeclare.h"
#include "stages/tools/mlircpu/Link.def"

static auto &cacheDir = cacheDirOption(category);

/// The winners' specs in the order given, and a header naming each
/// dispatch's winner (or its default config).
static Error addWinners(mlircpu::LinkOptions &options) {
  std::string described = "Linked by retune-link from the winners of:";
  for (const std::string &path : selections) {
    Expected<SelectRecord> record =
        readRecord<SelectRecord>(path, schema::kSelect, selectRecordFromJson);
    if (!record)
      return record.takeError();
    described += "\n  " + record->dispatch + ": " +
                 (record->winner ? record->spec
                                 : std::string("(no winner: default config)"));
    if (record->winner)
      options.specPaths.push_back(record->spec);
  }
  if (options.header.empty())
    options.header = described;
  return Error::success();
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-link: link the winning spec of every dispatch into one tuning "
      "spec with a single foreach_match (first matcher wins).\n");
  mlircpu::LinkOptions options;
  options.header = header;
  options.outputPath = outputPath;
  options.cacheDir = cacheDir;
  if (Error err = addWinners(options))
    return finishTool("retune-link", std::move(err));
  options.specPaths.insert(options.specPaths.end(), specPaths.begin(),
                           specPaths.end());
  return finishTool("retune-link", mlircpu::runLinkStage(options, argv[0]));
}
