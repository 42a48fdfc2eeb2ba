//===- Subprocess.h - Run a child under time and memory limits --*- C++ -*-===//
#ifndef RETUNE_SUPPORT_SUBPROCESS_H
#define RETUNE_SUPPORT_SUBPROCESS_H

#include "stages/core/Records.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace retune {

struct ChildOutcome {
  /// Ok, CompileError (non-zero exit), Crash (signal) or Timeout.
  Status status = Status::Ok;
  int exitCode = 0;
  /// Why it failed: the signal, the timeout, or the tail of the child's log.
  std::string message;
  double seconds = 0;
  /// When the child was started (Unix seconds).
  double startedAt = 0;
  /// CPU time (user + system) the child used; 0 where unknown.
  double cpuSeconds = 0;
};

/// Runs `program` with `args` (argv[0] excluded), stdout and stderr going to
/// `logPath`, killed after `timeoutSeconds` (0: none) and limited to
/// `memoryMB` of data segment (0: none). Never throws or aborts the parent.
/// The child runs in its own process group, and nothing of it outlives the
/// step: the group is killed at the timeout, when the child exits (a
/// grandchild left behind, e.g. the compiler a Python launcher started),
/// and when this process gets SIGINT, SIGTERM or SIGHUP; the child dies
/// with this process too (PR_SET_PDEATHSIG). `environment` ("NAME=value")
/// is set in the child on top of this process's environment.
ChildOutcome runLimited(llvm::StringRef program,
                        llvm::ArrayRef<std::string> args,
                        unsigned timeoutSeconds, unsigned memoryMB,
                        llvm::StringRef logPath,
                        llvm::ArrayRef<std::string> environment = {});

/// Starts the children a stage needs (IREE's tools, a stage's worker). A
/// stage takes one, as Ninja's builder takes its CommandRunner, so that a
/// unit test can answer for a child (an exit, a crash, a timeout, the files
/// it writes) without running one.
class ProcessRunner {
public:
  virtual ~ProcessRunner();
  /// Runs `program` as runLimited does and says how it ended.
  virtual ChildOutcome run(llvm::StringRef program,
                           llvm::ArrayRef<std::string> args,
                           unsigned timeoutSeconds, unsigned memoryMB,
                           llvm::StringRef logPath,
                           llvm::ArrayRef<std::string> environment) = 0;
  /// The same in this process's environment.
  ChildOutcome run(llvm::StringRef program, llvm::ArrayRef<std::string> args,
                   unsigned timeoutSeconds, unsigned memoryMB,
                   llvm::StringRef logPath) {
    return run(program, args, timeoutSeconds, memoryMB, logPath, {});
  }
};

/// The runner of a real run: every child through runLimited.
ProcessRunner &systemProcessRunner();

/// Absolute path of the running executable (for re-executing oneself as a
/// sandboxed child).
std::string currentExecutable(const char *argv0);

/// The tool `tool` in the directory of the running executable (a stage's
/// worker, or another stage it runs).
std::string siblingTool(const char *argv0, llvm::StringRef tool);

/// The last `maxBytes` of a log file, trimmed, for status messages.
std::string logTail(llvm::StringRef logPath, size_t maxBytes = 600);

} // namespace retune

#endif // RETUNE_SUPPORT_SUBPROCESS_H
