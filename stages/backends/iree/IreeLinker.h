//===- IreeLinker.h - Link tuning specs with IREE's own linker --*- C++ -*-===//
//
// Several winners become one tuning spec the way IREE links them: the specs
// are nested in one container module and `iree-opt
// --iree-codegen-link-tuning-specs` (IREE's LinkTuningSpecsPass) merges them
// (every spec with a default entry point: one @__kernel_config whose
// foreach_match holds every matcher/action pair in input order, clashing
// names renamed) or includes them. Precedence is input order: the first
// matcher that matches wins. iree-opt parses the specs, so IREE's own rules
// verify them on the way; the result is verified again as every spec Retune
// writes is (IreeSpec.h).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_IREELINKER_H
#define RETUNE_IREE_IREELINKER_H

#include "stages/backends/iree/IreeTools.h"
#include "stages/support/LLVM.h"

#include <string>
#include <vector>

namespace retune::iree {

/// The module that holds `specs` (texts of spec files, each one module with
/// comments around it at most) as nested modules, in order: the input of
/// IREE's linker. An input with anything else at its top level is an error
/// naming `names[i]`.
Expected<std::string> specContainer(ArrayRef<std::string> names,
                                    ArrayRef<std::string> specs);

/// Links the spec files at `paths` (in precedence order) with IREE's
/// linker, its input, output and log in `workDir` under `stem`. One spec is
/// read and returned unchanged, with no process.
Expected<std::string> linkTuningSpecFiles(const IreeTools &tools,
                                          ArrayRef<std::string> paths,
                                          StringRef workDir, StringRef stem);

} // namespace retune::iree

#endif // RETUNE_IREE_IREELINKER_H
