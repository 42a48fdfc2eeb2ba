//===- Options.h - Knobs and orderings of the GPU search --------*- C++ -*-===//
//
// A plain struct the planner can fill from the `[gpu]` table of tune.toml:
//
//   [gpu]
//   pipelines = ["vector_distribute", "tile_and_fuse"]
//   prefetch_stages = [2]                  # product knob
//   no_reduce_shared_memory_bank_conflicts = []   # [] = leave unset
//   waves_per_eu = [2]
//   denormal_flushing = [false]            # attention only
//   num_subgroups = -1                     # -1 = any count in 1..10
//   conv_strategy = "both"                 # igemm | direct | both
//   order = "heuristic"                    # heuristic | estimate | shuffle | enumeration
//   seed = 42                              # for order = "shuffle"
//   engine = "lattice"                     # z3-blocking | z3-incremental | lattice-z3 | lattice
//   max_candidates = 2048                  # 0 = all
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_GPU_OPTIONS_H
#define RETUNE_GPU_OPTIONS_H

#include "stages/search/solver/Model.h"

#include <optional>
#include <toml++/toml.h>

namespace retune::gpu {

enum class Pipeline { VectorDistribute, TileAndFuse };
/// Auto: NearCompiler on NVIDIA when the compiler's own config is known
/// (the reference heuristic is AMD's and knows no NVIDIA unit count),
/// Heuristic elsewhere.
enum class Ordering { Auto, Heuristic, Estimate, NearCompiler, Shuffle, Enumeration };
enum class ConvStrategy { Igemm, Direct, Both };

StringRef toString(Pipeline pipeline);
StringRef toString(Ordering ordering);

struct GpuSearchOptions {
  SmallVector<Pipeline> pipelines = {Pipeline::VectorDistribute, Pipeline::TileAndFuse};
  SmallVector<int64_t> prefetchStages = {2};
  /// Empty: the option is left out of the attribute (the reference default).
  SmallVector<bool> noReduceBankConflicts;
  SmallVector<int64_t> wavesPerEu = {2};
  SmallVector<bool> denormalFlushing = {false};
  /// Subgroups per workgroup; -1 allows 1..10 like the reference.
  int64_t numSubgroups = -1;
  ConvStrategy convStrategy = ConvStrategy::Both;
  Ordering ordering = Ordering::Auto;
  uint64_t seed = 42;
  Engine engine = Engine::Lattice;
  /// Candidates kept after ordering; 0 keeps all.
  size_t maxCandidates = 2048;
};

/// Reads a `[gpu]` table. Unknown keys and wrong types are errors that name
/// the file, the line and the key.
Expected<GpuSearchOptions> parseGpuOptions(const toml::table &table, StringRef fileName);
/// Convenience: parses TOML text and reads its `[gpu]` table (defaults when
/// there is none).
Expected<GpuSearchOptions> parseGpuOptionsText(StringRef tomlText, StringRef fileName);

} // namespace retune::gpu

#endif // RETUNE_GPU_OPTIONS_H
