//===- FakeBackendTest.cpp - The planner through a backend of the test's
//---===//
//
// A backend that needs neither MLIR nor IREE: it records what the planner
// asked and answers with its own tools, variables and edges. The planner's
// phases (dump, candidates, per-candidate edges, select, link, model,
// report), tune.toml validation and writePlan must work through the
// Backend interface alone.
//
//===----------------------------------------------------------------------===//
#include "pipeline/Backend.h"
#include "pipeline/Planner.h"

#include "stages/core/Records.h"
#include "stages/core/Testing.h"
#include "stages/support/FileUtil.h"
#include "stages/support/HashedFile.h"

#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

using namespace retune;
using namespace retune::pipeline;

namespace {

/// What the fake backend was asked, shared with the test.
struct FakeLog {
  unsigned prepared = 0;
  std::vector<std::string> candidateEdges;
  std::string prepareError;
  /// The compiler's version in its identity: a change is an upgrade.
  std::string compilerVersion = "fake-1";
};

class FakeBackend final : public Backend {
public:
  explicit FakeBackend(FakeLog &log) : log(log) {}

  StringRef name() const override { return "fake"; }
  BackendTraits traits() const override {
    BackendTraits traits;
    traits.slurmRefusal = "has no cluster";
    traits.verifiesWinners = true;
    return traits;
  }
  Error checkModel(const TuneConfig &) const override {
    return Error::success();
  }
  Expected<TuneConfig> prepare(const TuneConfig &config,
                               const PlannerPaths &) const override {
    ++log.prepared;
    if (!log.prepareError.empty())
      return makeError(log.prepareError);
    return config;
  }
  Expected<std::string> compilerIdentity(const TuneConfig &,
                                         const PlannerPaths &) const override {
    return "{\"schema\": \"retune.compiler-id/1\", \"id\": \"" +
           log.compilerVersion + "\"}\n";
  }
  std::vector<std::string> stageTools() const override {
    return {"fake-compile", "fake-bench"};
  }
  void writeVariables(NinjaWriter &w, const TuneConfig &) const override {
    w.variable("fake_flag", "--fast");
  }
  void writePools(NinjaWriter &w, const TuneConfig &) const override {
    w.pool("fake_device", 1);
  }
  ModelSteps planModelSteps(const TuneConfig &,
                            const PlannerPaths &) const override {
    ModelSteps steps;
    steps.modelChecks = {"fake/model_ok.json"};
    steps.dumpInputs = {"fake/dump_input"};
    return steps;
  }
  void writeModelSteps(NinjaWriter &w, const TuneConfig &) const override {
    w.build({{"fake/model_ok.json"}, {}, "fake_check", {"model"}, {}, {}, {}});
  }
  CandidatesEdgeParts candidatesEdge(const TuneConfig &, const PlannerPaths &,
                                     StringRef id) const override {
    CandidatesEdgeParts parts;
    parts.variables.push_back({"fake_dispatch", id.str()});
    return parts;
  }
  std::string writeCandidateEdges(NinjaWriter &w, const TuneConfig &,
                                  const DispatchEntry &d,
                                  const CandidateIndex &index,
                                  const DispatchRound &round,
                                  CandidateGraph &graph) const override {
    log.candidateEdges.push_back(d.id);
    std::vector<std::string> results;
    for (const CandidateEntry &c : index.candidates) {
      std::string result =
          round.resultsDir + "/" + std::to_string(c.index) + ".json";
      w.build({{result},
               {},
               "fake_run",
               {round.candidatesDir + "/" + c.file},
               {},
               {},
               {{"pool", "fake_device"}}});
      results.push_back(result);
      graph.compilesOf(round).push_back(result);
    }
    return writeSelectEdge(w, round, results);
  }

private:
  FakeLog &log;
};

class FakeBackendTest : public ::testing::Test {
protected:
  void SetUp() override {
    registerBackend("fake",
                    [this] { return std::make_unique<FakeBackend>(log); });
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("fakeplan", dir));
    config.configPath = "/repo/tune.toml";
    config.modelPath = "/repo/model.mlir";
    config.backend = "fake";
    config.candidates = 2;
    paths = {dir.str().str(), "/tools", "/rules"};
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  void writeIndexes() {
    DispatchIndex dispatches;
    dispatches.model = config.modelPath;
    dispatches.totalFlops = 2;
    dispatches.dispatches.push_back(
        {"d0", "mm_d0", "mm", 2, 1.0, 1, matmulProblem(8, 8, 8)});
    ASSERT_FALSE(static_cast<bool>(writeHashedJsonFile(
        (dir + "/dispatches/index.json").str(), toJson(dispatches))));
    ASSERT_FALSE(static_cast<bool>(writeHashedJsonFile(
        (dir + "/dispatches/d0/problem.json").str(),
        toJson(DispatchIndex{dispatches.model, 2, dispatches.dispatches}))));
    ASSERT_FALSE(static_cast<bool>(writeHashedFile(
        (dir + "/dispatches/d0/dispatch.mlir").str(), "module {}")));
    CandidateIndex candidates;
    candidates.dispatch = "d0";
    for (unsigned n = 0; n < 2; ++n)
      candidates.candidates.push_back(
          {n, std::to_string(n) + ".spec.mlir", {}, 1.0});
    ASSERT_FALSE(static_cast<bool>(writeHashedJsonFile(
        (dir + "/candidates/d0/index.json").str(), toJson(candidates))));
  }

