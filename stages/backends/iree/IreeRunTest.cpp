//===- IreeRunTest.cpp - The iree backend driven against the fake tools ---===//
//
// dump -> problems, compile -> vmfb/record, bench -> samples, with the
// failures the fakes inject (tests/fakes, docs/iree-backend.md) becoming
// records, never aborts.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/IreeRun.h"
#include "stages/support/DeviceLock.h"

#include "stages/backends/iree/IreeReader.h"
#include "stages/backends/iree/IreeSpec.h"
#include "stages/backends/iree/TestUtil.h"
#include "stages/core/Selection.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <gtest/gtest.h>

using namespace retune;
using namespace retune::iree;
using namespace retune::iree::testing;

namespace {

class IreeFakes : public ::testing::Test {
protected:
  void SetUp() override {
    unsetenv("FAKE_IREE_VERSION");
    unsetenv("FAKE_IREE_COMPILE");
    unsetenv("FAKE_IREE_BENCH");
    dir = scratchDir("run");
    auto found = findIreeTools({"", "", "", RETUNE_FAKES_DIR});
    ASSERT_TRUE(static_cast<bool>(found)) << llvm::toString(found.takeError());
    tools = *found;
    model = path("model.mlir");
    llvm::cantFail(writeFileIfChanged(model, "func.func @main() {\n  return\n}\n"));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string path(llvm::StringRef name) {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }

  /// Dumps the example model and prepares dispatch `index`.
  std::string prepared(size_t index, IreeDispatch *out = nullptr) {
    auto files = runDump(tools, model, {"--iree-hal-target-device=hip"},
                         path("dump"), path("dump.log"));
    EXPECT_TRUE(static_cast<bool>(files)) << llvm::toString(files.takeError());
    std::string output = path("dispatch" + std::to_string(index) + ".mlir");
    auto dispatch = prepareDispatch(tools, (*files)[index], output,
                                    path("strip.log"));
    EXPECT_TRUE(static_cast<bool>(dispatch))
        << llvm::toString(dispatch.takeError());
    if (out && dispatch)
      *out = *dispatch;
    return output;
  }

  std::string writeSpec(llvm::StringRef name, const std::string &text) {
    std::string p = path(name);
    llvm::cantFail(writeFileIfChanged(p, text));
    return p;
  }

  CompileRecord compile(const std::string &input, const std::string &spec,
                        llvm::StringRef name, unsigned timeout = 30) {
    CompileRequest request;
    request.input = input;
    request.specPath = spec;
    request.vmfbPath = path(name.str() + ".vmfb");
    request.logPath = path(name.str() + ".compile.log");
    request.flags = {"--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"};
    request.timeoutSeconds = timeout;
    return compileCandidate(tools, request);
  }

  BenchOutcome bench(const std::string &vmfb, llvm::StringRef name,
                     unsigned timeout = 30) {
    BenchRequest request;
    request.vmfbPath = vmfb;
    request.device = "hip://0";
    request.repetitions = 3;
    request.jsonPath = path(name.str() + ".bench.json");
    request.logPath = path(name.str() + ".bench.log");
    request.timeoutSeconds = timeout;
    return runBenchmark(tools, request);
  }

  std::string specFor(const IreeDispatch &d, llvm::StringRef info,
                      llvm::StringRef suffix = "") {
    return emitTuningSpec(
        {SpecEntry{d.problem, info.str(), suffix.empty() ? d.funcName : suffix.str()}});
  }

  std::string dir, model;
  IreeTools tools;
};

TEST_F(IreeFakes, FindsToolsAndVersion) {
  EXPECT_EQ(tools.version.line, 11u);
  EXPECT_TRUE(llvm::StringRef(tools.compile).ends_with("iree-compile"));
  auto missing = findIreeTools({"/nonexistent/iree-compile", "", "", ""});
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("/nonexistent/iree-compile"),
            std::string::npos);
  setenv("FAKE_IREE_VERSION", "3.6.0", 1);
  auto old = findIreeTools({"", "", "", RETUNE_FAKES_DIR});
  ASSERT_FALSE(static_cast<bool>(old));
  EXPECT_NE(llvm::toString(old.takeError()).find("3.6.0 is not supported"),
            std::string::npos);
  // A pinned release is used without asking the compiler.
  auto pinned = findIreeTools({"", "", "", RETUNE_FAKES_DIR, "3.12.0rc20260801"});
  ASSERT_TRUE(static_cast<bool>(pinned)) << llvm::toString(pinned.takeError());
  EXPECT_EQ(pinned->version.line, 12u);
}

TEST_F(IreeFakes, DumpToProblems) {
  auto files = runDump(tools, model, {"--iree-hal-target-device=hip"},
                       path("dump"), path("dump.log"));
  ASSERT_TRUE(static_cast<bool>(files)) << llvm::toString(files.takeError());
  ASSERT_EQ(files->size(), 4u);
  std::vector<OpKind> kinds;
  for (auto [i, file] : llvm::enumerate(*files)) {
    std::string out = path("d" + std::to_string(i) + ".mlir");
    auto d = prepareDispatch(tools, file, out, path("strip.log"));
    ASSERT_TRUE(static_cast<bool>(d)) << llvm::toString(d.takeError());
    kinds.push_back(d->problem.kind);
    EXPECT_EQ(d->problem.target, "gfx942");
    std::string text = readTestFile(out);
    EXPECT_EQ(text.find("root_op"), std::string::npos);
    EXPECT_EQ(text.find("lowering_config"), std::string::npos);
    EXPECT_EQ(text.find("translation_info"), std::string::npos);
    EXPECT_NE(text.find("iree.benchmark = \"dispatch\""), std::string::npos);
  }
  EXPECT_EQ(kinds, (std::vector<OpKind>{OpKind::Contraction, OpKind::Convolution,
                                        OpKind::Attention, OpKind::Contraction}));
}

TEST_F(IreeFakes, OldReleaseSpellings) {
  setenv("FAKE_IREE_VERSION", "3.10.0", 1);
  tools = llvm::cantFail(findIreeTools({"", "", "", RETUNE_FAKES_DIR}));
  EXPECT_EQ(tools.version.line, 10u);
  IreeDispatch d;
  std::string file = prepared(0, &d);
  EXPECT_EQ(d.problem.stableId(), matmulTransposeB().stableId());
  EXPECT_NE(d.rootOpText.find("root_op}"), std::string::npos);
  EXPECT_EQ(readTestFile(file).find("root_op"), std::string::npos);
}

TEST_F(IreeFakes, CpuModel) {
  auto files = runDump(tools, model,
                       {"--iree-hal-target-device=local",
                        "--iree-hal-local-target-device-backends=llvm-cpu"},
                       path("dump"), path("dump.log"));
  ASSERT_TRUE(static_cast<bool>(files)) << llvm::toString(files.takeError());
  ASSERT_EQ(files->size(), 1u);
  auto d = prepareDispatch(tools, files->front(), path("cpu.mlir"), path("s.log"));
  ASSERT_TRUE(static_cast<bool>(d)) << llvm::toString(d.takeError());
  EXPECT_EQ(d->problem.target, "cpu:znver4");
}

TEST_F(IreeFakes, DumpFailureIsAnError) {
  llvm::cantFail(writeFileIfChanged(model, "// fake-iree: dump-error\n"));
  auto files = runDump(tools, model, {}, path("dump"), path("dump.log"));
  ASSERT_FALSE(static_cast<bool>(files));
  EXPECT_NE(llvm::toString(files.takeError()).find("torch.foo"), std::string::npos);
}

TEST_F(IreeFakes, CompileAndBench) {
  IreeDispatch d;
  std::string input = prepared(0, &d);
  // Baseline: the compiler's own heuristics, empty spec.
  std::string baselineSpec = writeSpec("baseline.mlir", emitEmptySpec());
  CompileRecord base = compile(input, baselineSpec, "baseline");
  ASSERT_EQ(base.status, Status::Ok) << base.message;
  EXPECT_FALSE(base.artifactHash.empty());
  BenchOutcome before = bench(base.artifact, "before");
  ASSERT_EQ(before.status, Status::Ok) << before.message;
  ASSERT_EQ(before.samplesUs.size(), 3u);
  EXPECT_NEAR(stats::median(before.samplesUs), 100.0, 1e-6);

  std::string fast = writeSpec(
      "fast.mlir", "// fake-iree: time=80\n" + specFor(d, "#iree_codegen.compilation_info<a>"));
  std::string slow = writeSpec(
      "slow.mlir", "// fake-iree: time=125\n" + specFor(d, "#iree_codegen.compilation_info<b>"));
  CompileRecord fastRecord = compile(input, fast, "fast");
  CompileRecord slowRecord = compile(input, slow, "slow");
  ASSERT_EQ(fastRecord.status, Status::Ok) << fastRecord.message;
  ASSERT_EQ(slowRecord.status, Status::Ok) << slowRecord.message;
  BenchOutcome after = bench(base.artifact, "after");
  std::vector<BenchRecord> records = {
      makeBenchRecord(bench(slowRecord.artifact, "slow"), before.samplesUs,
                      after.samplesUs),
      makeBenchRecord(bench(fastRecord.artifact, "fast"), before.samplesUs,
                      after.samplesUs)};
  EXPECT_NEAR(records[0].ratio, 1.25, 1e-9);
  EXPECT_NEAR(records[1].ratio, 0.80, 1e-9);
  EXPECT_NEAR(records[1].baselineMedian, 100.0, 1e-9);
  EXPECT_EQ(records[1].baselineSamples.size(), 6u);
  EXPECT_EQ(rankByRatio(records), (std::vector<size_t>{1, 0}));
}

TEST_F(IreeFakes, IdenticalModulesAreDeduplicated) {
  IreeDispatch d;
  std::string input = prepared(0, &d);
  std::string info = "#iree_codegen.compilation_info<same>";
  std::string a = writeSpec("a.mlir", specFor(d, info, "name_a"));
  std::string b = writeSpec("b.mlir", specFor(d, info, "name_b"));
  std::string c = writeSpec("c.mlir", specFor(d, "#iree_codegen.compilation_info<other>"));
  std::vector<CompileRecord> records = {compile(input, a, "a"), compile(input, b, "b"),
                                        compile(input, c, "c")};
  for (const CompileRecord &r : records)
    ASSERT_EQ(r.status, Status::Ok) << r.message;
  EXPECT_EQ(records[0].artifactHash, records[1].artifactHash);
  EXPECT_NE(records[0].artifactHash, records[2].artifactHash);
  auto firsts = findDuplicateArtifacts(records);
  EXPECT_EQ(firsts[0], std::optional<size_t>(0));
  EXPECT_EQ(firsts[1], std::optional<size_t>(0));
  EXPECT_EQ(firsts[2], std::optional<size_t>(2));
}

TEST_F(IreeFakes, InjectedCompileFailuresBecomeRecords) {
  IreeDispatch d;
  std::string input = prepared(0, &d);
  std::string spec = specFor(d, "#iree_codegen.compilation_info<x>");
  CompileRecord crash =
      compile(input, writeSpec("crash.mlir", "// fake-iree: compile-crash\n" + spec), "crash");
  EXPECT_EQ(crash.status, Status::Crash);
  EXPECT_NE(crash.message.find("crash reproducer: "), std::string::npos) << crash.message;
  EXPECT_TRUE(llvm::sys::fs::exists(path("crash.vmfb.crash.mlir")));
  CompileRecord error =
      compile(input, writeSpec("error.mlir", "// fake-iree: compile-error\n" + spec), "error");
  EXPECT_EQ(error.status, Status::CompileError);
  EXPECT_NE(error.message.find("failed to distribute"), std::string::npos);
  // The first error line leads, whatever the log's tail holds.
  EXPECT_TRUE(llvm::StringRef(error.message).starts_with(input + ":12:5: error:"))
      << error.message;
  CompileRecord none = compile(
      input, writeSpec("none.mlir", "// fake-iree: compile-no-output\n" + spec), "none");
  EXPECT_EQ(none.status, Status::CompileError);
  EXPECT_NE(none.message.find("wrote no module"), std::string::npos);
  CompileRecord hang = compile(
      input, writeSpec("hang.mlir", "// fake-iree: compile-hang\n" + spec), "hang", 1);
  EXPECT_EQ(hang.status, Status::Timeout);
  CompileRecord missingSpec = compile(input, path("nope.mlir"), "nospec");
  EXPECT_EQ(missingSpec.status, Status::CompileError);
  EXPECT_NE(missingSpec.message.find("failed to load tuning spec"), std::string::npos);
}

TEST_F(IreeFakes, InjectedBenchFailuresBecomeRecords) {
  IreeDispatch d;
  std::string input = prepared(0, &d);
  std::string spec = specFor(d, "#iree_codegen.compilation_info<x>");
  auto benchWith = [&](llvm::StringRef marker, unsigned timeout = 30) {
    std::string name = marker.str();
    CompileRecord r = compile(
        input, writeSpec(name + ".mlir", "// fake-iree: " + name + "\n" + spec), name);
    EXPECT_EQ(r.status, Status::Ok) << r.message;
    return bench(r.artifact, name, timeout);
  };
  BenchOutcome error = benchWith("bench-error");
  EXPECT_EQ(error.status, Status::BenchError);
  EXPECT_NE(error.message.find("hipErrorLaunchFailure"), std::string::npos);
  EXPECT_EQ(benchWith("bench-crash").status, Status::Crash);
  EXPECT_EQ(benchWith("bench-hang", 1).status, Status::Timeout);
  BenchOutcome bad = bench(path("missing.vmfb"), "missing");
  EXPECT_EQ(bad.status, Status::BenchError);
  EXPECT_NE(bad.message.find("not a valid VM module"), std::string::npos);
  BenchRecord record = makeBenchRecord(error, {100, 101}, {100, 102});
  EXPECT_EQ(record.status, Status::BenchError);
  EXPECT_EQ(rankByRatio({record, makeBenchRecord(BenchOutcome{Status::Ok, "", {90}, 0},
                                                 {100}, {100})}),
            (std::vector<size_t>{1, 0}));
}

TEST(IreeBenchJson, UnitsAggregatesAndErrors) {
  const char *json = R"({
  "context": {"date": "x"},
  "benchmarks": [
    {"name": "BM_main/process_time/real_time", "run_name": "BM_main/process_time/real_time",
     "run_type": "iteration", "repetitions": 2, "repetition_index": 0,
     "iterations": 10, "real_time": 1.5, "cpu_time": 0.1, "time_unit": "ms"},
    {"name": "BM_main/process_time/real_time", "run_type": "iteration",
     "iterations": 10, "real_time": 2500, "cpu_time": 0.1, "time_unit": "ns"},
    {"name": "BM_main/process_time/real_time_mean", "run_type": "aggregate",
     "aggregate_name": "mean", "aggregate_unit": "time", "real_time": 1.0, "time_unit": "ms"},
    {"name": "BM_main/process_time/real_time_cv", "run_type": "aggregate",
     "aggregate_name": "cv", "aggregate_unit": "percentage", "real_time": 0.02, "time_unit": "ms"}
  ]
})";
  BenchmarkRun run = llvm::cantFail(
      parseBenchmarkJson(std::string("some log line\n") + json, "t"));
  EXPECT_EQ(run.samplesUs, (std::vector<double>{1500.0, 2.5}));
  EXPECT_DOUBLE_EQ(run.aggregates["mean"], 1000.0);
  EXPECT_DOUBLE_EQ(run.aggregates["cv"], 0.02);
  EXPECT_TRUE(run.error.empty());

  const char *aggregatesOnly = R"({"benchmarks": [
    {"name": "BM_f_mean", "run_type": "aggregate", "aggregate_name": "mean",
     "aggregate_unit": "time", "real_time": 7, "time_unit": "us"}]})";
  EXPECT_EQ(llvm::cantFail(parseBenchmarkJson(aggregatesOnly, "t")).samplesUs,
            (std::vector<double>{7.0}));
  const char *failed = R"({"benchmarks": [
    {"name": "BM_f", "run_type": "iteration", "error_occurred": true,
     "error_message": "INTERNAL; CUDA driver error", "real_time": 0, "time_unit": "us"}]})";
  EXPECT_EQ(llvm::cantFail(parseBenchmarkJson(failed, "t")).error,
            "INTERNAL; CUDA driver error");
  EXPECT_FALSE(static_cast<bool>(parseBenchmarkJson("no json here", "t")));
}

