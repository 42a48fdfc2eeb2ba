//===- ConfiguredExecutables.h - Configs a spec cannot deliver --*- C++ -*-===//
//
// A tuning spec reaches an op only where its matcher sees the op as the
// candidates were compiled: on llvm-cpu (IREE 3.13) a batch-1 NCHW
// convolution reaches the spec with its unit batch folded away, so a spec
// written from the dispatch dump never matches it in the whole model
// (docs/iree-backend.md, "Specs and NCHW convolutions"). IREE substitutes
// whole configured executables instead
// (`--iree-hal-substitute-executable-configurations-from=<dir>`, one
// `<executable>.mlir` per executable), and its configured executables hold
// the op in the form the candidates were compiled in.
//
// So such a candidate reaches the model as the model's own configured
// executable, configured again by IREE with the candidate's spec: its
// lowering configs and translation infos stripped (IreeIr), then IREE's
// configuration pipeline for its target run on it by iree-opt with the
// spec. Without a spec that reproduces IREE's own configuration (checked
// on the convolutions this was built for); with one, the spec's config on
// the op it matches and IREE's derivation of the rest, as in the dispatch
// benchmark. Retune writes no config itself.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGES_BACKENDS_IREE_CONFIGUREDEXECUTABLES_H
#define RETUNE_STAGES_BACKENDS_IREE_CONFIGUREDEXECUTABLES_H

#include "stages/backends/iree/IreeTools.h"
#include "stages/core/WinnerPruning.h"
#include "stages/support/LLVM.h"

#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace retune::iree {

class IreeIrLibrary;

/// The flag that has IREE substitute the executables in `dir`.
std::string substituteExecutablesFlag(StringRef dir);

/// The model's executables as IREE configured them, one file each.
struct ConfiguredExecutables {
  /// Executable name (`main_dispatch_3`) by export name (the dispatch's
  /// function, as the profiler and the dump name it).
  llvm::StringMap<std::string> executableOfExport;
  /// The file of each executable, by executable name.
  llvm::StringMap<std::string> fileOfExecutable;

  /// The file holding the executable that exports `exportName`, or "".
  std::string fileExporting(StringRef exportName) const;
};

/// Compiles `model` with `flags` (and `spec`, when not empty) only until
/// its executables are configured (`--compile-to=executable-configurations`)
/// and reads the executables IREE dumps to `dir`. Logs to `logPath`.
Expected<ConfiguredExecutables>
dumpConfiguredExecutables(const IreeTools &tools, const IreeIrLibrary &library,
                          StringRef model, ArrayRef<std::string> flags,
                          StringRef spec, StringRef dir, StringRef logPath,
                          unsigned timeoutSeconds);

/// The configured executable in `executableFile` configured again by IREE
/// with `spec` (none when empty) as its tuning spec, written to `outFile`
/// (the form `--iree-hal-substitute-executable-configurations-from` takes):
/// its `lowering_config`s and `translation_info`s removed, then IREE's
/// configuration pipeline for its variants' target. Returns the text.
Expected<std::string> reconfigureExecutable(const IreeTools &tools,
                                            const IreeIrLibrary &library,
                                            StringRef executableFile,
                                            StringRef spec, StringRef outFile,
                                            unsigned timeoutSeconds);

/// A winner delivered to the model as a configured executable.
struct DeliveredExecutable {
  std::string dispatch;
  /// The executable IREE substitutes (`main_dispatch_3`).
  std::string executable;
  /// `<dir>/<executable>.mlir`.
  std::string file;
};

/// Where the model's compile applies a spec and where only a configured
/// executable can carry a winner's config.
class SpecReach {
public:
  /// One dispatch of the model: its id and the exports of every executable
  /// that holds it (the dump merges executables with the same problem).
  struct Dispatch {
    std::string id;
    std::vector<std::string> exportNames;
  };
  /// Configures the model's executables without a spec and with
  /// `linkedSpec` (every dispatch's winner; none when empty) in
  /// `workDir/configured-{baseline,linked}`: the spec reaches a dispatch
  /// when it changes the dispatch's executable, and misses it when not.
  static Expected<SpecReach>
  find(const IreeTools &tools, const IreeIrLibrary &library,
       StringRef model, ArrayRef<std::string> flags, StringRef linkedSpec,
       ArrayRef<Dispatch> dispatches, StringRef workDir,
       unsigned timeoutSeconds);

  /// The spec does not reach `dispatch` in one of its executables in the
  /// model (that executable is known).
  bool misses(StringRef dispatch) const { return missed.count(dispatch); }
  /// How many dispatches the spec misses somewhere.
  size_t numMissed() const { return missed.size(); }

  /// For each of `winners` whose dispatch the spec misses, each executable
  /// it misses configured with the winner's spec, written to
  /// `<dir>/<executable>.mlir` (`dir` made afresh; none when no winner
  /// needs it). A winner whose spec changes none of them either is left out
  /// and said so in `notApplied`; one it changes in some is delivered there.
  Expected<std::vector<DeliveredExecutable>>
  substitute(ArrayRef<Winner> winners, StringRef dir,
             std::vector<std::string> &notApplied) const;

private:
  struct Missed {
    std::string executable;
    /// The model's configured executable (without a spec).
    std::string file;
  };
  /// `exe` configured with `w`'s spec into `<dir>/<executable>.mlir`; none
  /// (and no file) when the spec changes nothing in it.
  Expected<std::optional<std::string>>
  configureWith(const Missed &exe, const Winner &w, StringRef dir) const;
  const IreeTools *tools = nullptr;
  const IreeIrLibrary *library = nullptr;
  std::string workDir;
  unsigned timeoutSeconds = 0;
  /// By dispatch, the executables the spec does not reach.
  llvm::StringMap<std::vector<Missed>> missed;
  /// The missed executables configured again without a spec, by
  /// executable: what a winner's must differ from to have applied.
  mutable llvm::StringMap<std::string> unchanged;
};

} // namespace retune::iree

#endif // RETUNE_STAGES_BACKENDS_IREE_CONFIGUREDEXECUTABLES_H
