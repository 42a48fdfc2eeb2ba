//===- NinjaLog.h - How long Ninja's edges took -----------------*- C++ -*-===//
//
// The steps before the per-dispatch search (the import of an ONNX model,
// the model-level flag search, the dump) write no timed records; Ninja
// times every edge in `.ninja_log` (one line per output, appended as each
// edge finishes: start and end in milliseconds since that ninja started,
// the output's mtime, its path and the command's hash). The report reads
// them from there, so it says where the whole tune went.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_REPORT_NINJALOG_H
#define RETUNE_REPORT_NINJALOG_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

namespace retune::report {

/// Seconds of the latest run of each output's edge in a `.ninja_log`'s
/// text (formats v5 to v7); lines that do not parse are skipped.
llvm::StringMap<double> edgeSeconds(llvm::StringRef log);

} // namespace retune::report

#endif // RETUNE_REPORT_NINJALOG_H