TEST(IreeRank, BaselinePerDevice) {
  llvm::StringMap<std::vector<double>> perDevice;
  perDevice["hip://0"] = {100, 102};
  perDevice["hip://1"] = {};
  perDevice["hip://2"] = {200};
  EXPECT_EQ(baselineFor(perDevice, "hip://0"), (std::vector<double>{100, 102}));
  std::vector<double> pooled = baselineFor(perDevice, "hip://1");
  std::sort(pooled.begin(), pooled.end());
  EXPECT_EQ(pooled, (std::vector<double>{100, 102, 200}));
}

TEST(IreeHot, ByFlopsShareAndTopK) {
  std::vector<HotCandidate> candidates = {
      {"a", {"disp_a"}, 100, 1}, {"b", {"disp_b"}, 10, 2}, {"c", {"disp_c"}, 700, 1},
      {"d", {"disp_d"}, 5, 1}};
  HotSelection all = selectHotDispatches(candidates, {0.0, 0}, nullptr);
  EXPECT_EQ(all.selected, (std::vector<size_t>{2, 0, 1, 3}));
  EXPECT_NEAR(all.shares[2], 700.0 / 825.0, 1e-12);
  EXPECT_EQ(selectHotDispatches(candidates, {0.05, 0}, nullptr).selected,
            (std::vector<size_t>{2, 0}));
  EXPECT_EQ(selectHotDispatches(candidates, {0.0, 1}, nullptr).selected,
            (std::vector<size_t>{2}));
}

