//===- ToolOptions.h - Options every retune-iree-* tool shares --*- C++ -*-===//
//
// The planner resolves IREE's tools once (tune.toml, tools_dir, PATH) and
// pins the version it detected, then passes them to each stage tool as
// --iree-compile/--iree-opt/--iree-benchmark-module/--iree-version, with the
// model's compile flags as repeated --compile-flag=<flag> and the user's
// benchmark flags as --bench-flag=<flag>.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_TOOLS_TOOLOPTIONS_H
#define RETUNE_IREE_TOOLS_TOOLOPTIONS_H

#include "stages/backends/iree/IreeTools.h"

#include "llvm/Support/CommandLine.h"

namespace retune::iree::tools {

/// The category of every retune-iree-* option (shared and per tool).
llvm::cl::OptionCategory &category();

/// Parses the command line, shows only our options in --help.
void parseOptions(int argc, char **argv, llvm::StringRef overview);

/// The shared options as parsed from the command line.
IreeToolOptions toolOptionsFromCommandLine();

} // namespace retune::iree::tools

#endif // RETUNE_IREE_TOOLS_TOOLOPTIONS_H
