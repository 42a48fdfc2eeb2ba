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

#include "stages/support/LLVM.h"

#include <string>

namespace retune::iree {

/// The IREE releases whose spellings we know.
enum class IreeEra {
  /// v3.8 - v3.10: `--iree-config-add-tuner-attributes`, unit `root_op`,
  /// `--iree-hip-target`, bare-enum pipelines, CPU specs only through
  /// `--iree-codegen-transform-dialect-library`.
  V3_10,
  /// v3.11: `--iree-codegen-add-tuner-attributes`,
  /// `root_op = #iree_codegen.root_op<set = 0>`, `--iree-rocm-target`,
  /// bare-enum pipelines, CPU tuning specs.
  V3_11,
  /// Nightly (3.12.0 pre-releases): pipeline attributes
  /// (`#iree_gpu.pipeline<TileAndFuse>`), no `--iree-hip-*` aliases.
  Nightly,
};

llvm::StringRef toString(IreeEra era);

struct IreeVersion {
  unsigned major = 0, minor = 0, patch = 0;
  /// The full version text, e.g. "3.12.0rc20260801" or "3.11.0".
  std::string text;
  IreeEra era = IreeEra::V3_11;
};

/// Parses the output of `iree-compile --version`. Versions before 3.8 (no
/// structural matchers) and after the known nightly line are an error that
/// names the version and what is supported.
Expected<IreeVersion> parseIreeVersion(llvm::StringRef versionOutput);

/// Flag spellings and attribute forms for one IREE release.
struct IreeSyntax {
  IreeEra era;
  /// `--iree-codegen-add-tuner-attributes` or the old spelling.
  std::string tunerAttributesFlag;
  /// `--iree-rocm-target` or `--iree-hip-target` (prefix, append `=gfx942`).
  std::string rocmTargetFlag;
  /// The `root_op` attribute as the compiler prints it.
  std::string rootOpAttr;
  /// How a CPU spec is passed: `--iree-codegen-tuning-spec-path=` (v3.11+)
  /// or `--iree-codegen-transform-dialect-library=` (append `@__kernel_config`).
  bool cpuUsesTransformLibrary = false;
  /// `prefetch_num_stages` (v3.10+) is the pipeline-options key.
  std::string prefetchOption;

  /// The pipeline as written in translation_info: `family` is "gpu" or "cpu",
  /// `name` the short name ("TileAndFuse", "VectorDistribute",
  /// "DoubleTilingExpert", ...). v3.11 and older: `LLVMGPUTileAndFuse` /
  /// `CPUDoubleTilingExpert`; nightly: `#iree_gpu.pipeline<TileAndFuse>`.
  std::string pipeline(llvm::StringRef family, llvm::StringRef name) const;
  /// `#iree_gpu.pipeline_options<prefetch_num_stages = N>`.
  std::string pipelineOptions(unsigned prefetchStages) const;
  /// The flags that pass `specPath` to the compiler for a target family.
  std::vector<std::string> specFlags(llvm::StringRef family,
                                     llvm::StringRef specPath) const;
};

IreeSyntax syntaxFor(IreeEra era);

/// The three tools, resolved to absolute paths.
struct IreeTools {
  std::string compile, opt, benchmark;
  IreeVersion version;
  IreeSyntax syntax() const { return syntaxFor(version.era); }
};

/// Paths given explicitly (e.g. from tune.toml); empty ones are searched on
/// PATH (or in `searchDir` when given, before PATH).
struct IreeToolPaths {
  std::string compile, opt, benchmark;
  std::string searchDir;
  /// Pins the release ("3.11.0") instead of asking the compiler; needed for
  /// source builds, which report "IREE compiler version (unknown)".
  std::string version;
};

/// Finds the tools and reads the version by running `iree-compile --version`
/// (log under `logDir`). A missing tool or an unsupported version is one
/// error naming the tool and the fix.
Expected<IreeTools> findIreeTools(const IreeToolPaths &paths,
                                  llvm::StringRef logDir);

} // namespace retune::iree

#endif // RETUNE_IREE_IREETOOLS_H