TEST(IreeHot, ByMeasuredTimeTimesCalls) {
  // b has few FLOPs but is slow and called often: time x calls ranks it
  // first. One untimed dispatch sends every share back to FLOPs x calls.
  std::vector<HotCandidate> candidates = {{"a", {"disp_a"}, 1000, 1, 10.0},
                                          {"b", {"disp_b"}, 10, 38, 5.0}};
  HotSelection timed = selectHotDispatches(candidates, {0.0, 0}, nullptr);
  EXPECT_EQ(timed.selected, (std::vector<size_t>{1, 0}));
  EXPECT_NEAR(timed.shares[1], 190.0 / 200.0, 1e-12);
  candidates[0].timeUs = 0;
  EXPECT_EQ(selectHotDispatches(candidates, {0.0, 0}, nullptr).selected,
            (std::vector<size_t>{0, 1}));
}

TEST(IreeHot, ByProfile) {
  auto profile = llvm::cantFail(readProfile(
      "# name microseconds [count]\n"
      "disp_a 50 4\n"
      "BM_disp_d/process_time/real_time 300\n",
      "profile.txt"));
  EXPECT_DOUBLE_EQ(profile["disp_a"], 200.0);
  std::vector<HotCandidate> candidates = {
      {"a", {"disp_a"}, 100, 1}, {"c", {"disp_c"}, 700, 1}, {"d", {"x", "disp_d"}, 5, 1}};
  HotSelection s = selectHotDispatches(candidates, {0.3, 0}, &profile);
  EXPECT_EQ(s.selected, (std::vector<size_t>{2, 0}));
  EXPECT_DOUBLE_EQ(s.shares[1], 0.0);
  auto bad = readProfile("disp_a fast\n", "profile.txt");
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("profile.txt:1"), std::string::npos);
}

