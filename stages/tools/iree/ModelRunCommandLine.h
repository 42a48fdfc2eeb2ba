//===- ModelRunCommandLine.h - The flags of whole-model runs ----*- C++ -*-===//
//
// retune-iree-flags and retune-iree-model build and time the whole model
// (stages/backends/iree/ModelRun.h) and take the same flags for it:
// --model, --work-dir, --device, --entry, --repetitions, --rounds,
// --compile-timeout, --bench-timeout and --cache-dir, besides the options every
// retune-iree-* tool shares (ToolOptions.h). Linking this library registers
// them.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_TOOLS_MODELRUNCOMMANDLINE_H
#define RETUNE_IREE_TOOLS_MODELRUNCOMMANDLINE_H

#include "stages/backends/iree/ModelRun.h"

namespace retune::iree::tools {

/// The whole-model run's options as parsed from the command line, with the
/// shared IREE options (toolOptionsFromCommandLine).
ModelRunOptions modelRunOptionsFromCommandLine();

} // namespace retune::iree::tools

#endif // RETUNE_IREE_TOOLS_MODELRUNCOMMANDLINE_H
