//===- Subprocess.cpp - Run a child under time and memory limits ----------===//
#include "stages/core/Subprocess.h"

#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <iterator>
#include <mutex>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

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

namespace {

/// The process groups of the children being waited for, for the signal
/// handlers: an interrupt or termination of this step ends every child's
/// whole group with it. Slots, not a container, so that the handler only
/// reads memory (several threads may each wait for a child, e.g. the iree
/// dump's parallel compiles); 0 marks a free slot.
constexpr int kMaxGroups = 64;
volatile sig_atomic_t runningGroups[kMaxGroups] = {};
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void endGroupsAndDie(int sig) {
  for (volatile sig_atomic_t &group : runningGroups)
    if (group > 0)
      ::kill(-group, SIGKILL);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

/// Registers a child's group for endGroupsAndDie while it runs. The
/// handlers are installed while any child runs and the previous ones
/// restored when the last one ends.
class GroupSignals {
public:
  explicit GroupSignals(pid_t group) {
    std::lock_guard<std::mutex> hold(mutex);
    for (int i = 0; i < kMaxGroups && slot < 0; ++i)
      if (runningGroups[i] == 0) {
        runningGroups[i] = group;
        slot = i;
      }
    if (active++ > 0)
      return;
    struct sigaction action = {};
    action.sa_handler = endGroupsAndDie;
    sigemptyset(&action.sa_mask);
    for (auto [sig, previous] : llvm::zip(kSignals, previousActions))
      ::sigaction(sig, &action, &previous);
  }
  ~GroupSignals() {
    std::lock_guard<std::mutex> hold(mutex);
    if (slot >= 0)
      runningGroups[slot] = 0;
    if (--active > 0)
      return;
    for (auto [sig, previous] : llvm::zip(kSignals, previousActions))
      ::sigaction(sig, &previous, nullptr);
  }

private:
  int slot = -1;
  static inline std::mutex mutex;
  static inline int active = 0;
  static inline struct sigaction previousActions[std::size(kSignals)] = {};
};

/// In the forked child: its own process group (so that the step can end
/// the child and everything it starts, e.g. the compiler a Python launcher
/// runs), death with its parent, limits, the log, then the program.
[[noreturn]] void execChild(const char *program, char *const argv[],
                            char *const envp[], const char *logPath,
                            unsigned memoryMB) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (memoryMB > 0) {
    struct rlimit limit;
    limit.rlim_cur = limit.rlim_max = rlim_t(memoryMB) * 1024 * 1024;
    ::setrlimit(RLIMIT_DATA, &limit);
  }
  int in = ::open("/dev/null", O_RDONLY);
  int log = ::open(logPath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in >= 0)
    ::dup2(in, 0);
  if (log >= 0) {
    ::dup2(log, 1);
    ::dup2(log, 2);
  }
  ::execve(program, argv, envp);
  _exit(127);
}

/// This process's environment with `extra` ("NAME=value") set over it,
/// built before the fork (the child may only exec).
std::vector<std::string> childEnvironment(ArrayRef<std::string> extra) {
  auto nameOf = [](StringRef entry) { return entry.split('=').first; };
  std::vector<std::string> entries;
  for (char **entry = environ; *entry; ++entry)
    if (llvm::none_of(extra, [&](const std::string &set) {
          return nameOf(set) == nameOf(*entry);
        }))
      entries.push_back(*entry);
  entries.insert(entries.end(), extra.begin(), extra.end());
  return entries;
}

std::vector<char *> pointersTo(std::vector<std::string> &strings) {
  std::vector<char *> pointers;
  for (std::string &s : strings)
    pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

} // namespace

ChildOutcome runLimited(StringRef program, ArrayRef<std::string> args,
                        unsigned timeoutSeconds, unsigned memoryMB,
                        StringRef logPath, ArrayRef<std::string> environment) {
  if (Error err = createParentDirs(logPath))
    consumeError(std::move(err));
  ChildOutcome outcome;
  outcome.startedAt = unixSeconds();
  std::string programPath = program.str(), log = logPath.str();
  if (!sys::fs::can_execute(programPath)) {
    outcome.status = Status::Crash;
    outcome.exitCode = -1;
    outcome.message = "could not start " + programPath +
                      ": not an executable file";
    return outcome;
  }
  std::vector<std::string> argStorage = {programPath};
  argStorage.insert(argStorage.end(), args.begin(), args.end());
  std::vector<char *> argv = pointersTo(argStorage);
  std::vector<std::string> envStorage = childEnvironment(environment);
  std::vector<char *> envp = pointersTo(envStorage);

  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) {
    outcome.status = Status::Crash;
    outcome.exitCode = -1;
    outcome.message = "could not start " + programPath + ": fork failed";
    return outcome;
  }
  if (pid == 0)
    execChild(programPath.c_str(), argv.data(), envp.data(), log.c_str(),
              memoryMB);
  ::setpgid(pid, pid); // as the child does: whichever runs first
  GroupSignals endWithThisStep(pid);
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  int status = 0;
  struct rusage usage = {};
  bool timedOut = false;
  auto pause = std::chrono::microseconds(500);
  for (;;) {
    pid_t done = ::wait4(pid, &status, WNOHANG, &usage);
    if (done == pid || (done < 0 && errno != EINTR))
      break;
    if (timeoutSeconds > 0 && elapsed() >= timeoutSeconds) {
      timedOut = true;
      ::kill(-pid, SIGKILL);
      while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
  // Whatever the child left running (a grandchild it did not wait for)
  // ends with the step.
  ::kill(-pid, SIGKILL);
  outcome.seconds = elapsed();
  outcome.cpuSeconds = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 +
                       usage.ru_stime.tv_sec + usage.ru_stime.tv_usec * 1e-6;
  if (timedOut) {
    outcome.status = Status::Timeout;
    outcome.exitCode = -2;
    outcome.message = "killed after " + std::to_string(timeoutSeconds) + " s";
    return outcome;
  }
  std::string tail = logTail(logPath);
  if (WIFSIGNALED(status)) {
    outcome.status = Status::Crash;
    outcome.exitCode = -1;
    outcome.message = std::string("crashed: ") + ::strsignal(WTERMSIG(status));
    if (!tail.empty())
      outcome.message += "\n" + tail;
    return outcome;
  }
  outcome.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (outcome.exitCode == 0)
    return outcome;
  outcome.status = Status::CompileError;
  outcome.message =
      tail.empty() ? "exit code " + std::to_string(outcome.exitCode) : tail;
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

ProcessRunner::~ProcessRunner() = default;

namespace {
class SystemProcessRunner final : public ProcessRunner {
public:
  ChildOutcome run(StringRef program, ArrayRef<std::string> args,
                   unsigned timeoutSeconds, unsigned memoryMB,
                   StringRef logPath,
                   ArrayRef<std::string> environment) override {
    return runLimited(program, args, timeoutSeconds, memoryMB, logPath,
                      environment);
  }
};
} // namespace

ProcessRunner &systemProcessRunner() {
  static SystemProcessRunner runner;
  return runner;
}

} // namespace retune