TEST(IreeHot, ByTimeToGainWithAProfile) {
  // In the model, per run: a matmul of 2 GFLOP in 20 ms (100 GFLOP/s), a
  // softmax in 3 ms, and a small matmul of 0.1 GFLOP in 2 ms (50 GFLOP/s).
  auto profile = llvm::cantFail(readProfile(
      "mm 20000\nsoftmax 3000\nsmall_mm 2000\n", "profile.txt"));
  double peak = 125e9;
  std::vector<HotCandidate> candidates = {
      {"mm", {"mm"}, 1e9, 2, 0, peak},
      {"softmax", {"softmax"}, 1e6, 1, 0, 0},
      {"small_mm", {"small_mm"}, 1e8, 1, 0, peak}};
  HotSelection s = selectHotDispatches(candidates, {0.0, 2}, &profile);
  // The matmul at 80% of the peak has 4 ms to give back, the softmax all
  // of its 3 ms, the small matmul 1.2 ms.
  EXPECT_NEAR(s.shares[0], 20.0 / 25.0, 1e-12);
  EXPECT_NEAR(s.peakFractions[0], 0.8, 1e-12);
  EXPECT_NEAR(s.peakFlopsPerSecond[0], peak, 1);
  EXPECT_NEAR(s.gainShares[0], 4.0 / 25.0, 1e-12);
  EXPECT_EQ(s.peakFractions[1], 0.0);
  EXPECT_NEAR(s.gainShares[1], 3.0 / 25.0, 1e-12);
  EXPECT_NEAR(s.gainShares[2], 1.2 / 25.0, 1e-12);
  EXPECT_EQ(s.selected, (std::vector<size_t>{0, 1}));
  // A clock above the model's: the fastest rate is the peak, and the
  // others are measured against it.
  for (HotCandidate &c : candidates)
    if (c.peakFlopsPerSecond > 0)
      c.peakFlopsPerSecond = 80e9;
  s = selectHotDispatches(candidates, {0.0, 0}, &profile);
  EXPECT_NEAR(s.peakFractions[0], 1.0, 1e-12);
  EXPECT_NEAR(s.peakFractions[2], 0.5, 1e-12);
  // That peak is recorded, to judge other measurements of their time.
  EXPECT_NEAR(s.peakFlopsPerSecond[0], 100e9, 1);
  EXPECT_NEAR(s.peakFlopsPerSecond[2], 100e9, 1);
  EXPECT_EQ(s.peakFlopsPerSecond[1], 0.0);
  EXPECT_EQ(s.selected, (std::vector<size_t>{1, 2, 0}));
  // A rate beyond twice the peak is a miscount (of calls, of FLOPs): it
  // sets no peak, and its time stays to gain.
  candidates[2].flops = 1e9;
  s = selectHotDispatches(candidates, {0.0, 0}, &profile);
  EXPECT_EQ(s.peakFractions[2], 0.0);
  EXPECT_NEAR(s.peakFractions[0], 1.0, 1e-12);
  // Without a profile there is no time to gain.
  EXPECT_TRUE(selectHotDispatches(candidates, {}, nullptr).gainShares.empty());
}

} // namespace

