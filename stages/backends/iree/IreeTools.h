//===- IreeTools.h - Locating IREE's tools and their version ----*- C++ -*-===//
//
// Which `iree-compile`, `iree-opt` and `iree-benchmark-module` to run, which
// IREE release they are, and how that release spells what we generate:
// flag names, the `root_op` attribute, the pipeline attribute and pipeline
// options (iree-interfaces.md, the VERSION notes).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_IREETOOLS_H
#define RETUNE_IREE_IREETOOLS_H

#include "stages/core/Subprocess.h"
#include "stages/support/LLVM.h"

#include <string>

namespace retune::iree {

/// Flag spellings and attribute forms of one IREE release line (3.<line>).
/// Every known line has one row in `knownReleases()`; see
/// docs/iree-backend.md#versions for the table.
struct IreeSyntax {
  /// The release line these spellings belong to: 3.<line>.
  unsigned line = 0;
  /// `--iree-codegen-add-tuner-attributes` or the old spelling.
  std::string tunerAttributesFlag;
  /// `--iree-rocm-target` or `--iree-hip-target` (prefix, append `=gfx942`).
  std::string rocmTargetFlag;
  /// The `root_op` attribute as the compiler prints it.
  std::string rootOpAttr;
  /// How a CPU spec is passed: `--iree-codegen-tuning-spec-path=` (v3.11+)
  /// or `--iree-codegen-transform-dialect-library=` (append `@__kernel_config`).
  bool cpuUsesTransformLibrary = false;
  /// `#iree_gpu.pipeline<TileAndFuse>` (3.12+) rather than the bare enum
  /// `LLVMGPUTileAndFuse`.
  bool pipelineAttributes = false;
  /// The pipeline-options key for prefetching: `prefetch_num_stages`
  /// (3.10+, an integer) or `prefetch_shared_memory` (3.8, 3.9, a bool).
  std::string prefetchOption;

