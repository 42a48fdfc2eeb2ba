//===- IreeDispatch.h - What a dumped dispatch benchmark holds --*- C++ -*-===//
//
// The executable target and the dispatch a dump file holds, as both readers
// give them (IREE's library, IreeReader.h; the text reader,
// IreeTextReader.h).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_IREEDISPATCH_H
#define RETUNE_IREE_IREEDISPATCH_H

#include "stages/core/Problem.h"
#include "stages/search/cpu/CpuHost.h"
#include "stages/support/LLVM.h"

#include <string>

namespace retune::iree {

/// A `#hal.executable.target<"backend", "format", {config}>`.
struct IreeTarget {
  std::string backend;
  std::string format;
  /// GPU: "gfx942"; CPU: the `cpu` config entry ("znver4", "host", ...).
  std::string arch;
  /// GPU SKU from the chip info ("mi300x"), when the target names one.
  std::string sku;
  /// The whole `#iree_gpu.target<...>` text (stages/search/gpu parses it).
  std::string gpuTargetInfo;
  std::string cpuFeatures;
  std::string triple;
  /// The full target attribute text.
  std::string text;

  bool isGpu() const { return !gpuTargetInfo.empty() || backend == "rocm" ||
                              backend == "cuda" || backend == "vulkan-spirv"; }
  /// `Problem::target`: the GPU arch, or "cpu:<cpu>".
  std::string problemTarget() const {
    if (isGpu())
      return arch.empty() ? backend : arch;
    if (!arch.empty())
      return "cpu:" + arch;
    llvm::StringRef fmt(format);
    return "cpu:" +
           (fmt.contains('-') ? fmt.rsplit('-').second.str() : format);
  }
  /// What the CPU knob space and the peak FLOP rate need to know of an
  /// llvm-cpu target: its vector width from its features; its caches this
  /// machine's where the target's CPU is this machine's (LLVM's host name,
  /// as `--iree-llvmcpu-target-cpu=host` writes it), CpuHost's defaults
  /// for another CPU; the rest CpuHost's defaults.
  cpu::CpuHost cpuHost() const;
  /// How a spec reaches the compiler (targetFamily): "cpu", "cuda" or "gpu".
  std::string family() const {
    if (!isGpu())
      return "cpu";
    return backend == "cuda" ? "cuda" : "gpu";
  }
};

/// One dumped dispatch benchmark.
struct IreeDispatch {
  std::string executable;
  std::string variant;
  std::string exportName;
  /// The function holding the root op (`match_<func>` in specs).
  std::string funcName;
  /// The `util.func` iree-benchmark-module runs (`BM_<it>`), when present.
  std::string benchmarkFunction;
  IreeTarget target;
  Problem problem;
  /// The root op's text as it appears in the file.
  std::string rootOpText;
};

} // namespace retune::iree

#endif // RETUNE_IREE_IREEDISPATCH_H
