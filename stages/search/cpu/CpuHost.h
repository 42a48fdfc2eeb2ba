//===- CpuHost.h - What the host CPU offers generated code ------*- C++ -*-===//
#ifndef RETUNE_CPU_CPUHOST_H
#define RETUNE_CPU_CPUHOST_H

#include "stages/support/LLVM.h"

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>

namespace retune::cpu {

/// The machine facts the CPU knob space and cost model depend on.
struct CpuHost {
  /// LLVM's name for the host CPU, e.g. "znver4".
  std::string cpuName;
  /// Widest usable vector register: 512 (AVX-512), 256 (AVX2) or 128.
  unsigned vectorBits = 256;
  /// Architectural vector registers (32 with AVX-512, else 16).
  unsigned vectorRegisters = 16;
  int64_t l1Bytes = 32 * 1024;
  int64_t l2Bytes = 512 * 1024;
  int64_t l3Bytes = 8 * 1024 * 1024;
  unsigned cores = 1;

  /// Vector lanes for an element of `elementBits`.
  int64_t lanes(unsigned elementBits) const {
    return elementBits ? vectorBits / elementBits : 1;
  }
  /// The problem target string for this host: "cpu:<cpuName>".
  std::string target() const { return "cpu:" + cpuName; }
};

/// Reads the host: CPU name and features from LLVM, cache sizes from sysfs.
CpuHost detectHost();

llvm::json::Value toJson(const CpuHost &host);

} // namespace retune::cpu

#endif // RETUNE_CPU_CPUHOST_H
