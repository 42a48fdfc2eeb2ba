//===- CpuChecker.h - Whether a configuration is a point of the space -*- C++ -*-===//
//
// The rules of the CPU knob space, checked on a CpuConfig and written apart
// from the enumeration (CpuSpace.cpp builds its domains and filters with
// its own code), so that "every enumerated configuration passes the
// checker" and "the enumeration finds every configuration the checker
// accepts" test one against the other (CpuSpaceTest). The GPU side has the
// same split (stages/search/gpu/Checker.h).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CPU_CPUCHECKER_H
#define RETUNE_CPU_CPUCHECKER_H

#include "stages/search/cpu/CpuSpace.h"

namespace retune::cpu {

/// Checks `config` against the space's rules for `problem` on `host` with
/// `options`. The error text starts with the violated rule ("register
/// pressure", "divisibility", "cache fit (L2)", ...).
Error checkCpuConfig(const Problem &problem, const CpuHost &host,
                     const CpuSpaceOptions &options, const CpuConfig &config);

} // namespace retune::cpu

#endif // RETUNE_CPU_CPUCHECKER_H
