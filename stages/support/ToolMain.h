//===- ToolMain.h - Shared start-up and error exit for stage tools -*- C++ -*-===//
#ifndef RETUNE_SUPPORT_TOOLMAIN_H
#define RETUNE_SUPPORT_TOOLMAIN_H

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

} // namespace retune

#endif // RETUNE_SUPPORT_TOOLMAIN_H
