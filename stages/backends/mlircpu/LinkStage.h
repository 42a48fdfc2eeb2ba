//===- LinkStage.h - Spec files -> one linked spec, cached ------*- C++ -*-===//
//
// The work of retune-link, callable from a unit: its main
// (stages/tools/mlircpu/LinkMain.cpp) only parses the command line. This
// half links no MLIR: the linked spec is looked up in the content cache by
// the bytes of its inputs, and only a miss runs retune-link-worker
// (SpecLinker.h) as a child, so a warm replay costs no libMLIR load.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_MLIRCPU_LINKSTAGE_H
#define RETUNE_STAGES_BACKENDS_MLIRCPU_LINKSTAGE_H

#include "stages/core/Subprocess.h"
#include "stages/support/LLVM.h"

#include <string>
#include <vector>

namespace retune::mlircpu {

struct LinkOptions {
  /// Specs to link, in matcher order (none: a pass-through spec)
  std::vector<std::string> specPaths{};
  /// Comment at the top of the linked spec
  std::string header{};
  /// Linked spec to write (unchanged bytes keep their mtime)
  std::string outputPath{};
  /// Content-addressed cache (default: $RETUNE_CACHE_DIR, else
  /// ~/.cache/retune; 'off' disables it)
  std::string cacheDir{};
};

/// Links `options.specPaths` into `options.outputPath`; `argv0` finds
/// retune-link-worker beside this binary, started through `processes`. A
/// spec that does not link is an error naming it.
Error runLinkStage(const LinkOptions &options, const char *argv0,
                   ProcessRunner &processes = systemProcessRunner());

} // namespace retune::mlircpu

#endif // RETUNE_STAGES_BACKENDS_MLIRCPU_LINKSTAGE_H
