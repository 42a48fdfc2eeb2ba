//===- ModelRun.h - Building and timing the whole model ---------*- C++ -*-===//
//
// What retune-iree-flags and retune-iree-model share: the whole model
// compiled into a work directory under a tag, timed interleaved against a
// reference build with the model's entry and inputs, and checked against the
// reference build's results on seeded inputs. The options (--model,
// --work-dir, --device, --entry, --repetitions, --rounds, timeouts) are
// registered by linking this library.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_TOOLS_MODELRUN_H
#define RETUNE_IREE_TOOLS_MODELRUN_H

#include "stages/backends/iree/IreeRun.h"
#include "stages/backends/iree/ModelSignature.h"
#include "stages/backends/iree/OutputCheck.h"

#include <optional>
#include <string>

namespace retune::iree::tools {

/// --model: the model file the tools compile.
llvm::StringRef modelFile();
/// --device.
llvm::StringRef modelDevice();
/// --work-dir, and `<work-dir>/<name>`.
llvm::StringRef workDirectory();
std::string inWork(const llvm::Twine &name);

/// One run of the whole model: its entry and inputs, and the reference
/// build's results that every other build must reproduce.
class ModelRunner {
public:
  /// Reads the entry and inputs (tune.toml's, else the model's signature).
  static Expected<ModelRunner> create(const IreeTools &tools);

  /// Compiles the model with the user's compile flags plus `extraFlags` and
  /// `spec` (empty: none) into `<tag>.vmfb`.
  CompileRecord compile(llvm::StringRef tag, llvm::StringRef spec,
                        llvm::ArrayRef<std::string> extraFlags = {}) const;

  /// Runs `<referenceTag>.vmfb` on seeded inputs and keeps its results; a
  /// no-op (and later checks pass) without iree-run-module.
  Error makeReference(llvm::StringRef referenceTag);
  bool checksResults() const { return reference.has_value(); }
  /// `<tag>.vmfb` against the reference's results.
  OutputCheck check(llvm::StringRef tag) const;

  /// `<referenceTag>.vmfb` and `<tag>.vmfb` timed alternately.
  InterleavedOutcome timeAgainst(llvm::StringRef referenceTag,
                                 llvm::StringRef tag) const;

private:
  ModelRunner(const IreeTools &tools, ModelInvocation invocation)
      : tools(&tools), invocation(std::move(invocation)) {}
  BenchRequest benchRequest(llvm::StringRef tag) const;
  RunRequest runRequest(llvm::StringRef tag) const;

  const IreeTools *tools;
  ModelInvocation invocation;
  std::vector<std::string> seededInputs;
  std::optional<Reference> reference;
};

} // namespace retune::iree::tools

#endif // RETUNE_IREE_TOOLS_MODELRUN_H