  FakeLog log;
  llvm::SmallString<128> dir;
  TuneConfig config;
  PlannerPaths paths;
};

TEST_F(FakeBackendTest, TheRegistryNamesEveryBackend) {
  std::vector<std::string> names = backendNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "mlir-cpu"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "iree"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "fake"), names.end());
  Expected<std::unique_ptr<Backend>> missing = makeBackend("tpu");
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_NE(toString(missing.takeError()).find("known: mlir-cpu, iree"),
            std::string::npos);
}

TEST_F(FakeBackendTest, ConfigValidationAsksTheBackendsTraits) {
  Expected<TuneConfig> ok = parseConfig(
      "[model]\npath = \"m.mlir\"\n[backend]\nkind = \"fake\"\n", "/r/t.toml");
  ASSERT_TRUE(static_cast<bool>(ok)) << toString(ok.takeError());
  EXPECT_EQ(ok->backend, "fake");
  Expected<TuneConfig> table =
      parseConfig("[model]\npath = \"m.mlir\"\n[backend]\nkind = \"fake\"\n"
                  "[iree]\nrepetitions = 3\n",
                  "/r/t.toml");
  ASSERT_FALSE(static_cast<bool>(table));
  EXPECT_NE(toString(table.takeError())
                .find("[iree] is only used by [backend] kind = \"iree\" (this "
                      "config uses \"fake\")"),
            std::string::npos);
  Expected<TuneConfig> slurm =
      parseConfig("[model]\npath = \"m.mlir\"\n[backend]\nkind = \"fake\"\n"
                  "[cluster]\nkind = \"slurm\"\n",
                  "/r/t.toml");
  ASSERT_FALSE(static_cast<bool>(slurm));
  EXPECT_NE(toString(slurm.takeError()).find("the fake backend has no cluster"),
            std::string::npos);
  Expected<TuneConfig> onnx = parseConfig(
      "[model]\npath = \"m.onnx\"\n[backend]\nkind = \"fake\"\n", "/r/t.toml");
  ASSERT_FALSE(static_cast<bool>(onnx));
  EXPECT_NE(toString(onnx.takeError()).find("Set [backend] kind = \"iree\""),
            std::string::npos);
}

TEST_F(FakeBackendTest, FirstPlanHasTheBackendsModelStepsAndRules) {
  Expected<std::string> manifest = planManifest(config, paths);
  ASSERT_TRUE(static_cast<bool>(manifest)) << toString(manifest.takeError());
  for (const char *expected :
       {"fake_flag = --fast\n", "pool fake_device\n  depth = 1\n",
        "include /rules/fake.ninja\n",
        "build fake/model_ok.json: fake_check model\n",
        "build dispatches/index.json: dump /repo/model.mlir | compiler.id "
        "fake/dump_input\n",
        "/tools/retune-select /tools/retune-report /tools/fake-compile "
        "/tools/fake-bench"})
    EXPECT_NE(manifest->find(expected), std::string::npos) << expected;
  // The shared phases stay the planner's: no tool of another backend.
  EXPECT_EQ(manifest->find("retune-compile"), std::string::npos);
  EXPECT_EQ(manifest->find("retune-iree"), std::string::npos);
  EXPECT_TRUE(log.candidateEdges.empty());
}

TEST_F(FakeBackendTest, FullPlanAsksForEachDispatchsEdges) {
  writeIndexes();
  Expected<std::string> manifest = planManifest(config, paths);
  ASSERT_TRUE(static_cast<bool>(manifest)) << toString(manifest.takeError());
  EXPECT_EQ(log.candidateEdges, std::vector<std::string>{"d0"});
  for (const char *expected :
       {"build results/d0/1.json: fake_run candidates/d0/1.spec.mlir\n",
        "  fake_dispatch = d0\n",
        // Candidates wait for the backend's model check; the model step
        // reads it.
        "|| fake/model_ok.json",
        "build compiled: phony results/d0/0.json "
        "results/d0/1.json\n",
        "build spec/linked.mlir: link best/d0.json\n",
        "build tune: phony report/summary.json tuning_spec.mlir\n"})
    EXPECT_NE(manifest->find(expected), std::string::npos) << expected;
  size_t model = manifest->find("build model/result.json");
  ASSERT_NE(model, std::string::npos);
  EXPECT_NE(manifest->find("fake/model_ok.json", model), std::string::npos);
}

