//===- Candidates.h - ROCm candidate configurations for a Problem -*- C++ -*-===//
//
// Problem + GpuTarget + options -> ordered candidate configurations, each with
// the IREE attribute text (`#iree_codegen.compilation_info<...>` and, for
// attention, the `decomposition_config` dictionary) that a tuning spec
// annotates onto the root op.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_GPU_CANDIDATES_H
#define RETUNE_GPU_CANDIDATES_H

#include "stages/search/gpu/CompilerChoice.h"
#include "stages/search/gpu/GpuTarget.h"
#include "stages/search/gpu/Intrinsics.h"
#include "stages/search/solver/Model.h"
#include "stages/search/gpu/Options.h"
#include "stages/core/Problem.h"

#include <functional>

namespace retune::gpu {

/// One point of a search space, before the product knobs.
struct GpuConfig {
  Pipeline pipeline = Pipeline::TileAndFuse;
  OpKind kind = OpKind::Contraction;
  const Intrinsic *mma = nullptr;
  /// Per loop of the tiled op (the IGEMM loops for an IGEMM convolution).
  SmallVector<int64_t> workgroup, reduction, subgroup;
  /// VectorDistribute: [[counts], [mapping]].
  SmallVector<int64_t> basisCounts, basisMapping;
  SmallVector<int64_t> promoteOperands;
  /// TileAndFuse padding (empty = no attribute) and the convolution-dims
  /// view of it for IGEMM.
  SmallVector<int64_t> padding, paddingConv;
  std::optional<bool> useIgemm;
  std::array<int64_t, 3> workgroupSize{1, 1, 1};
  int64_t subgroupSize = 64;

  /// The quantities the orderings and the checker look at.
  int64_t sgMCount = 1, sgNCount = 1;
  int64_t tileM = 1, tileN = 1;
  /// Reduction tile as the reference heuristic sees it (TileAndFuse: in
  /// intrinsics).
  int64_t tileK = 1;
  /// Extents the tiles divide (after padding for TileAndFuse).
  int64_t sizeM = 1, sizeN = 1, sizeK = 1;

  /// Attention only.
  const Intrinsic *pvMma = nullptr;
  bool colMajor = false;
  bool reuseQkOutput = false;
  SmallVector<int64_t> qkMapping, pvMapping;
};

/// A GpuConfig with its product knobs and attribute text.
struct Candidate {
  GpuConfig config;
  int64_t prefetchStages = 2;
  std::optional<bool> noReduceBankConflicts;
  /// AMDGPU's `amdgpu-waves-per-eu`; 0 on targets without it (NVIDIA).
  int64_t wavesPerEu = 2;
  bool denormalFlushing = false;
  /// IREE's `convert_acc_gemm` unit attribute, carried over when the
  /// compiler's own config for the op has it.
  bool convertAccGemm = false;
  std::string compilationInfo;
  /// `{pv_attrs = ..., qk_attrs = ...}` for attention; empty otherwise.
  std::string decompositionConfig;
};

/// One constraint system: a Model for one (pipeline, op kind, intrinsic) and
/// how to turn a solution into a GpuConfig.
struct Space {
  std::string label;
  Model model;
  std::function<GpuConfig(ArrayRef<int64_t>)> decode;
};

/// The constraint systems of `pipeline` for `problem` (one per compatible
/// intrinsic or intrinsic pair). Unsupported combinations give no spaces, not
/// an error; malformed problems give an error.
Expected<std::vector<Space>> buildSpaces(const Problem &problem, const GpuTarget &target,
                                         Pipeline pipeline, const GpuSearchOptions &options);

struct SpaceStats {
  std::string label;
  size_t solutions = 0;
  double seconds = 0;
};

struct CandidateSet {
  std::vector<Candidate> candidates;
  std::vector<SpaceStats> stats;
  /// Configurations before the knob product and truncation.
  size_t configurations = 0;
  /// The ordering applied (Auto resolved).
  Ordering ordering = Ordering::Heuristic;
};

/// Every configuration of the selected pipelines, knob product applied,
/// ordered and truncated per `options`. `compiler` is the compiler's own
/// config for the op when known: the NearCompiler ordering's centre (left
/// out of the candidates: it is the baseline).
Expected<CandidateSet> generateCandidates(const Problem &problem, const GpuTarget &target,
                                          const GpuSearchOptions &options,
                                          const CompilerChoice *compiler = nullptr);

/// Every configuration of one pipeline in enumeration order (no knobs).
Expected<std::vector<GpuConfig>> enumerateConfigs(const Problem &problem,
                                                  const GpuTarget &target, Pipeline pipeline,
                                                  const GpuSearchOptions &options,
                                                  std::vector<SpaceStats> *stats = nullptr);

/// The `#iree_codegen.compilation_info<...>` text of a candidate, in the
/// form MLIR prints it (dictionary keys sorted).
std::string emitCompilationInfo(const Candidate &candidate);
std::string emitDecompositionConfig(const Candidate &candidate);

/// Applies the product knobs to `configs` (attention overrides prefetch).
std::vector<Candidate> expandKnobs(ArrayRef<GpuConfig> configs, const GpuSearchOptions &options);

} // namespace retune::gpu

#endif // RETUNE_GPU_CANDIDATES_H