namespace {

TEST_F(IreeFakes, ModelInterleaved) {
  std::string spec = writeSpec("model_spec.mlir", "// fake-iree: time=900\n" + emitEmptySpec());
  auto compileModel = [&](const std::string &specPath, llvm::StringRef name) {
    CompileRequest request;
    request.input = model;
    request.specPath = specPath;
    request.fromExecutableSources = false;
    request.vmfbPath = path(name.str() + ".vmfb");
    request.logPath = path(name.str() + ".log");
    request.flags = {"--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"};
    request.timeoutSeconds = 120;
    std::vector<std::string> args = compileArgs(tools.syntax(), request);
    EXPECT_EQ(std::count(args.begin(), args.end(), "--compile-from=executable-sources"), 0);
    // A compile with a spec runs on one thread (IREE can deadlock loading
    // a spec on a threaded compile); one without keeps IREE's threads.
    EXPECT_EQ(std::count(args.begin(), args.end(), "--mlir-disable-threading"),
              specPath.empty() ? 0 : 1);
    return compileCandidate(tools, request);
  };
  CompileRecord base = compileModel("", "base");
  CompileRecord tuned = compileModel(spec, "tuned");
  ASSERT_EQ(base.status, Status::Ok) << base.message;
  ASSERT_EQ(tuned.status, Status::Ok) << tuned.message;
  BenchRequest b{base.artifact, "hip://0", 2, "main", {"--input=1x4xf32=0"},
                 path("b.json"), path("b.log"), 30};
  auto requestFor = [&](const std::string &vmfb, llvm::StringRef name) {
    BenchRequest r = b;
    r.vmfbPath = vmfb;
    r.jsonPath = path(name.str() + ".json");
    r.logPath = path(name.str() + ".log");
    return r;
  };
  BenchRequest t = requestFor(tuned.artifact, "t");
  // Three builds in turn, one of which cannot run: the others keep their
  // rounds against the first; without the first nothing is compared.
  BenchRequest missing = requestFor(path("missing.vmfb"), "m");
  std::vector<BenchOutcome> three =
      benchRoundRobin(tools, {b, missing, t}, 3);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[0].runMediansUs.size(), 3u);
  EXPECT_NE(three[1].status, Status::Ok);
  EXPECT_EQ(three[1].runMediansUs.size(), 0u);
  EXPECT_EQ(three[2].status, Status::Ok) << three[2].message;
  EXPECT_EQ(three[2].runMediansUs.size(), 3u);
  for (unsigned round = 0; round < 3; ++round)
    EXPECT_TRUE(llvm::sys::fs::exists(path("t.log." + std::to_string(round))));
  std::vector<BenchOutcome> noReference =
      benchRoundRobin(tools, {missing, b, t}, 3);
  EXPECT_NE(noReference[0].status, Status::Ok);
  EXPECT_TRUE(noReference[1].runMediansUs.empty());
  EXPECT_TRUE(noReference[2].runMediansUs.empty());
  InterleavedOutcome outcome = benchInterleaved(tools, b, t, 3);
  ASSERT_EQ(outcome.baseline.status, Status::Ok) << outcome.baseline.message;
  ASSERT_EQ(outcome.tuned.status, Status::Ok) << outcome.tuned.message;
  EXPECT_EQ(outcome.baseline.samplesUs.size(), 6u);
  // One median per benchmark process: the model step's unit of evidence.
  ASSERT_EQ(outcome.tuned.runMediansUs.size(), 3u);
  EXPECT_NEAR(outcome.tuned.runMediansUs[0], 900.0, 15.0);
  // --function benchmarks report milliseconds; samples are microseconds.
  EXPECT_NEAR(stats::median(outcome.baseline.samplesUs), 1000.0, 15.0);
  EXPECT_NEAR(stats::median(outcome.tuned.samplesUs), 900.0, 15.0);
}

