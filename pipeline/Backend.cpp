//===- Backend.cpp - The backend registry ---------------------------------===//
#include "pipeline/Backend.h"

#include "stages/support/FileUtil.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace retune::pipeline {

Backend::~Backend() = default;

Error Backend::readTable(StringRef, TableReader &, TuneConfig &) const {
  return Error::success();
}

namespace {

struct Registration {
  std::string name;
  BackendFactory factory;
};

/// Built-ins first; tests may add more.
std::vector<Registration> &registry() {
  static std::vector<Registration> backends = {{"mlir-cpu", makeMlirCpuBackend},
                                               {"iree", makeIreeBackend}};
  return backends;
}

} // namespace

void registerBackend(StringRef name, BackendFactory factory) {
  for (Registration &r : registry())
    if (r.name == name) {
      r.factory = std::move(factory);
      return;
    }
  registry().push_back({name.str(), std::move(factory)});
}

std::vector<std::string> backendNames() {
  std::vector<std::string> names;
  for (const Registration &r : registry())
    names.push_back(r.name);
  return names;
}

Expected<std::unique_ptr<Backend>> makeBackend(StringRef name) {
  for (const Registration &r : registry())
    if (r.name == name)
      return r.factory();
  return makeError("unknown backend '" + name +
                   "' (known: " + join(backendNames(), ", ") + ")");
}

} // namespace retune::pipeline
