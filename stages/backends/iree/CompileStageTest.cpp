//===- CompileStageTest.cpp - The iree compile stage's records ------------===//
//
// The stage with IREE's compiler stood in for by a ProcessRunner (as Ninja's
// tests stand in for its CommandRunner): each test says how the compile
// ends, and checks the record the stage writes and what the cache keeps.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/CompileStage.h"
#include "stages/backends/iree/TestUtil.h"

#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;
using namespace retune::iree::testing;

namespace {

/// Answers for iree-compile: each run ends with the next scripted outcome;
/// a compile that ends Ok writes the module to its `-o` path, one that
/// fails prints what IREE 3.13 prints for an error (recorded).
class ScriptedCompiler : public ProcessRunner {
public:
  std::vector<Status> outcomes;
  std::vector<std::vector<std::string>> calls;

  ChildOutcome run(StringRef program, ArrayRef<std::string> args,
                   unsigned timeoutSeconds, unsigned memoryMB,
                   StringRef logPath, ArrayRef<std::string>) override {
    calls.emplace_back(args.begin(), args.end());
    ChildOutcome outcome;
    outcome.status = calls.size() <= outcomes.size()
                         ? outcomes[calls.size() - 1]
                         : Status::Ok;
    outcome.seconds = 0.25;
    std::string log;
    if (outcome.status == Status::CompileError) {
      outcome.exitCode = 1;
      outcome.message = "exit code 1";
      log = readTestFile(
          testdata("fixtures/real-3.13/compile_error_llvm_cpu.txt"));
    } else if (outcome.status == Status::Timeout) {
      outcome.message = "killed after " + std::to_string(timeoutSeconds) + " s";
    } else if (outcome.status == Status::Crash) {
      outcome.message = "killed by signal 11";
    }
    llvm::cantFail(writeFileAtomic(logPath, log));
    auto out = llvm::find(args, "-o");
    if (outcome.status == Status::Ok && out != args.end())
      llvm::cantFail(writeFileAtomic(*std::next(out), "vmfb of call " +
                                     std::to_string(calls.size())));
    return outcome;
  }
};

class IreeCompileStage : public ::testing::Test {
protected:
  void SetUp() override {
    dir = scratchDir("compile-stage");
    // Executables that exist; the runner answers for them.
    options.iree.compile = options.iree.opt = options.iree.benchmark =
        "/bin/sh";
    options.iree.version = "3.13.0";
    options.inputPath = dir + "/dispatch.mlir";
    llvm::cantFail(writeFileAtomic(
        options.inputPath,
        readTestFile(testdata("fixtures/executable_benchmarks.mlir"))));
    options.specPath = dir + "/0.spec.mlir";
    llvm::cantFail(writeFileAtomic(options.specPath, "// a spec\n"));
    options.vmfbPath = dir + "/artifacts/0.vmfb";
    options.recordPath = dir + "/artifacts/0.json";
    options.cacheDir = dir + "/cache";
  }

  CompileRecord written() {
    llvm::Expected<CompileRecord> record = readRecord<CompileRecord>(
        options.recordPath, retune::schema::kCompile, compileRecordFromJson);
    if (!record) {
      ADD_FAILURE() << llvm::toString(record.takeError());
      return {};
    }
    return *record;
  }

  /// The same compile in another build directory (same cache).
  void moveToAnotherBuild() {
    options.vmfbPath = dir + "/other/artifacts/0.vmfb";
    options.recordPath = dir + "/other/artifacts/0.json";
  }

  std::string dir;
  CompileOptions options;
  ScriptedCompiler compiler;
};

TEST_F(IreeCompileStage, OkCompileRecordsTheModuleAndIsReplayed) {
  ASSERT_FALSE(static_cast<bool>(runCompileStage(options, "test", compiler)));
  CompileRecord record = written();
  EXPECT_EQ(record.status, Status::Ok);
  EXPECT_EQ(record.artifact, options.vmfbPath);
  EXPECT_EQ(record.artifactHash, blake3Hex("vmfb of call 1"));
  ASSERT_EQ(compiler.calls.size(), 1u);
  EXPECT_NE(llvm::find(compiler.calls[0],
                       "--iree-codegen-tuning-spec-path=" + options.specPath),
            compiler.calls[0].end());

  moveToAnotherBuild();
  ASSERT_FALSE(static_cast<bool>(runCompileStage(options, "test", compiler)));
  EXPECT_EQ(compiler.calls.size(), 1u) << "replayed, not compiled again";
  CompileRecord replayed = written();
  EXPECT_EQ(replayed.status, Status::Ok);
  EXPECT_TRUE(replayed.cached);
  EXPECT_EQ(readTestFile(options.vmfbPath), "vmfb of call 1");
}

TEST_F(IreeCompileStage, CompileErrorIsDataWithIreesFirstError) {
  compiler.outcomes = {Status::CompileError};
  ASSERT_FALSE(static_cast<bool>(runCompileStage(options, "test", compiler)));
  CompileRecord record = written();
  EXPECT_EQ(record.status, Status::CompileError);
  EXPECT_NE(record.message.find("dispatch.mlir:2:19: error: use of value"),
            std::string::npos)
      << record.message;
  EXPECT_FALSE(llvm::sys::fs::exists(options.vmfbPath));

  // A compile error repeats: the next build replays it.
  moveToAnotherBuild();
  ASSERT_FALSE(static_cast<bool>(runCompileStage(options, "test", compiler)));
  EXPECT_EQ(compiler.calls.size(), 1u);
  EXPECT_EQ(written().status, Status::CompileError);
}

TEST_F(IreeCompileStage, TimeoutsAndCrashesAreNotCached) {
  compiler.outcomes = {Status::Timeout, Status::Crash, Status::Ok};
  options.timeoutSeconds = 7;
  ASSERT_FALSE(static_cast<bool>(runCompileStage(options, "test", compiler)));
  EXPECT_EQ(written().status, Status::Timeout);
  EXPECT_NE(written().message.find("killed after 7 s"), std::string::npos);

  moveToAnotherBuild();
  ASSERT_FALSE(static_cast<bool>(runCompileStage(options, "test", compiler)));
  EXPECT_EQ(written().status, Status::Crash);

  options.recordPath = dir + "/third/0.json";
  options.vmfbPath = dir + "/third/0.vmfb";
  ASSERT_FALSE(static_cast<bool>(runCompileStage(options, "test", compiler)));
  EXPECT_EQ(compiler.calls.size(), 3u) << "each failure tried again";
  EXPECT_EQ(written().status, Status::Ok);
}

TEST_F(IreeCompileStage, ExitZeroWithoutAModuleIsACompileError) {
  struct SilentCompiler : ProcessRunner {
    ChildOutcome run(StringRef, ArrayRef<std::string>, unsigned, unsigned,
                     StringRef logPath, ArrayRef<std::string>) override {
      llvm::cantFail(writeFileAtomic(logPath, ""));
      return ChildOutcome{};
    }
  } silent;
  ASSERT_FALSE(static_cast<bool>(runCompileStage(options, "test", silent)));
  CompileRecord record = written();
  EXPECT_EQ(record.status, Status::CompileError);
  EXPECT_NE(record.message.find("wrote no module"), std::string::npos);
}

} // namespace
