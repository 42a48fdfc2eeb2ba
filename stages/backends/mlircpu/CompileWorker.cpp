//===- CompileWorker.cpp - The compile itself, in its own process --------===//
#include "stages/backends/mlircpu/CompileWorker.h"

#include "stages/backends/mlircpu/CpuCompiler.h"
#include "stages/core/Records.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace retune;

namespace retune::mlircpu {

Error checkCompilerFlags(ArrayRef<std::string> flags) {
  auto &registered = cl::getRegisteredOptions();
  for (const std::string &flag : flags) {
    StringRef name = StringRef(flag).ltrim('-').split('=').first;
    if (!StringRef(flag).starts_with("-") || !registered.count(name))
      return makeError("--compiler-flag=" + flag +
                       ": not an option of the mlir-cpu compiler (see "
                       "retune-compile-worker --help-hidden); fix [mlir-cpu] "
                       "compile_flags in tune.toml");
  }
  return Error::success();
}

Error runCompileWorker(const CompileWorkerOptions &options) {
  double startedAt = unixSeconds();
  // Copies, not references to cl::opts: lld resets every option when it
  // links.
  std::string output = options.outputPath, record = options.recordPath,
              key = options.key;
  cpu::CompileRequest request;
  request.payloadPath = options.payloadPath;
  request.specPath = options.specPath;
  request.outputPath = options.outputPath;
  request.threads = options.threads;
  request.injectFault = options.injectFault;
  Expected<cpu::CompileResult> result =
      cpu::compileToSharedObject(request, cpu::detectHost());
  if (!result)
    return result.takeError();
  CompileRecord compiled;
  compiled.status = Status::Ok;
  compiled.artifact = output;
  compiled.functions = std::move(result->functions);
  Expected<std::string> bytes = readFile(output);
  if (!bytes)
    return bytes.takeError();
  compiled.artifactHash = blake3Hex(*bytes);
  compiled.seconds = result->transformSeconds + result->lowerSeconds +
                     result->codegenSeconds + result->linkSeconds;
  compiled.startedAt = startedAt;
  compiled.key = key;
  compiled.message =
      formatv("transform {0:f3}s, lower {1:f3}s, codegen {2:f3}s, "
              "link {3:f3}s",
              result->transformSeconds, result->lowerSeconds,
              result->codegenSeconds, result->linkSeconds)
          .str();
  return writeJsonFile(record, toJson(compiled));
}

} // namespace retune::mlircpu
