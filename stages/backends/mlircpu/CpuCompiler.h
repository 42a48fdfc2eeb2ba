//===- CpuCompiler.h - In-process MLIR -> shared object for the host -*- C++ -*-===//
//
// The mlir-cpu backend's compiler: applies a spec (or none) plus the default
// heuristic to a linalg-on-tensors module with the transform interpreter,
// lowers to LLVM, optimizes for the host CPU and links a shared object with
// lld, all in one process. Callers that must survive crashes and hangs run
// it in a child (see the compile stage).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CPU_CPUCOMPILER_H
#define RETUNE_CPU_CPUCOMPILER_H

#include "stages/search/cpu/CpuHost.h"
#include "stages/core/Records.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace retune::cpu {

struct CompileRequest {
  /// Linalg-on-tensors module to compile.
  std::string payloadPath;
  /// Tuning spec defining @__retune_config; empty for the baseline.
  std::string specPath;
  /// Shared object to write.
  std::string outputPath;
  /// Threads of the generated code (scf.forall via OpenMP when > 1).
  unsigned threads = 1;
  /// Fault injection for tests ("crash", "hang", "wrong"); empty: none.
  std::string injectFault;
  /// Where to write the module after the transforms (and the driver library
  /// beside it), for whoever reads the generated code; empty: the
  /// compiler's --retune-print-transformed, if given.
  std::string printTransformedTo;
};

struct CompileResult {
  std::vector<FuncSignature> functions;
  double transformSeconds = 0;
  double lowerSeconds = 0;
  double codegenSeconds = 0;
  double linkSeconds = 0;
};

/// Compiles `request` for `host`. Errors carry MLIR's diagnostics.
Expected<CompileResult> compileToSharedObject(const CompileRequest &request,
                                              const CpuHost &host);

/// The process-wide MLIR context with every dialect, extension and LLVM
/// translation the compiler needs (registration is the expensive part).
mlir::MLIRContext &compilerContext();

/// Parses a module file; errors carry MLIR's diagnostics with file:line.
Expected<mlir::OwningOpRef<mlir::ModuleOp>> parseModuleFile(StringRef path);

/// Parses and verifies a spec file the way the compiler would use it:
/// it must define @__retune_config. For `retune-link` and tests.
Error verifySpecFile(StringRef specPath);

} // namespace retune::cpu

#endif // RETUNE_CPU_CPUCOMPILER_H
