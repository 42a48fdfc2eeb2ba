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

#include "stages/backends/iree/IreeReader.h"
#include "stages/backends/iree/IreeTools.h"
#include "stages/core/Records.h"

#include "llvm/Support/CommandLine.h"

#include <string>
#include <vector>

namespace retune::iree::tools {

/// The category of every retune-iree-* option (shared and per tool).
llvm::cl::OptionCategory &category();

/// Parses the command line, shows only our options in --help.
void parseOptions(int argc, char **argv, llvm::StringRef overview);

/// The shared options as parsed from the command line.
IreeToolOptions toolOptionsFromCommandLine();

/// The tools named on the command line (or found on PATH), with the version
/// from --iree-version or, without it, from `iree-compile --version`.
Expected<IreeTools> toolsFromOptions(llvm::StringRef logDir);

/// Spellings for --iree-version (no tool is run).
Expected<IreeSyntax> syntaxFromOptions();

std::vector<std::string> compileFlags();
std::vector<std::string> benchFlags();

/// How a spec is passed to iree-compile (IreeReader.h).
using iree::targetFamily;

/// The spec linked when nothing is tuned: a valid tuning spec whose single
/// foreach_match has no matchers.
std::string emptyTuningSpec();

/// Reads a record and its schema, or an error naming the file.
Expected<BenchRecord> readBenchRecord(llvm::StringRef path);
Expected<CompileRecord> readCompileRecord(llvm::StringRef path);


} // namespace retune::iree::tools

#endif // RETUNE_IREE_TOOLS_TOOLOPTIONS_H
