//===- IreeTextVerifier.h - IREE's spec rules checked as text ---*- C++ -*-===//
//
// Where IREE's library is absent (the fakes, IreeIr.h), a tuning spec is
// checked against IREE's rules as text: IREECodegenDialect's attribute
// verifier (with IREE's messages and lines), then what loading needs.
// IreeSpecTest runs it and IREE's own verifier on the same specs.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_IREETEXTVERIFIER_H
#define RETUNE_IREE_IREETEXTVERIFIER_H

#include "stages/support/LLVM.h"

namespace retune::iree {

/// verifyTuningSpec without IREE's library: "<file>:<line>: <message>" lines.
Error verifySpecAsText(StringRef specText, StringRef fileName);

} // namespace retune::iree

#endif // RETUNE_IREE_IREETEXTVERIFIER_H