TEST(IreeSpecFiles, WriteVerifies) {
  std::string dir = scratchDir("spec");
  EXPECT_FALSE(static_cast<bool>(writeTuningSpec(dir + "/ok.mlir", emitEmptySpec())));
  llvm::Error err = writeTuningSpec(dir + "/bad.mlir", "module {\n}\n");
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("refusing"), std::string::npos);
  EXPECT_FALSE(llvm::sys::fs::exists(dir + "/bad.mlir"));
  llvm::sys::fs::remove_directories(dir);
}

} // namespace

namespace {
// What the real iree-benchmark-module 3.13 printed (testdata/fixtures/
// real-3.13/SOURCES.txt): dispatch benchmarks report µs, --function
// benchmarks ms; three repetitions and four aggregates each.
TEST(IreeBenchJson, RealOutputsOf313) {
  using retune::iree::testing::readTestFile;
  using retune::iree::testing::testdata;
  BenchmarkRun dispatch = llvm::cantFail(parseBenchmarkJson(
      readTestFile(testdata("fixtures/real-3.13/dispatch_benchmark_llvm_cpu.json")),
      "dispatch"));
  ASSERT_EQ(dispatch.samplesUs.size(), 3u);
  EXPECT_NEAR(dispatch.samplesUs[0], 4988.8695, 1e-3);
  EXPECT_NEAR(dispatch.aggregates["mean"], 4942.9417, 1e-3);
  EXPECT_TRUE(dispatch.error.empty());
  ASSERT_FALSE(dispatch.names.empty());
  EXPECT_EQ(llvm::StringRef(dispatch.names.front()).starts_with("BM_forward_dispatch_2_"), true);
  BenchmarkRun function = llvm::cantFail(parseBenchmarkJson(
      readTestFile(testdata("fixtures/real-3.13/function_benchmark_llvm_cpu.json")),
      "function"));
  ASSERT_EQ(function.samplesUs.size(), 3u);
  EXPECT_NEAR(function.samplesUs[1], 131849.5725, 1e-2); // ms -> µs
  EXPECT_EQ(function.names.front(), "BM_forward/process_time/real_time");
  // A dispatch benchmark of an sm_80 module on an H200 (the driver compiles
  // its PTX): five repetitions in µs, the same shape as on the CPU.
  BenchmarkRun cuda = llvm::cantFail(parseBenchmarkJson(
      readTestFile(testdata("fixtures/real-3.13/dispatch_benchmark_cuda_h200.json")), "cuda"));
  ASSERT_EQ(cuda.samplesUs.size(), 5u);
  EXPECT_NEAR(cuda.samplesUs[0], 85.4720, 1e-3);
  EXPECT_TRUE(cuda.error.empty());
  EXPECT_TRUE(llvm::StringRef(cuda.names.front()).contains("_cuda_nvptx_fb_"));
}

TEST(IreeBench, CpuDriversShareTheCpuLockAndGpusHaveTheirOwn) {
  EXPECT_EQ(deviceLockName("local-sync"), "cpu");
  EXPECT_EQ(deviceLockName("local-task"), "cpu");
  EXPECT_EQ(deviceLockName("hip://0"), "hip://0");
  EXPECT_NE(retune::DeviceLock::pathOf(deviceLockName("hip://0")),
            retune::DeviceLock::pathOf(deviceLockName("hip://1")));
}

TEST(IreeTools, RealVersionOutputOf313) {
  auto v = parseIreeVersion(retune::iree::testing::readTestFile(
      retune::iree::testing::testdata("fixtures/real-3.13/iree_compile_version.txt")));
  ASSERT_TRUE(static_cast<bool>(v)) << llvm::toString(v.takeError());
  EXPECT_EQ(v->line, 13u);
  EXPECT_EQ(v->text, "3.13.0rc20261016");
}
} // namespace

