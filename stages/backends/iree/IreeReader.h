//===- IreeReader.h - Reading IREE's dumped dispatch benchmarks -*- C++ -*-===//
//
// `iree-compile --iree-hal-dump-executable-benchmarks-to=<dir>` writes one
// MLIR file per executable variant. This reads such a file (configured or
// stripped) with IREE's own library (IreeIr.h), or where that is absent with
// the text reader (IreeTextReader.h): the executable target, the root op
// marked by `--iree-codegen-add-tuner-attributes`, and from it the Problem
// (RootOpProblem.h).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_IREEREADER_H
#define RETUNE_IREE_IREEREADER_H

#include "stages/backends/iree/IreeDispatch.h"
#include "stages/backends/iree/IreeTools.h"
#include "stages/support/LLVM.h"

#include "llvm/ADT/StringMap.h"
#include "stages/core/Problem.h"
#include "stages/core/Subprocess.h"

#include <string>
#include <vector>

namespace retune::iree {

class IreeIrLibrary;

/// Reads a benchmark (or any file holding one hal.executable.variant with a
/// root op): with IREE's own library (IreeIr.h) when given, else with the
/// text reader. Errors name the file and line and say what to do.
Expected<IreeDispatch> readIreeDispatch(llvm::StringRef text,
                                        llvm::StringRef fileName,
                                        const IreeIrLibrary *library = nullptr);

/// Every executable target in a file (for fixtures and model dumps), read
/// by IREE's library when given.
Expected<std::vector<IreeTarget>>
readIreeTargets(llvm::StringRef text, llvm::StringRef fileName,
                const IreeIrLibrary *library = nullptr);

//===----------------------------------------------------------------------===//
// Commands
//===----------------------------------------------------------------------===//

/// `<model> <flags> --iree-hal-dump-executable-benchmarks-to=<dir>
/// <tuner-attributes flag> -o <modulePath>`.
std::vector<std::string> dumpArgs(const IreeSyntax &syntax,
                                  llvm::StringRef model,
                                  llvm::ArrayRef<std::string> compileFlags,
                                  llvm::StringRef dumpDir,
                                  llvm::StringRef modulePath = "/dev/null");

/// `<input> --iree-codegen-strip-compilation-info -o <output>`.
std::vector<std::string> stripArgs(llvm::StringRef input,
                                   llvm::StringRef output);

/// Runs the dump; returns the benchmark files written, sorted. Failing to dump
/// is a pipeline-level error (the model does not compile). The compile's
/// module goes to `modulePath` (the model, runnable; none by default).
Expected<std::vector<std::string>>
runDump(const IreeTools &tools, llvm::StringRef model,
        llvm::ArrayRef<std::string> compileFlags, llvm::StringRef dumpDir,
        llvm::StringRef logPath, unsigned timeoutSeconds = 1800,
        llvm::StringRef modulePath = "/dev/null");

/// How often the model calls each executable: `flow.dispatch` ops per
/// executable name in the model compiled to the flow phase. IREE dumps one
/// benchmark per executable, however often it is called.
llvm::StringMap<unsigned> countDispatchCalls(llvm::StringRef flowText);

/// Compiles `model` to the flow phase (`flowPath`) and counts its calls.
Expected<llvm::StringMap<unsigned>>
runDispatchCallCount(const IreeTools &tools, llvm::StringRef model,
                     llvm::ArrayRef<std::string> compileFlags,
                     llvm::StringRef flowPath, llvm::StringRef logPath,
                     unsigned timeoutSeconds = 1800);

/// Strips `benchmarkFile` with iree-opt, reads the dispatch (root op still
/// marked), drops `root_op` and writes the result to `outputFile`: the file
/// every candidate of this dispatch is compiled from. The two halves below,
/// for callers that strip many files at once.
Expected<IreeDispatch> prepareDispatch(const IreeTools &tools,
                                       llvm::StringRef benchmarkFile,
                                       llvm::StringRef outputFile,
                                       llvm::StringRef logPath,
                                       unsigned timeoutSeconds = 300);

/// The first half: `benchmarkFile`'s configuration stripped by iree-opt into
/// `strippedFile` (a child process; safe to run from several threads).
Error stripConfiguration(const IreeTools &tools, llvm::StringRef benchmarkFile,
                         llvm::StringRef strippedFile, llvm::StringRef logPath,
                         unsigned timeoutSeconds = 300);

/// The second half: reads `strippedFile` (then removes it) and writes the
/// prepared dispatch to `outputFile`.
Expected<IreeDispatch> readStripped(const IreeTools &tools,
                                    llvm::StringRef benchmarkFile,
                                    llvm::StringRef strippedFile,
                                    llvm::StringRef outputFile);

/// Where prepareDispatch strips `outputFile`'s benchmark to.
std::string strippedPathFor(llvm::StringRef outputFile);

/// "cpu" when the file's executable target is llvm-cpu, "cuda" for CUDA,
/// else "gpu": how a spec is passed to iree-compile (CPU before v3.11 and
/// CUDA differ, IreeSyntax::specFlags).
std::string targetFamily(llvm::StringRef mlirText, llvm::StringRef fileName,
                         const IreeIrLibrary *library = nullptr);

} // namespace retune::iree

#endif // RETUNE_IREE_IREEREADER_H
