//===- CompileStageTest.cpp - The mlir-cpu compile stage's records --------===//
//
// The stage with its worker (retune-compile-worker) stood in for by a
// ProcessRunner: each test says how the worker ends, and checks what the
// stage makes of it.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/CompileStage.h"
#include "stages/core/Testing.h"
#include "stages/backends/mlircpu/CompileWorker.h"

#include "stages/core/Records.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::mlircpu;

namespace {

/// Ends the worker as scripted, writing what it would print to the log.
class ScriptedWorker : public ProcessRunner {
public:
  ChildOutcome outcome;
  std::string log;
  std::vector<std::vector<std::string>> calls;

  ChildOutcome run(llvm::StringRef program, llvm::ArrayRef<std::string> args,
                   unsigned timeoutSeconds, unsigned memoryMB,
                   llvm::StringRef logPath,
                   llvm::ArrayRef<std::string>) override {
    calls.emplace_back(args.begin(), args.end());
    llvm::cantFail(writeFileAtomic(logPath, log));
    return outcome;
  }
};

class MlirCpuCompileStage : public ::testing::Test {
protected:
  void SetUp() override {
    dir = test::scratchDir("mlircpu-compile-stage");
    ASSERT_FALSE(dir.empty());
    options.payloadPath = dir + "/dispatch.mlir";
    llvm::cantFail(writeFileAtomic(options.payloadPath, "module {}\n"));
    options.specPath = dir + "/0.spec.mlir";
    llvm::cantFail(writeFileAtomic(options.specPath, "// a spec\n"));
    options.outputPath = dir + "/0.so";
    options.recordPath = dir + "/0.json";
    options.compilerFlags = {"--retune-vector-width=256"};
    options.cacheDir = "off";
  }

  /// The record the stage wrote.
  CompileRecord written() {
    llvm::Expected<CompileRecord> record = readRecord<CompileRecord>(
        options.recordPath, schema::kCompile, compileRecordFromJson);
    EXPECT_TRUE(static_cast<bool>(record))
        << llvm::toString(record.takeError());
    return record ? *record : CompileRecord{};
  }

  bool has(llvm::StringRef arg) const {
    return !worker.calls.empty() && llvm::is_contained(worker.calls[0], arg);
  }

  std::string dir;
  CompileOptions options;
  ScriptedWorker worker;
};

TEST_F(MlirCpuCompileStage, TheWorkerGetsThePayloadTheSpecAndTheFlags) {
  worker.outcome.status = Status::Crash;
  ASSERT_FALSE(static_cast<bool>(runCompileStage(options, "test", worker)));
  ASSERT_EQ(worker.calls.size(), 1u);
  EXPECT_TRUE(has("--payload=" + options.payloadPath));
  EXPECT_TRUE(has("--spec=" + options.specPath));
  EXPECT_TRUE(has("--compiler-flag=--retune-vector-width=256"));
}

TEST_F(MlirCpuCompileStage, ACrashedWorkerIsACrashRecordNotAFailedStep) {
  worker.outcome.status = Status::Crash;
  worker.outcome.message = "killed by signal 11";
  worker.outcome.seconds = 1.5;
  ASSERT_FALSE(static_cast<bool>(runCompileStage(options, "test", worker)));
  CompileRecord record = written();
  EXPECT_EQ(record.status, Status::Crash);
  EXPECT_EQ(record.message, "killed by signal 11");
  EXPECT_FALSE(llvm::sys::fs::exists(options.outputPath));
}

TEST_F(MlirCpuCompileStage, AWorkerThatExitsWithoutARecordCrashed) {
  // Exit 0 and no record: the compiler died in a way the worker could not
  // report.
  ASSERT_FALSE(static_cast<bool>(runCompileStage(options, "test", worker)));
  CompileRecord record = written();
  EXPECT_EQ(record.status, Status::Crash);
  EXPECT_EQ(record.message, "the compiler exited without writing a record");
}

TEST_F(MlirCpuCompileStage, AnUnknownCompilerFlagFailsTheStepNotTheCandidate) {
  // Every candidate would fail alike: the invocation is broken.
  worker.outcome.status = Status::CompileError;
  worker.outcome.exitCode = kUnknownCompilerFlagExit;
  worker.log = "retune-compile-worker: unknown compiler flag "
               "'--retune-vector-width=256'\n";
  llvm::Error err = runCompileStage(options, "test", worker);
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("unknown compiler flag"),
            std::string::npos);
  EXPECT_FALSE(llvm::sys::fs::exists(options.recordPath));
}

} // namespace
