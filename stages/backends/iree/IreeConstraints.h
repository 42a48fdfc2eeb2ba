//===- IreeConstraints.h - IREE's own statement of its GPU space -*- C++ -*-===//
//
// With `--iree-codegen-emit-pipeline-constraints`, IREE 3.13 states per root
// op and GPU pipeline which configs it accepts: an
// `iree_codegen.smt.constraints` op whose `knobs` dictionary is the
// lowering config with `#iree_codegen.smt.int_knob<"name">` and
// `one_of_knob<"name", [...]>` holes, and whose region asserts, in MLIR's SMT
// dialect, what the knobs must satisfy. Here the region becomes a
// solver::Model (knobs are its key variables), every solution is enumerated
// with Z3, and each one is read back as the config it fills in.
//
// The text is read in MLIR's generic form (`iree-opt --mlir-print-op-generic`
// prints it): MLIR's parser with the SMT dialect registered and IREE's
// dialects left unregistered reads it, so no IREE syntax is hand-parsed.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_BACKENDS_IREE_IREECONSTRAINTS_H
#define RETUNE_BACKENDS_IREE_IREECONSTRAINTS_H

#include "stages/search/gpu/Candidates.h"
#include "stages/search/solver/Model.h"
#include "stages/support/LLVM.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace retune::iree {

/// One solution of IREE's constraints: the config it fills in.
struct IreeConstrainedConfig {
  SmallVector<int64_t> workgroup, reduction, subgroup, workgroupSize;
  /// VectorDistribute's `subgroup_basis` counts (its first list).
  SmallVector<int64_t> subgroupBasis;
  int64_t subgroupSize = 0;
  int64_t prefetchStages = 0;
  /// The intrinsic's name, e.g. `MFMA_F32_16x16x16_F16`.
  std::string mma;
  std::optional<bool> useIgemm;
};

/// One `iree_codegen.smt.constraints` op: a pipeline's space for the op.
struct IreeConstraintSpace {
  /// "TileAndFuse" or "VectorDistribute".
  std::string pipeline;
  std::vector<IreeConstrainedConfig> configs;
  /// The solver stopped at the limit; more configs exist.
  bool truncated = false;
};

/// Where one field of the config comes from: a fixed value or a knob.
struct IreeKnobSlot {
  /// "workgroup", "reduction", "subgroup", "subgroup_basis", "workgroup_size",
  /// "subgroup_size", "prefetch_num_stages", "mma_kind" or
  /// "use_igemm_convolution".
  std::string field;
  /// The position in a list field; -1 for a scalar.
  int index = -1;
  /// The knob that fills it; empty when fixed.
  std::string knob;
  int64_t fixed = 0;
  /// A one_of field's options in order (intrinsic names; "false"/"true").
  std::vector<std::string> options;
};

/// One constraints op, translated: its region as a model whose key
/// variables are the knobs, and the template the knobs fill.
struct IreeConstraintSystem {
  std::string pipeline;
  solver::Model model;
  std::vector<std::string> knobs;
  std::vector<solver::Expr> knobExprs;
  std::vector<IreeKnobSlot> slots;
};

/// The compiler's own config, as a constraints template spells one.
IreeConstrainedConfig constrainedConfigOf(const gpu::CompilerChoice &choice);

/// A candidate of Retune's GPU search, likewise.
IreeConstrainedConfig constrainedConfigOf(const gpu::Candidate &candidate);

/// Every constraints op in `genericText` (an executable-configurations
/// output in generic form), translated, not solved. An op the translation
/// does not know is an error naming it and the constraints' line.
Expected<std::vector<IreeConstraintSystem>> readIreeConstraints(StringRef genericText,
                                                                StringRef fileName);

/// The config a knob assignment fills in.
IreeConstrainedConfig fillKnobs(const IreeConstraintSystem &system,
                                const llvm::StringMap<int64_t> &values);

/// The knob values that spell `config` in this system's template; nullopt
/// when the template cannot spell it (another intrinsic, say).
std::optional<llvm::StringMap<int64_t>> knobValuesOf(const IreeConstraintSystem &system,
                                                     const IreeConstrainedConfig &config);

/// Whether IREE's constraints accept these knob values.
Expected<bool> admits(const IreeConstraintSystem &system,
                      const llvm::StringMap<int64_t> &values);

/// Every solution of one system (at most `limit`; 0 = all).
Expected<IreeConstraintSpace> solveSystem(const IreeConstraintSystem &system, size_t limit);

} // namespace retune::iree

#endif // RETUNE_BACKENDS_IREE_IREECONSTRAINTS_H
