//===- FaultInjection.cpp - Failures on purpose, for tests ----------------===//
#include "stages/support/FaultInjection.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdlib>

using namespace llvm;

namespace retune {

std::string injectedFault(StringRef path) {
  const char *env = std::getenv("RETUNE_INJECT_FAULT");
  if (!env || path.empty())
    return {};
  SmallVector<StringRef> items;
  StringRef(env).split(items, ',', -1, false);
  for (StringRef item : items) {
    auto [kind, needle] = item.split(':');
    if (!needle.empty() && path.contains(needle))
      return kind.str();
  }
  return {};
}

} // namespace retune
