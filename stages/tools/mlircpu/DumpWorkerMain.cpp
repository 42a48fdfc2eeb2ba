//===- DumpWorkerMain.cpp - retune-dump-worker: the MLIR of the dump ------===//
//
// Run by retune-dump on a cache miss; not a tool to call by hand. Parses
// the model and forms its dispatches (DispatchFormation.h).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/CpuCompiler.h"
#include "stages/backends/mlircpu/DispatchFormation.h"
#include "stages/backends/mlircpu/TensorSizes.h"
#include "stages/search/cpu/CpuHost.h"
#include "stages/support/FileUtil.h"
#include "stages/support/HashedFile.h"
#include "stages/support/Hash.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-dump-worker options");
static cl::opt<std::string>
    modelPath("model", cl::Required,
              cl::desc("linalg-on-tensors model (.mlir)"), cl::cat(category));
static cl::opt<std::string>
    outputDir("output-dir",
              cl::desc("directory for index.json and <id>/dispatch.mlir"),
              cl::cat(category));
static cl::opt<bool> parseOnly(
    "parse-only",
    cl::desc("only check that the model parses and that its tensors fit "
             "this machine (the planner's check)"),
    cl::cat(category));

static Error run() {
  if (!sys::fs::exists(modelPath))
    return makeError(modelPath + ": no such file; check [model] path in "
                                 "tune.toml");
  Expected<mlir::OwningOpRef<mlir::ModuleOp>> model =
      cpu::parseModuleFile(modelPath);
  if (!model)
    return model.takeError();
  if (Error err = cpu::checkTensorSizes(**model, modelPath,
                                        cpu::physicalMemoryBytes()))
    return err;
  if (parseOnly)
    return Error::success();
  if (outputDir.empty())
    return makeError("--output-dir is required");
  Expected<dump::FormedDispatches> formed =
      dump::formDispatches(**model, modelPath, cpu::detectHost().target());
  if (!formed)
    return formed.takeError();
  // Dispatch files first: the index is what later stages depend on.
  // Per dispatch: its IR and its problem, so that each later step depends
  // only on the dispatch it works on.
  for (DispatchEntry &entry : formed->index.dispatches) {
    std::string dir = outputDir + "/" + entry.id;
    // The planner checks the file against this: a damaged one is redone.
    entry.irHash = blake3Hex(formed->modules.at(entry.id));
    if (Error err = writeHashedFile(dir + "/dispatch.mlir",
                                       formed->modules.at(entry.id)))
      return err;
    if (Error err = writeHashedJsonFile(
            dir + "/problem.json",
            toJson(DispatchIndex{modelPath, entry.flops, {entry}})))
      return err;
  }
  return writeHashedJsonFile(outputDir + "/index.json", toJson(formed->index));
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-dump-worker: the dump of retune-dump, run by it on a cache "
      "miss.\n");
  return finishTool("retune-dump-worker", run());
}
