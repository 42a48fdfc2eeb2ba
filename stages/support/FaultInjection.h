//===- FaultInjection.h - Failures on purpose, for tests ------*- C++ -*-===//
//
// Tests prove that a crashing, hanging or wrong candidate becomes a record
// and never a failed build, and that a step cancelled mid-way is redone.
// They need those failures where they choose, on any machine, without
// depending on timing: RETUNE_INJECT_FAULT names them.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SUPPORT_FAULTINJECTION_H
#define RETUNE_SUPPORT_FAULTINJECTION_H

#include "stages/support/LLVM.h"

#include <string>

namespace retune {

/// RETUNE_INJECT_FAULT="kind:substring[,kind:substring]": the kind of the
/// first item whose substring `path` contains; empty when none does, when
/// `path` is empty or the variable is unset. Each stage says which path it
/// asks about and which kinds it knows.
std::string injectedFault(StringRef path);

} // namespace retune

#endif // RETUNE_SUPPORT_FAULTINJECTION_H
