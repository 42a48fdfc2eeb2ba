//===- CacheKeys.cpp - What identifies a compile and a measurement --------===//
#include "cache/CacheKeys.h"

#include "stages/support/FileUtil.h"
#include "stages/core/Subprocess.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Threading.h"
#include "llvm/TargetParser/Host.h"

namespace retune {

std::string toolIdentity(const char *argv0) {
  Expected<std::string> binary = readFile(currentExecutable(argv0));
  if (!binary) {
    llvm::consumeError(binary.takeError());
    return "unknown";
  }
  return blake3Hex(*binary);
}

FieldHasher hostKey(StringRef stage, const char *argv0) {
  FieldHasher hasher;
  hasher.add("stage", stage)
      .add("tool", toolIdentity(argv0))
      .add("llvm", LLVM_VERSION_STRING)
      .add("cpu", llvm::sys::getHostCPUName())
      .add("threads", llvm::hardware_concurrency().compute_thread_count());
  return hasher;
}

} // namespace retune
