//===- ReportMain.cpp - retune-report: summary, page and console table ----===//
#include "stages/report/ReportStage.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-report options");
static cl::opt<std::string> buildDir("build-dir", cl::init("."),
                                     cl::desc("the tuning build directory"),
                                     cl::cat(category));
static cl::opt<std::string> outputPath("output",
                                       cl::init("report/summary.json"),
                                       cl::desc("summary to write"),
                                       cl::cat(category));
static cl::opt<std::string> backend("backend", cl::init("mlir-cpu"),
                                    cl::desc("the backend the run used"),
                                    cl::cat(category));
static cl::opt<double>
    margin("margin", cl::init(-1),
           cl::desc("the selection margin; default: the `margin` variable of "
                    "build.ninja, else 0.02"),
           cl::cat(category));
static cl::opt<unsigned>
    historyKeep("history-keep", cl::init(20),
                cl::desc("summaries of earlier runs to keep in "
                         "report/history/ (0: keep none)"),
                cl::cat(category));

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
