//===- LLVM.h - LLVM names used unqualified across retune -------*- C++ -*-===//
//
// Like mlir/Support/LLVM.h: the LLVM support types every file uses are
// imported into the retune namespace.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SUPPORT_LLVM_H
#define RETUNE_SUPPORT_LLVM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace retune {
using llvm::ArrayRef;
using llvm::Error;
using llvm::Expected;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;
using llvm::toString;
} // namespace retune

#endif // RETUNE_SUPPORT_LLVM_H
