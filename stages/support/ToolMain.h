//===- ToolMain.h - Shared start-up and error exit for stage tools -*- C++ -*-===//
#ifndef RETUNE_SUPPORT_TOOLMAIN_H
#define RETUNE_SUPPORT_TOOLMAIN_H

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

namespace retune {

/// Prints "<tool>: error: <message>" and returns exit code 1 on failure, 0 on
/// success. Pipeline-level errors only: candidate failures are records.
inline int finishTool(llvm::StringRef tool, llvm::Error err) {
  if (!err)
    return 0;
  llvm::WithColor::error(llvm::errs(), tool) << llvm::toString(std::move(err))
                                             << "\n";
  return 1;
}

/// The --cache-dir option of every tool that consults the content cache
/// (register it at namespace scope: `static auto &cacheDir =
/// cacheDirOption(category);`).
inline llvm::cl::opt<std::string> &
cacheDirOption(llvm::cl::OptionCategory &category) {
  static llvm::cl::opt<std::string> option(
      "cache-dir",
      llvm::cl::desc("content-addressed cache (default: $RETUNE_CACHE_DIR, "
                     "else ~/.cache/retune; 'off' disables it)"),
      llvm::cl::cat(category));
  return option;
}

} // namespace retune

#endif // RETUNE_SUPPORT_TOOLMAIN_H
