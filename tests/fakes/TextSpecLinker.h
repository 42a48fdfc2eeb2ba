//===- TextSpecLinker.h - IREE's spec linking, for the fake iree-opt -*- C++ -*-===//
//
// Retune links specs with IREE's own linker (stages/backends/iree/
// IreeLinker.h runs `iree-opt --iree-codegen-link-tuning-specs`). The fake
// iree-opt of the tests (tests/fakes/iree-opt) answers that flag with this:
// what IREE's LinkTuningSpecsPass does to a container of specs, as text.
// e2e_iree_real checks it against the real pass on real winners.
//
//  * merge mode, when every spec has `tuning_spec_with_default_entrypoint`
//    and there are at least two: every named sequence except
//    `@__kernel_config` is hoisted into one module in input order; a name
//    already taken is renamed `<name>_<k>` with the first free k (0, 1, ...)
//    and the spec's references follow; one `@__kernel_config` holds a single
//    `foreach_match` whose matcher/action pairs are the inputs' pairs in
//    order; its argument is consumed when any input's was, else readonly;
//  * include mode otherwise (or when merging is impossible: a clash of
//    non-sequence symbols, foreach_match shapes that differ): each spec stays
//    a named nested module and a top-level `@__kernel_config` chains
//    `transform.include ... failures(suppress)` over their entry points, which
//    must agree on consumed/readonly.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_TESTS_FAKES_TEXTSPECLINKER_H
#define RETUNE_TESTS_FAKES_TEXTSPECLINKER_H

#include "stages/support/LLVM.h"

#include <string>
#include <vector>

namespace retune::iree::fakes {

struct SpecInput {
  /// Where the spec came from (error messages; include-mode module name when
  /// the spec module has none).
  std::string name;
  std::string text;
};

enum class LinkMode { Single, Merge, Include };

struct LinkResult {
  std::string text;
  LinkMode mode = LinkMode::Merge;
  /// Why merging fell back to include mode, or renamings that happened.
  std::vector<std::string> notes;
};

/// Links `specs` (in precedence order: the first matcher that matches wins).
/// One spec is returned unchanged (mode Single). The result is verified with
/// verifyTuningSpec.
Expected<LinkResult> linkTuningSpecs(ArrayRef<SpecInput> specs);

/// Reads the spec files and links them (in precedence order).
Expected<LinkResult> linkTuningSpecFiles(ArrayRef<std::string> paths);

} // namespace retune::iree::fakes

#endif // RETUNE_TESTS_FAKES_TEXTSPECLINKER_H
