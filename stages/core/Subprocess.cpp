//===- Subprocess.cpp - Run a child under time and memory limits ----------===//
#include "stages/core/Subprocess.h"

#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <chrono>

using namespace llvm;

namespace retune {

std::string logTail(StringRef logPath, size_t maxBytes) {
  Expected<std::string> text = readFile(logPath);
  if (!text) {
    consumeError(text.takeError());
    return {};
  }
  StringRef tail = StringRef(*text).trim();
  if (tail.size() > maxBytes)
    tail = tail.take_back(maxBytes);
  return tail.str();
}

ChildOutcome runLimited(StringRef program, ArrayRef<std::string> args,
                        unsigned timeoutSeconds, unsigned memoryMB,
                        StringRef logPath) {
  SmallVector<StringRef> argv = {program};
  for (const std::string &arg : args)
    argv.push_back(arg);
  if (Error err = createParentDirs(logPath))
    consumeError(std::move(err));
  std::optional<StringRef> redirects[] = {StringRef(""), logPath, logPath};

  ChildOutcome outcome;
  std::string errorMessage;
  bool executionFailed = false;
  outcome.startedAt = unixSeconds();
  auto start = std::chrono::steady_clock::now();
  std::optional<sys::ProcessStatistics> statistics;
  int rc = sys::ExecuteAndWait(program, argv, /*Env=*/std::nullopt, redirects,
                               timeoutSeconds, memoryMB, &errorMessage,
                               &executionFailed, &statistics);
  if (statistics)
    outcome.cpuSeconds =
        std::chrono::duration<double>(statistics->TotalTime).count();
  outcome.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  outcome.exitCode = rc;
  if (executionFailed) {
    outcome.status = Status::Crash;
    outcome.message = "could not start " + program.str() + ": " + errorMessage;
    return outcome;
  }
  if (rc == 0)
    return outcome;
  bool timedOut = timeoutSeconds > 0 &&
                  (errorMessage.find("timed out") != std::string::npos ||
                   outcome.seconds >= timeoutSeconds);
  if (rc == -2 && timedOut) {
    outcome.status = Status::Timeout;
    outcome.message = "killed after " + std::to_string(timeoutSeconds) + " s";
    return outcome;
  }
  std::string tail = logTail(logPath);
  if (rc < 0) {
    outcome.status = Status::Crash;
    outcome.message = "crashed: " + errorMessage;
    if (!tail.empty())
      outcome.message += "\n" + tail;
    return outcome;
  }
  outcome.status = Status::CompileError;
  outcome.message = tail.empty() ? "exit code " + std::to_string(rc) : tail;
  return outcome;
}

std::string currentExecutable(const char *argv0) {
  static int anchor;
  return sys::fs::getMainExecutable(argv0, &anchor);
}

std::string siblingTool(const char *argv0, StringRef tool) {
  SmallString<256> path(sys::path::parent_path(currentExecutable(argv0)));
  sys::path::append(path, tool);
  return path.str().str();
}

} // namespace retune
