//===- SubprocessTest.cpp - Children under limits, and nothing left -------===//
#include "stages/core/Subprocess.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

using namespace retune;

namespace {

/// A scratch directory with an executable shell script in it.
struct Scratch {
  llvm::SmallString<128> dir;
  Scratch() { EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("subproc", dir)); }
  ~Scratch() { llvm::sys::fs::remove_directories(dir); }
  std::string path(llvm::StringRef name) const { return (dir + "/" + name).str(); }
  std::string script(llvm::StringRef name, llvm::StringRef body) const {
    std::string p = path(name);
    std::ofstream(p) << "#!/bin/sh\n" << body.str() << "\n";
    llvm::sys::fs::setPermissions(p, llvm::sys::fs::all_exe | llvm::sys::fs::owner_all);
    return p;
  }
};

/// Whether `pid` is a process that still runs (not gone, not a zombie).
bool running(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pidField, comm, state;
  if (!(stat >> pidField >> comm >> state))
    return false;
  return state != "Z" && state != "X";
}

long readPid(const std::string &file) {
  long pid = 0;
  std::ifstream(file) >> pid;
  return pid;
}

/// Like a Python launcher running the real compiler as its child: the
/// grandchild hangs, and so does the launcher.
TEST(Subprocess, ATimeoutEndsTheChildAndItsChildren) {
  Scratch s;
  std::string pidFile = s.path("grandchild.pid");
  std::string launcher = s.script(
      "launcher", "sleep 1000 &\necho $! > " + pidFile + "\nwait");
  ChildOutcome outcome = runLimited(launcher, {}, 1, 0, s.path("log"));
  EXPECT_EQ(outcome.status, Status::Timeout);
  EXPECT_EQ(outcome.message, "killed after 1 s");
  long grandchild = readPid(pidFile);
  ASSERT_GT(grandchild, 0);
  // SIGKILL is delivered before runLimited returns; reaping may lag.
  for (int i = 0; i < 100 && running(grandchild); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(running(grandchild)) << "the grandchild outlived the step";
}

TEST(Subprocess, AGrandchildLeftBehindEndsWithTheStep) {
  Scratch s;
  std::string pidFile = s.path("grandchild.pid");
  std::string launcher =
      s.script("launcher", "sleep 1000 &\necho $! > " + pidFile + "\nexit 0");
  ChildOutcome outcome = runLimited(launcher, {}, 0, 0, s.path("log"));
  EXPECT_EQ(outcome.status, Status::Ok);
  long grandchild = readPid(pidFile);
  ASSERT_GT(grandchild, 0);
  for (int i = 0; i < 100 && running(grandchild); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(running(grandchild));
}

TEST(Subprocess, ExitCodesSignalsAndTheLog) {
  Scratch s;
  ChildOutcome failed = runLimited(s.script("fail", "echo broken >&2\nexit 3"),
                                   {}, 0, 0, s.path("fail.log"));
  EXPECT_EQ(failed.status, Status::CompileError);
  EXPECT_EQ(failed.exitCode, 3);
  EXPECT_EQ(failed.message, "broken");
  ChildOutcome crashed =
      runLimited(s.script("crash", "kill -SEGV $$"), {}, 0, 0, s.path("c.log"));
  EXPECT_EQ(crashed.status, Status::Crash);
  EXPECT_EQ(crashed.message, "crashed: Segmentation fault");
  ChildOutcome args = runLimited(s.script("args", "echo \"$1|$2\""),
                                 {"a b", "$HOME;x"}, 0, 0, s.path("a.log"));
  EXPECT_EQ(args.status, Status::Ok);
  EXPECT_EQ(logTail(s.path("a.log")), "a b|$HOME;x");
  ChildOutcome missing = runLimited(s.path("none"), {}, 0, 0, s.path("n.log"));
  EXPECT_EQ(missing.status, Status::Crash);
  EXPECT_NE(missing.message.find("could not start"), std::string::npos);
}

TEST(Subprocess, TheChildGetsTheExtraEnvironmentOverThisProcesss) {
  Scratch s;
  ::setenv("RETUNE_TEST_KEPT", "kept", 1);
  ::setenv("RETUNE_TEST_SET", "before", 1);
  ChildOutcome env = runLimited(
      s.script("env", "echo \"$RETUNE_TEST_KEPT|$RETUNE_TEST_SET|$X\""), {}, 0,
      0, s.path("e.log"), {"RETUNE_TEST_SET=after", "X=a b"});
  ::unsetenv("RETUNE_TEST_KEPT");
  ::unsetenv("RETUNE_TEST_SET");
  EXPECT_EQ(env.status, Status::Ok);
  EXPECT_EQ(logTail(s.path("e.log")), "kept|after|a b");
}

} // namespace