TEST_F(FakeBackendTest, WritePlanWritesTheBackendsIdentityAndARefusalNothing) {
  ASSERT_FALSE(static_cast<bool>(writePlan(config, paths)));
  EXPECT_EQ(log.prepared, 1u);
  Expected<std::string> id = readFile((dir + "/compiler.id").str());
  ASSERT_TRUE(static_cast<bool>(id));
  EXPECT_NE(id->find("fake-1"), std::string::npos);
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/build.ninja"));

  llvm::sys::fs::remove(dir + "/build.ninja");
  llvm::sys::fs::remove(dir + "/compiler.id");
  log.prepareError = "fake-compile 9.0 is not supported";
  Error err = writePlan(config, paths);
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_EQ(toString(std::move(err)), "fake-compile 9.0 is not supported");
  EXPECT_FALSE(llvm::sys::fs::exists(dir + "/build.ninja"));
  EXPECT_FALSE(llvm::sys::fs::exists(dir + "/compiler.id"));
}

TEST_F(FakeBackendTest, ACompilerChangeVerifiesThePreviousWinnerFirst) {
  writeIndexes();
  ASSERT_FALSE(static_cast<bool>(
      writeFileIfChanged((dir + "/candidates/d0/1.spec.mlir").str(), "spec 1")));
  SelectRecord best;
  best.dispatch = "d0";
  best.winner = 1;
  best.spec = "candidates/d0/1.spec.mlir";
  best.ratio = 0.5;
  ASSERT_FALSE(static_cast<bool>(
      writeJsonFile((dir + "/best/d0.json").str(), toJson(best))));
  // The first plan has nothing to compare with: no verify round.
  ASSERT_FALSE(static_cast<bool>(writePlan(config, paths)));
  EXPECT_FALSE(llvm::sys::fs::exists(dir + "/verify"));

  log.compilerVersion = "fake-2";
  ASSERT_FALSE(static_cast<bool>(writePlan(config, paths)));
  Expected<std::string> spec =
      readFile((dir + "/verify/d0/candidates/0.spec.mlir").str());
  ASSERT_TRUE(static_cast<bool>(spec)) << toString(spec.takeError());
  EXPECT_EQ(*spec, "spec 1");
  Expected<std::string> manifest = readFile((dir + "/build.ninja").str());
  ASSERT_TRUE(static_cast<bool>(manifest));
  for (const char *expected :
       {// The winner alone, measured in its own round...
        "build verify/d0/results/0.json: fake_run "
        "verify/d0/candidates/0.spec.mlir\n",
        "build verify/d0/best.json: select verify/d0/candidates/index.json | "
        "verify/d0/results/0.json\n",
        // ...whose benches do not wait for the search's compiles...
        "build verify_compiled: phony verify/d0/results/0.json\n",
        // ...before the candidates step decides whether to search.
        "build candidates/d0/index.json | candidates/d0/0.spec.mlir "
        "candidates/d0/1.spec.mlir: candidates dispatches/d0/problem.json | "
        "compiler.id verify/d0/best.json",
        "  verify_flag = --verified=verify/d0/best.json\n",
        // Written by the plan: a deleted one re-plans.
        "build verify/d0/candidates/index.json "
        "verify/d0/candidates/0.spec.mlir: phony\n"})
    EXPECT_NE(manifest->find(expected), std::string::npos) << expected;
  EXPECT_EQ(manifest->find("build compiled: phony verify"), std::string::npos);

  // Planning again with the same compiler keeps the round as it is.
  ASSERT_FALSE(static_cast<bool>(writePlan(config, paths)));
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/verify/d0/candidates/index.json"));

  // A damaged round is dropped, and the dispatch searched as usual.
  ASSERT_FALSE(static_cast<bool>(writeFileIfChanged(
      (dir + "/verify/d0/candidates/0.spec.mlir").str(), "edited")));
  Expected<std::string> replanned = planManifest(config, paths);
  ASSERT_TRUE(static_cast<bool>(replanned));
  EXPECT_EQ(replanned->find("verify/d0"), std::string::npos);
}

} // namespace