TEST(IreeBenchRecord, SameSamplesGiveTheSameRatioNoiseAndWinnerAsMlirCpu) {
  // The same times, as each backend's measurement turns them into records:
  // mlir-cpu's compareKernels summarizes its interleaved samples
  // (stats::summarizeSamples); iree's bench step builds the record from the
  // candidate's run and the baseline runs before and after it.
  std::vector<double> fast = {80, 83, 79, 85}, slow = {97, 99, 101, 96};
  std::vector<double> before = {100, 101}, after = {99, 102};
  std::vector<double> baseline = {100, 101, 99, 102};
  auto cpuRecord = [&](const std::vector<double> &samples) {
    BenchRecord record;
    record.samples = samples;
    record.baselineSamples = baseline;
    stats::summarizeSamples(record);
    return record;
  };
  auto ireeRecord = [&](const std::vector<double> &samples) {
    return makeBenchRecord(BenchOutcome{Status::Ok, "", samples, 0}, before,
                           after);
  };
  std::vector<select::Measured> cpu, iree;
  std::vector<std::vector<double>> candidates = {fast, slow};
  for (unsigned n = 0; n < candidates.size(); ++n) {
    BenchRecord c = cpuRecord(candidates[n]), i = ireeRecord(candidates[n]);
    EXPECT_DOUBLE_EQ(c.ratio, i.ratio);
    EXPECT_DOUBLE_EQ(c.noise, i.noise);
    EXPECT_DOUBLE_EQ(c.median, i.median);
    EXPECT_DOUBLE_EQ(c.baselineMedian, i.baselineMedian);
    cpu.push_back({n, c});
    iree.push_back({n, i});
  }
  select::Selection a = select::selectWinner(cpu, 0.02),
                    b = select::selectWinner(iree, 0.02);
  EXPECT_EQ(a.winner, b.winner);
  EXPECT_EQ(a.winner, std::optional<unsigned>(0));
  EXPECT_DOUBLE_EQ(a.requiredMargin, b.requiredMargin);
  EXPECT_EQ(a.reason, b.reason);
}