  /// The pipeline as written in translation_info: `family` is "gpu" or "cpu",
  /// `name` the short name ("TileAndFuse", "VectorDistribute",
  /// "DoubleTilingExpert", ...). v3.11 and older: `LLVMGPUTileAndFuse` /
  /// `CPUDoubleTilingExpert`; 3.12+: `#iree_gpu.pipeline<TileAndFuse>`.
  std::string pipeline(llvm::StringRef family, llvm::StringRef name) const;
  /// `#iree_gpu.pipeline_options<prefetch_num_stages = N>`.
  std::string pipelineOptions(unsigned prefetchStages) const;
  /// The flags that pass `specPath` to the compiler for a target family.
  std::vector<std::string> specFlags(llvm::StringRef family,
                                     llvm::StringRef specPath) const;
  /// specFlags and one thread: what every compile or configuration that
  /// loads a spec passes (see IreeTools.cpp).
  std::vector<std::string> specLoadingFlags(llvm::StringRef family,
                                            llvm::StringRef specPath) const;
  /// Rewrites compilation info written in the newest spelling (what
  /// stages/search/gpu emits) into this release's spelling.
  std::string respell(llvm::StringRef newestSpelling) const;
};

/// Every release line whose spellings we know, oldest first (3.8 ... 3.13).
llvm::ArrayRef<IreeSyntax> knownReleases();

/// The spellings of release line 3.<line>; lines newer than the newest known
/// one get the newest spellings.
IreeSyntax syntaxFor(unsigned line);

struct IreeVersion {
  unsigned major = 0, minor = 0, patch = 0;
  /// The full version text, e.g. "3.13.0rc20261016" or "3.11.0".
  std::string text;
  /// The known release line whose spellings apply (3.<line>).
  unsigned line = 0;
  /// Newer than every known line: runs with the newest known spellings, and
  /// `retune plan` warns once.
  bool newerThanKnown = false;
};

/// Parses the output of `iree-compile --version`. Versions before 3.8 (no
/// structural matchers) and other major versions are an error that names the
/// version and what is supported.
Expected<IreeVersion> parseIreeVersion(llvm::StringRef versionOutput);

/// The one-line warning for a release newer than every known line.
std::string newerReleaseWarning(const IreeVersion &version);

/// IREE's CPU drivers (`local-sync`, `local-task`): the device is this
/// machine, so a measurement must not share it with compiles.
inline bool isHostDevice(llvm::StringRef device) {
  return device.starts_with("local");
}

/// The three tools, resolved to absolute paths.
struct IreeTools {
  std::string compile, opt, benchmark;
  /// iree-run-module beside iree-benchmark-module, for output checks; empty
  /// when the installation lacks it (checks are then skipped, and said so).
  std::string run;
  /// iree-profile beside it, for the model step's per-dispatch profile;
  /// empty when the installation lacks it (the profile is then a note).
  std::string profile;
  /// Where iree-compile was found: "tune.toml", "tools_dir", "PATH" or
  /// "the project's .venv".
  std::string foundIn;
  IreeVersion version;
  /// Flags of the device every run of a module takes (benchmarks, output
  /// checks): `--task_topology_group_count=N` for [tune] threads on
  /// `local-task`.
  std::vector<std::string> deviceFlags;
  /// What starts the tools: the system's, or a unit test's stand-in.
  ProcessRunner *runner = &systemProcessRunner();
  IreeSyntax syntax() const { return syntaxFor(version.line); }
  /// Runs one of the tools (or any child) through `runner`, with
  /// `environment` ("NAME=value") set over this process's.
  ChildOutcome runTool(llvm::StringRef program,
                       llvm::ArrayRef<std::string> args,
                       unsigned timeoutSeconds, unsigned memoryMB,
                       llvm::StringRef logPath,
                       llvm::ArrayRef<std::string> environment = {}) const {
    return runner->run(program, args, timeoutSeconds, memoryMB, logPath,
                       environment);
  }
};

/// Paths given explicitly (e.g. from tune.toml); empty ones are searched in
/// `searchDir` (tools_dir), then on PATH, then in `fallbackDir` (the
/// project's .venv/bin, where scripts/setup.sh installs the pinned release).
struct IreeToolPaths {
  std::string compile, opt, benchmark;
  std::string searchDir;
  /// Pins the release ("3.11.0") instead of asking the compiler; needed for
  /// source builds, which report "IREE compiler version (unknown)".
  std::string version;
  std::string fallbackDir;
};

/// What every retune-iree-* stage is told about IREE: the tools the plan
/// resolved, the release it pinned, and the model's flags.
struct IreeToolOptions {
  std::string compile, opt, benchmark;
  /// The pinned release (`--iree-version`).
  std::string version;
  std::vector<std::string> compileFlags;
  std::vector<std::string> benchFlags;
  /// IreeTools::deviceFlags (`--device-flag`).
  std::vector<std::string> deviceFlags;
};

/// Workers a run with these device flags gets on IREE's `local-task`
/// device: `--task_topology_group_count=N` ([tune] threads); 0 when the
/// flags do not say (one a core on `local-task`, the caller's thread on
/// `local-sync`).
unsigned deviceWorkers(llvm::ArrayRef<std::string> deviceFlags);

/// The tools of `options` (creating `logDir` for their logs), started by
/// `runner`.
Expected<IreeTools> toolsFrom(const IreeToolOptions &options,
                              llvm::StringRef logDir,
                              ProcessRunner &runner = systemProcessRunner());

/// The spellings of the pinned release; no tool is run.
Expected<IreeSyntax> syntaxFrom(const IreeToolOptions &options);

/// Finds the tools and reads the version by running `iree-compile --version`
/// (unless pinned). A missing tool or an unsupported version is one error
/// naming the tool and the fix.
Expected<IreeTools>
findIreeTools(const IreeToolPaths &paths,
              ProcessRunner &runner = systemProcessRunner());

} // namespace retune::iree

#endif // RETUNE_IREE_IREETOOLS_H
