//===- GpuEnumBench.cpp - Time the enumeration of ROCm search spaces ------===//
//
// gpu-enum-bench [--engine=E] [--target=gfx942] [--pipeline=vd|tf|both]
//                [--repeat=N] CASE...
// CASE: mm:MxNxK | conv:NxOHxOWxOCxFHxFWxIC | attn:BxMxNxK1xK2
// Prints one line per case and pipeline: solutions and the best of N times.
//
//===----------------------------------------------------------------------===//
#include "stages/search/gpu/Candidates.h"
#include "stages/search/gpu/Problems.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace retune;
using namespace retune::gpu;

static std::optional<Problem> parseCase(StringRef text, StringRef target) {
  auto [kind, dimsText] = text.split(':');
  SmallVector<StringRef> parts;
  dimsText.split(parts, 'x');
  SmallVector<int64_t> d;
  for (StringRef part : parts) {
    int64_t v = 0;
    if (part.getAsInteger(10, v))
      return std::nullopt;
    d.push_back(v);
  }
  if (kind == "mm" && d.size() == 3)
    return makeMatmul(d[0], d[1], d[2], "f16", "f32", target);
  if (kind == "conv" && d.size() == 7)
    return makeConvNhwcHwcf(d[0], d[1], d[2], d[3], d[4], d[5], d[6], "f16", "f32", target);
  if (kind == "attn" && d.size() == 5)
    return makeAttention(d[0], d[1], d[2], d[3], d[4], "f16", target);
  return std::nullopt;
}

int main(int argc, char **argv) {
  GpuSearchOptions options;
  std::string targetName = "gfx942";
  SmallVector<Pipeline> pipelines = {Pipeline::VectorDistribute, Pipeline::TileAndFuse};
  int repeat = 3;
  SmallVector<std::string> cases;
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg == "--help") {
      llvm::outs() << "usage: gpu-enum-bench [--engine=z3-blocking|z3-incremental|lattice-z3|"
                      "lattice] [--target=ARCH] [--pipeline=vd|tf|both] [--repeat=N] CASE...\n"
                      "CASE: mm:MxNxK | conv:NxOHxOWxOCxFHxFWxIC | attn:BxMxNxK1xK2 (f16)\n";
      return 0;
    }
    if (arg.consume_front("--engine=")) {
      std::optional<Engine> engine = parseEngine(arg);
      if (!engine) {
        llvm::errs() << "error: unknown engine '" << arg << "'\n";
        return 2;
      }
      options.engine = *engine;
    } else if (arg.consume_front("--target=")) {
      targetName = arg.str();
    } else if (arg.consume_front("--pipeline=")) {
      if (arg == "vd")
        pipelines = {Pipeline::VectorDistribute};
      else if (arg == "tf")
        pipelines = {Pipeline::TileAndFuse};
    } else if (arg.consume_front("--repeat=")) {
      if (arg.getAsInteger(10, repeat) || repeat < 1) {
        llvm::errs() << "error: bad --repeat\n";
        return 2;
      }
    } else {
      cases.push_back(arg.str());
    }
  }
  Expected<GpuTarget> target = loadKnownTarget(targetName);
  if (!target) {
    llvm::errs() << "error: " << toString(target.takeError()) << "\n";
    return 1;
  }
  for (const std::string &c : cases) {
    std::optional<Problem> problem = parseCase(c, targetName);
    if (!problem) {
      llvm::errs() << "error: bad case '" << c << "'\n";
      return 2;
    }
    for (Pipeline pipeline : pipelines) {
      double best = 1e30;
      size_t count = 0;
      for (int r = 0; r < repeat; ++r) {
        auto start = std::chrono::steady_clock::now();
        auto configs = enumerateConfigs(*problem, *target, pipeline, options);
        double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!configs) {
          llvm::errs() << "error: " << toString(configs.takeError()) << "\n";
          return 1;
        }
        count = configs->size();
        best = std::min(best, seconds);
      }
      llvm::outs() << llvm::format("%-32s %-17s %-15s %8zu solutions %10.2f ms\n", c.c_str(),
                                   toString(pipeline).str().c_str(),
                                   toString(options.engine).str().c_str(), count, best * 1e3);
    }
  }
  return 0;
}