namespace {

TEST(IreeBenchRecord, ABaselineThatDriftedRanksAgainstItsFasterRunAlone) {
  // The machine sped up between the baseline's runs (25 ms before the
  // candidates, 14 ms after): a 15 ms candidate is no winner against the
  // baseline it would have had, whichever way the drift went.
  std::vector<double> slowRun = {25, 24.6, 25.3}, fastRun = {14, 14.2, 13.9};
  std::vector<double> candidate = {15, 15.1, 14.9};
  for (bool sped : {true, false}) {
    BenchRecord record =
        makeBenchRecord(BenchOutcome{Status::Ok, "", candidate, 0},
                        sped ? slowRun : fastRun, sped ? fastRun : slowRun);
    EXPECT_GT(record.ratio, 1.0) << record.message;
    EXPECT_DOUBLE_EQ(record.baselineMedian, 14);
    EXPECT_NE(record.message.find(sped ? "faster" : "slower"),
              std::string::npos)
        << record.message;
    std::vector<select::Measured> measured = {{0, record}};
    EXPECT_FALSE(select::selectWinner(measured, 0.02).winner);
  }
  // Within the limit both runs are the baseline, as before.
  BenchRecord steady = makeBenchRecord(
      BenchOutcome{Status::Ok, "", candidate, 0}, {20, 20.5}, {19, 19.5});
  EXPECT_EQ(steady.baselineSamples.size(), 4u);
  EXPECT_LT(steady.ratio, 0.8);
}

TEST(IreeBenchArgs, DispatchesAreBatchedOnSeveralWorkersOnly) {
  BenchRequest dispatch;
  dispatch.vmfbPath = "m.vmfb";
  dispatch.device = "local-task";
  std::vector<std::string> workers = {"--task_topology_group_count=2"};
  EXPECT_EQ(deviceBenchArgs(workers, dispatch),
            (std::vector<std::string>{"--task_topology_group_count=2",
                                      "--batch_size=16"}));
  // One worker: the dispatch's time is the same batched or not.
  dispatch.device = "local-sync";
  EXPECT_TRUE(deviceBenchArgs({}, dispatch).empty());
  // A whole model is one call, whatever the workers, on IREE's caching
  // allocator.
  BenchRequest model = dispatch;
  model.device = "local-task";
  model.function = "main_graph";
  EXPECT_EQ(deviceBenchArgs(workers, model),
            (std::vector<std::string>{"--task_topology_group_count=2",
                                      "--device_allocator=caching"}));
  model.device = "local-sync";
  EXPECT_EQ(deviceBenchArgs({}, model),
            (std::vector<std::string>{"--device_allocator=caching"}));
  // Not on a GPU, and not over the user's own allocator.
  model.device = "hip://0";
  EXPECT_TRUE(deviceBenchArgs({}, model).empty());
  model.device = "local-sync";
  model.flags = {"--device_allocator=default"};
  EXPECT_TRUE(deviceBenchArgs({}, model).empty());
  // The user's own batch stands.
  BenchRequest own = dispatch;
  own.device = "local-task";
  own.flags = {"--batch_size=4"};
  EXPECT_EQ(deviceBenchArgs(workers, own), workers);
}

TEST(IreeBenchArgs, DispatchBenchmarksOnThisCpuRunOnWrittenMemory) {
  BenchRequest dispatch;
  dispatch.vmfbPath = "m.vmfb";
  for (const char *device : {"local-sync", "local-task"}) {
    dispatch.device = device;
    EXPECT_EQ(benchEnvironment(dispatch),
              (std::vector<std::string>{"MALLOC_PERTURB_=255"}));
  }
  // A whole model writes its buffers itself; a GPU's are not the host's.
  BenchRequest model = dispatch;
  model.function = "main_graph";
  EXPECT_TRUE(benchEnvironment(model).empty());
  dispatch.device = "hip://0";
  EXPECT_TRUE(benchEnvironment(dispatch).empty());
}

TEST(IreeBenchArgs, EachSampleRunsATenthOfASecondUnlessTheFlagsSayOtherwise) {
  BenchRequest request;
  request.vmfbPath = "m.vmfb";
  request.device = "local-sync";
  request.repetitions = 5;
  std::vector<std::string> args = benchArgs(request);
  EXPECT_EQ(llvm::count(args, "--benchmark_min_time=0.1s"), 1);
  // A profile's exact count of calls, or the user's own time, stands.
  request.flags = {"--benchmark_min_time=10x"};
  args = benchArgs(request);
  EXPECT_EQ(llvm::count(args, "--benchmark_min_time=0.1s"), 0);
  EXPECT_EQ(llvm::count(args, "--benchmark_min_time=10x"), 1);
}

TEST(IreeBenchArgs, AWholeModelWarmsUpBeforeItsFirstSample) {
  BenchRequest dispatch;
  dispatch.vmfbPath = "m.vmfb";
  dispatch.device = "local-sync";
  EXPECT_EQ(llvm::count(benchArgs(dispatch), "--benchmark_min_warmup_time=0.1"),
            0);
  BenchRequest model = dispatch;
  model.function = "main_graph";
  EXPECT_EQ(llvm::count(benchArgs(model), "--benchmark_min_warmup_time=0.1"), 1);
  // A profile counts calls: its own "no warm-up" stands.
  model.flags = {"--benchmark_min_warmup_time=0"};
  std::vector<std::string> args = benchArgs(model);
  EXPECT_EQ(llvm::count(args, "--benchmark_min_warmup_time=0.1"), 0);
  EXPECT_EQ(llvm::count(args, "--benchmark_min_warmup_time=0"), 1);
}

} // namespace
