//===- PlanChecks.cpp - What `retune plan` checks beyond the TOML ---------===//
#include "pipeline/PlanChecks.h"

#include "stages/backends/mlircpu/CpuCompiler.h"
#include "stages/support/FileUtil.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

using namespace llvm;

namespace retune::pipeline {
namespace {

Error checkModelFile(const TuneConfig &config) {
  std::string where = config.where("model.path") + "[model] path: ";
  if (!sys::fs::exists(config.modelPath))
    return makeError(where + config.modelPath + ": no such file");
  if (!sys::fs::is_regular_file(config.modelPath))
    return makeError(where + config.modelPath +
                     ": not a regular file; name the model's .mlir file");
  return Error::success();
}

Error checkCacheDir(const TuneConfig &config) {
  const std::string &dir = config.cacheDir;
  if (dir.empty() || dir == "off" || !sys::fs::exists(dir) ||
      sys::fs::is_directory(dir))
    return Error::success();
  return makeError(config.where("cache.dir") + "[cache] dir: " + dir +
                   " exists and is not a directory; name a directory (it "
                   "is created if missing) or \"off\"");
}

/// The entry the whole-model benchmark times must exist, or be implied by
/// a single public function.
Error checkEntry(const TuneConfig &config) {
  Expected<mlir::OwningOpRef<mlir::ModuleOp>> model =
      cpu::parseModuleFile(config.modelPath);
  if (!model)
    return model.takeError();
  std::vector<std::string> publicFunctions;
  for (auto func : (*model)->getOps<mlir::func::FuncOp>())
    if (!func.isPrivate() && !func.isExternal())
      publicFunctions.push_back(func.getName().str());
  std::string list = publicFunctions.empty()
                         ? std::string("none")
                         : "@" + join(publicFunctions, ", @");
  if (!config.entry.empty()) {
    if (is_contained(publicFunctions, config.entry))
      return Error::success();
    return makeError(config.where("model.entry") + "[model] entry '" +
                     config.entry + "' is not a public function of " +
                     config.modelPath + " (public functions: " + list + ")");
  }
  if (publicFunctions.size() == 1)
    return Error::success();
  return makeError(config.where("model.path") + config.modelPath + " has " +
                   std::to_string(publicFunctions.size()) +
                   " public functions (" + list +
                   "); name the one to time with [model] entry");
}

} // namespace

Error checkPlanInputs(const TuneConfig &config) {
  if (Error err = checkModelFile(config))
    return err;
  if (Error err = checkCacheDir(config))
    return err;
  // IREE models are in dialects retune does not load; iree-compile checks
  // them in the dump.
  if (config.backend == "iree")
    return Error::success();
  return checkEntry(config);
}

} // namespace retune::pipeline
