//===- CpuHost.h - What the host CPU offers generated code ------*- C++ -*-===//
#ifndef RETUNE_CPU_CPUHOST_H
#define RETUNE_CPU_CPUHOST_H

#include "stages/support/LLVM.h"

#include "llvm/Support/JSON.h"

#include <array>
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

  // What the cost model (CpuCostModel.h) assumes of a core: the defaults
  // are the Zen 4/5 class it was calibrated on (docs/cpu-search.md).
  double clockHz = 3.5e9;
  double fmaPipes = 2;
  double loadPorts = 2;
  /// Cycles from an FMA to its result: pipes x latency accumulators hide it.
  double fmaLatencyCycles = 4;
  /// Cycles per cache line served from L1, L2, L3, memory (beyond the FMAs).
  std::array<double, 4> lineCycles = {0.0, 1.0, 2.5, 6.0};
  /// Bytes between addresses that share L1 sets (line size x sets): rows
  /// whose stride is a multiple of it compete for the same ways.
  int64_t l1SetPeriodBytes = 4096;

  /// 512-bit FMAs run on two 256-bit pipes (Zen 4: double-pumped).
  bool doublePumpsWideVectors() const {
    return llvm::StringRef(cpuName).starts_with("znver4") && vectorBits > 256;
  }
  /// Vector lanes for an element of `elementBits`.
  int64_t lanes(unsigned elementBits) const {
    return elementBits ? vectorBits / elementBits : 1;
  }
  /// FLOPs one core can do a second on elements of `elementBits`: every
  /// FMA pipe busy with full vectors (a double-pumped pipe takes half a
  /// wide vector a cycle). A model, not a measurement: `clockHz` is assumed.
  double peakFlopsPerCore(unsigned elementBits) const {
    double bitsPerPipeCycle =
        doublePumpsWideVectors() ? vectorBits / 2.0 : double(vectorBits);
    double lanesPerCycle = elementBits ? bitsPerPipeCycle / elementBits : 1;
    return clockHz * fmaPipes * lanesPerCycle * 2;
  }
  /// The problem target string for this host: "cpu:<cpuName>".
  std::string target() const { return "cpu:" + cpuName; }
};

/// Reads the host: CPU name and features from LLVM, cache sizes from sysfs.
CpuHost detectHost();

llvm::json::Value toJson(const CpuHost &host);

} // namespace retune::cpu

#endif // RETUNE_CPU_CPUHOST_H
