//===- PlanChecks.cpp - What `retune plan` checks beyond the TOML ---------===//
#include "pipeline/PlanChecks.h"

#include "pipeline/Backend.h"
#include "stages/support/FileUtil.h"

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

} // namespace

Error checkPlanInputs(const TuneConfig &config) {
  if (Error err = checkModelFile(config))
    return err;
  if (config.parameters == "external" && !config.modelIsOnnx())
    return makeError(config.where("model.parameters") +
                     "[model] parameters = \"external\" needs an ONNX model "
                     "(the import writes the archive); " +
                     config.modelPath + " is not one");
  if (Error err = checkCacheDir(config))
    return err;
  Expected<std::unique_ptr<Backend>> backend = makeBackend(config.backend);
  if (!backend)
    return backend.takeError();
  return (*backend)->checkModel(config);
}

} // namespace retune::pipeline
