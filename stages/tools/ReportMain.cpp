//===- ReportMain.cpp - retune-report: summary, page and console table ----===//
#include "stages/report/ReportStage.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-report options");
#define RETUNE_STAGE_CATEGORY category
#include "stages/tools/StageDeclare.h"
#include "stages/tools/Report.def"

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-report: write report/summary.json (schema retune.summary/1), "
      "report/index.html and report/history/<started_at>.json, and print the "
      "tuning summary table.\n");
  report::ReportOptions options;
  options.buildDir = buildDir;
  options.outputPath = outputPath;
  options.backend = backend;
  options.margin = margin;
  options.historyKeep = historyKeep;
  return finishTool("retune-report", report::writeReport(options));
}
