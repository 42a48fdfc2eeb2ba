//===- CompileTiming.h - Where a whole-model compile spends its time -*- C++ -*-===//
//
// A whole-model compile runs with MLIR's pass timing
// (`--mlir-timing --mlir-timing-display=list`, printed to its log): the
// passes that took the most wall time say where a large model's compile goes
// (configuration, codegen of each executable, LLVM serialization, ...).
// Pipelines and pass adaptors nest the passes they run and are left out, so
// the list names work, not containers.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_COMPILETIMING_H
#define RETUNE_IREE_COMPILETIMING_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace retune::iree {

/// The flags that make iree-compile print its pass timing as a list.
std::vector<std::string> passTimingFlags();

struct PassTime {
  std::string name;
  double wallSeconds = 0;
};

/// The `top` passes by wall time in an iree-compile log that holds MLIR's
/// list-form timing report; empty when the log has none (a failed compile,
/// or one from before the flags).
std::vector<PassTime> slowestPasses(llvm::StringRef log, size_t top = 6);

llvm::json::Value toJson(const std::vector<PassTime> &passes);
std::vector<PassTime> passTimesFromJson(const llvm::json::Value *value);

} // namespace retune::iree

#endif // RETUNE_IREE_COMPILETIMING_H
