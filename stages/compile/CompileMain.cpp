//===- CompileMain.cpp - retune-compile: spec + payload -> shared object --===//
//
// Compiles one payload (a dispatch or a whole model) with one spec (or none:
// the baseline) into a shared object, and writes a compile record. The work
// runs in a child process (this binary re-executed with --child) under a
// time and memory limit, so a crash, hang or verifier error of the compiler
// becomes a record with its reason and exit status 0.
//
//===----------------------------------------------------------------------===//
#include "stages/cpu/CpuCompiler.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"
#include "stages/support/Subprocess.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-compile options");
static cl::opt<std::string> payloadPath("payload", cl::Required,
                                        cl::desc("MLIR module to compile"),
                                        cl::cat(category));
static cl::opt<std::string>
    specPath("spec", cl::desc("tuning spec (omit for the baseline)"),
             cl::cat(category));
static cl::opt<std::string> outputPath("output", cl::Required,
                                       cl::desc("shared object to write"),
                                       cl::cat(category));
static cl::opt<std::string> recordPath("record", cl::Required,
                                       cl::desc("compile record to write"),
                                       cl::cat(category));
static cl::opt<unsigned> threads("code-threads", cl::init(1),
                                 cl::desc("threads of the generated code"),
                                 cl::cat(category));
static cl::opt<unsigned> timeoutSeconds("timeout", cl::init(120),
                                        cl::desc("seconds before the compile is killed"),
                                        cl::cat(category));
static cl::opt<unsigned> memoryMB("memory-mb", cl::init(8192),
                                  cl::desc("memory limit of the compile (MiB)"),
                                  cl::cat(category));
static cl::opt<bool> child("child", cl::Hidden,
                           cl::desc("internal: do the work in this process"));

/// RETUNE_INJECT_FAULT="kind:substring[,kind:substring]" makes the compile
/// of any spec whose path contains `substring` crash, hang or compute wrong
/// numbers. Tests use it to prove failures become records.
static std::string faultFor(StringRef spec) {
  const char *env = std::getenv("RETUNE_INJECT_FAULT");
  if (!env || spec.empty())
    return {};
  SmallVector<StringRef> items;
  StringRef(env).split(items, ',', -1, false);
  for (StringRef item : items) {
    auto [kind, needle] = item.split(':');
    if (!needle.empty() && spec.contains(needle))
      return kind.str();
  }
  return {};
}

static Error runChild() {
  // Copies, not the cl::opts: lld resets every option when it links.
  std::string output = outputPath, record = recordPath;
  cpu::CompileRequest request;
  request.payloadPath = payloadPath;
  request.specPath = specPath;
  request.outputPath = outputPath;
  request.threads = threads;
  request.injectFault = faultFor(specPath);
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
  compiled.message = formatv("transform {0:f3}s, lower {1:f3}s, codegen {2:f3}s, "
                           "link {3:f3}s",
                           result->transformSeconds, result->lowerSeconds,
                           result->codegenSeconds, result->linkSeconds)
                       .str();
  return writeJsonFile(record, toJson(compiled));
}

static Error runParent(const char *argv0) {
  std::vector<std::string> args = {"--child", "--payload=" + payloadPath,
                                   "--output=" + outputPath,
                                   "--record=" + recordPath,
                                   "--code-threads=" + std::to_string(threads)};
  if (!specPath.empty())
    args.push_back("--spec=" + specPath);
  if (!sys::fs::exists(payloadPath))
    return makeError(payloadPath + ": no such file");
  // A stale record must not survive a failed compile.
  sys::fs::remove(recordPath);
  std::string logPath = recordPath + ".log";
  sys::fs::remove(logPath);
  ChildOutcome outcome = runLimited(currentExecutable(argv0), args,
                                    timeoutSeconds, memoryMB, logPath);
  if (outcome.status == Status::Ok && sys::fs::exists(recordPath)) {
    sys::fs::remove(logPath);
    return Error::success();
  }
  CompileRecord record;
  record.status = outcome.status == Status::Ok ? Status::Crash : outcome.status;
  record.message = outcome.message.empty()
                       ? "the compiler exited without writing a record"
                       : outcome.message;
  record.seconds = outcome.seconds;
  sys::fs::remove(outputPath);
  return writeJsonFile(recordPath, toJson(record));
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-compile: compile an MLIR module with a tuning spec into a "
      "shared object for this CPU.\n\nFailures of the compile itself (errors, "
      "crashes, timeouts) are written to --record with status != ok and exit "
      "code 0; only bad invocations exit non-zero.\n");
  if (child)
    return finishTool("retune-compile", runChild());
  return finishTool("retune-compile", runParent(argv[0]));
}
