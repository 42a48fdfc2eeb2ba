#include "pipeline/Planner.h"

#include "pipeline/BuildState.h"
#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"
#include "stages/support/HashedFile.h"
#include "stages/core/Records.h"
#include "stages/core/Testing.h"

#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

#include <array>
#include <optional>
#include <tuple>


using namespace retune;
using namespace retune::pipeline;

namespace {

class PlannerTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("plan", dir));
    config.configPath = "/repo/tune.toml";
    config.modelPath = "/repo/model.mlir";
    config.candidates = 2;
    config.jobs = 3;
    paths = {dir.str().str(), "/tools", "/rules"};
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  /// aaaa (75% of the model) and bbbb (25%); with `gains`, each one's
  /// time to gain and FLOP rate over the peak, as a profiled dump writes.
  using Gains = std::array<std::pair<double, double>, 2>;
  void writeDispatches(std::optional<Gains> gains = std::nullopt) {
    DispatchIndex index;
    index.model = config.modelPath;
    index.totalFlops = 3;
    for (auto [id, share] : {std::pair<const char *, double>{"aaaa", 0.75},
                             {"bbbb", 0.25}}) {
      index.dispatches.push_back({id, std::string("mm_") + id, "mm", share * 3,
                                  share, 1, matmulProblem(64, 64, 64)});
      if (gains)
        std::tie(index.dispatches.back().gainShare,
                 index.dispatches.back().peakFraction) =
            (*gains)[index.dispatches.size() - 1];
    }
    ASSERT_FALSE(static_cast<bool>(writeHashedJsonFile(
        (dir + "/dispatches/index.json").str(), toJson(index))));
    for (const DispatchEntry &d : index.dispatches) {
      ASSERT_FALSE(static_cast<bool>(writeHashedJsonFile(
          (dir + "/dispatches/" + d.id + "/problem.json").str(),
          toJson(DispatchIndex{index.model, d.flops, {d}}))));
      ASSERT_FALSE(static_cast<bool>(writeHashedFile(
          (dir + "/dispatches/" + d.id + "/dispatch.mlir").str(), "module {}")));
    }
  }
  void writeCandidates(StringRef id, unsigned count) {
    CandidateIndex index;
    index.dispatch = id.str();
    for (unsigned n = 0; n < count; ++n)
      index.candidates.push_back({n, std::to_string(n) + ".spec.mlir", {}, 1.0});
    ASSERT_FALSE(static_cast<bool>(writeHashedJsonFile(
        (dir + "/candidates/" + id + "/index.json").str(), toJson(index))));
  }
  void useIree(StringRef version) {
    config.backend = "iree";
    config.iree.compile = "/ir/iree-compile";
    config.iree.opt = "/ir/iree-opt";
    config.iree.benchmark = "/ir/iree-benchmark-module";
    config.iree.version = version.str();
  }
  std::string plan() {
    Expected<std::string> manifest = planManifest(config, paths);
    if (!manifest) {
      ADD_FAILURE() << toString(manifest.takeError());
      return "";
    }
    return *manifest;
  }
  void expectGolden(StringRef name, const std::string &actual) {
    test::expectGolden("pipeline/testdata/" + name.str(), actual);
  }

  llvm::SmallString<128> dir;
  TuneConfig config;
  PlannerPaths paths;
};

TEST_F(PlannerTest, ValuesReachCommandLinesQuoted) {
  // Each of these used to end the quoting of the rule's command line.
  config.cacheDir = "/x'; touch /tmp/PWNED; '";
  config.modelPath = "/repo/it's $HOME.mlir";
  config.entry = "f;g";
  paths.toolDir = "/tools dir";
  std::string manifest = plan();
  EXPECT_NE(manifest.find(R"(cache_dir = '/x'\''; touch /tmp/PWNED; '\'''
)"),
            std::string::npos)
      << manifest;
  EXPECT_NE(manifest.find(R"(model_file = '/repo/it'\''s $$HOME.mlir'
)"),
            std::string::npos);
  EXPECT_NE(manifest.find("model_entry_flag = '--entry=f;g'\n"),
            std::string::npos);
  EXPECT_NE(manifest.find("retune_bin = '/tools dir'\n"), std::string::npos);
}

TEST_F(PlannerTest, AnEmptyDispatchIndexIsNothingToTuneOnEveryBackend) {
  // An all-garbage IREE dump used to end in exit 0 and an empty spec, the
  // CPU dump in exit 1: now the plan refuses both, and the dump runs again.
  for (const char *backend : {"mlir-cpu", "iree"}) {
    config.backend = backend;
    DispatchIndex empty;
    empty.model = config.modelPath;
    std::string path = (dir + "/dispatches/index.json").str();
    ASSERT_FALSE(static_cast<bool>(writeHashedJsonFile(path, toJson(empty))));
    Expected<std::string> manifest = planManifest(config, paths);
    ASSERT_FALSE(static_cast<bool>(manifest)) << backend;
    EXPECT_NE(toString(manifest.takeError()).find("nothing to tune"),
              std::string::npos);
    EXPECT_FALSE(llvm::sys::fs::exists(path)) << backend;
  }
}

TEST_F(PlannerTest, AGarbledSpecRedoesItsCandidates) {
  writeDispatches();
  CandidateIndex index;
  index.dispatch = "aaaa";
  index.candidates.push_back({0, "0.spec.mlir", {}, 1.0, blake3Hex("spec")});
  std::string indexPath = (dir + "/candidates/aaaa/index.json").str();
  ASSERT_FALSE(static_cast<bool>(writeHashedJsonFile(indexPath, toJson(index))));
  ASSERT_FALSE(static_cast<bool>(
      writeFileAtomic((dir + "/candidates/aaaa/0.spec.mlir").str(), "garbage")));
  std::string manifest = plan();
  EXPECT_FALSE(llvm::sys::fs::exists(indexPath));
  EXPECT_EQ(manifest.find("artifacts/aaaa/0.json"), std::string::npos);
}

TEST_F(PlannerTest, VerifyRemovesWhatIsDamagedAndSaysWhenToReplan) {
  writeDispatches();
  writeCandidates("aaaa", 0);
  std::string spec = (dir + "/tuning_spec.mlir").str();
  std::string compilerId = (dir + "/compiler.id").str();
  ASSERT_FALSE(static_cast<bool>(writeHashedFile(spec, "module {}\n")));
  ASSERT_FALSE(static_cast<bool>(writeHashedFile(compilerId, "{\"id\": 1}\n")));
  BuildCheck intact = verifyBuild(dir, {"tuning_spec.mlir"});
  EXPECT_EQ(intact.removed, 0u);
  EXPECT_FALSE(intact.replan);

  // A take-away file: its step reruns in this build, no re-plan.
  ASSERT_FALSE(static_cast<bool>(writeFileAtomic(spec, "module {} garbage\n")));
  BuildCheck takeaway = verifyBuild(dir, {"tuning_spec.mlir"});
  EXPECT_EQ(takeaway.removed, 1u);
  EXPECT_FALSE(takeaway.replan);
  EXPECT_FALSE(llvm::sys::fs::exists(spec));

  // compiler.id and the records the graph's shape comes from re-plan.
  ASSERT_FALSE(static_cast<bool>(writeFileAtomic(compilerId, "{\"id\": 2}\n")));
  ASSERT_FALSE(static_cast<bool>(
      writeFileAtomic((dir + "/candidates/aaaa/index.json").str(), "{}")));
  BuildCheck records = verifyBuild(dir, {});
  EXPECT_EQ(records.removed, 2u);
  EXPECT_TRUE(records.replan);
  EXPECT_FALSE(llvm::sys::fs::exists(compilerId));
  EXPECT_FALSE(llvm::sys::fs::exists(dir + "/candidates/aaaa/index.json"));
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/dispatches/index.json"));

  // A lost problem: the dump's index goes, so the dump runs again.
  llvm::sys::fs::remove(dir + "/dispatches/bbbb/problem.json");
  BuildCheck lost = verifyBuild(dir, {});
  EXPECT_TRUE(lost.replan);
  EXPECT_FALSE(llvm::sys::fs::exists(dir + "/dispatches/index.json"));
}

TEST_F(PlannerTest, ADamagedTakeawayOfTheFlagSearchRedoesItBeforeThePlan) {
  // The search's rewrite of the model is what the dump compiles: redone in
  // the build itself, it would come after a plan made from the choice it
  // replaces. Its record goes too, and the plan runs again.
  std::string rewrite = (dir + "/flags/rewritten.mlir").str();
  std::string chosen = (dir + "/flags/chosen.json").str();
  ASSERT_FALSE(static_cast<bool>(writeHashedFile(rewrite, "module {}\n")));
  ASSERT_FALSE(static_cast<bool>(writeFileAtomic(chosen, "{}\n")));
  StepBeforePlan search{"flags/chosen.json", {"flags/rewritten.mlir"}};
  BuildCheck intact = verifyBuild(dir, {}, search);
  EXPECT_EQ(intact.removed, 0u);
  EXPECT_FALSE(intact.replan);
  EXPECT_TRUE(llvm::sys::fs::exists(chosen));

  ASSERT_FALSE(static_cast<bool>(writeFileAtomic(rewrite, "module {\n")));
  BuildCheck damaged = verifyBuild(dir, {}, search);
  EXPECT_EQ(damaged.removed, 1u);
  EXPECT_TRUE(damaged.replan);
  EXPECT_FALSE(llvm::sys::fs::exists(rewrite));
  EXPECT_FALSE(llvm::sys::fs::exists(chosen));
}

TEST_F(PlannerTest, ADamagedConfiguredExecutableRedoesTheModelStep) {
  std::string spec = (dir + "/tuning_spec.mlir").str();
  std::string result = (dir + "/model/result.json").str();
  std::string executable = (dir + "/executables/main_dispatch_0.mlir").str();
  ASSERT_FALSE(static_cast<bool>(writeHashedFile(spec, "module {}\n")));
  ASSERT_FALSE(static_cast<bool>(writeFileAtomic(executable, "hal\n")));
  ModelRecord record;
  record.model = "model.mlir";
  record.executables.push_back(llvm::json::Object{
      {"dispatch", "aaaa"},
      {"executable", "main_dispatch_0"},
      {"file", "executables/main_dispatch_0.mlir"},
      {"blake3", blake3Hex("hal\n")}});
  ASSERT_FALSE(static_cast<bool>(writeHashedJsonFile(result, toJson(record))));
  EXPECT_EQ(verifyBuild(dir, {"tuning_spec.mlir"}).removed, 0u);

  ASSERT_FALSE(static_cast<bool>(writeFileAtomic(executable, "garbled\n")));
  BuildCheck damaged = verifyBuild(dir, {"tuning_spec.mlir"});
  EXPECT_EQ(damaged.removed, 1u);
  EXPECT_FALSE(damaged.replan);
  EXPECT_FALSE(llvm::sys::fs::exists(spec));
  EXPECT_FALSE(llvm::sys::fs::exists(result));
}

} // namespace

TEST_F(PlannerTest, FirstPlanOnlyDumps) {
  expectGolden("plan_phase1.ninja", plan());
}

TEST_F(PlannerTest, SecondPlanAddsCandidateEdges) {
  writeDispatches();
  std::string manifest = plan();
  EXPECT_EQ(manifest.find("rule compile"), std::string::npos);
  EXPECT_NE(manifest.find("build candidates/aaaa/index.json: candidates "
                          "dispatches/aaaa/problem.json"),
            std::string::npos);
  // Not complete yet: the phony targets wait for the next re-plan.
  EXPECT_NE(manifest.find("build tune: phony build.ninja"), std::string::npos);
}

TEST_F(PlannerTest, FullPlanHasOneCompileAndBenchPerCandidate) {
  writeDispatches();
  writeCandidates("aaaa", 2);
  writeCandidates("bbbb", 1);
  expectGolden("plan_full.ninja", plan());
}

TEST_F(PlannerTest, SlurmPlanLaunchesCompilesAndBenchesThroughSrun) {
  config.cluster.kind = "slurm";
  config.cluster.partition = "tune";
  config.cluster.account = "team's";
  config.cluster.cpus = 16;
  config.cluster.devices = 2;
  config.cluster.benchFlags = {"--exclusive"};
  config.threads = 2;
  writeDispatches();
  writeCandidates("aaaa", 2);
  writeCandidates("bbbb", 1);
  std::string manifest = plan();
  expectGolden("plan_slurm.ninja", manifest);
  // The same graph as a local plan: only the launchers and pool depths differ.
  config.cluster.kind = "local";
  std::string local = plan();
  EXPECT_EQ(local.find("srun"), std::string::npos);
  EXPECT_NE(local.find("pool device_cpu\n  depth = 1\n"), std::string::npos);
  EXPECT_NE(manifest.find("pool device_cpu\n  depth = 2\n"), std::string::npos);
  EXPECT_NE(manifest.find("pool compile\n  depth = 16\n"), std::string::npos);
  auto edges = [](const std::string &text) {
    return text.substr(text.find("include /rules/mlir-cpu.ninja"));
  };
  EXPECT_EQ(edges(manifest), edges(local));
}

TEST_F(PlannerTest, ColdDispatchesAreSkippedWithAReason) {
  config.minShare = 0.5;
  writeDispatches();
  std::string manifest = plan();
  size_t cold = manifest.find("build candidates/bbbb/index.json");
  ASSERT_NE(cold, std::string::npos);
  EXPECT_NE(manifest.find("skip_flag = --skip-reason='25.0% of the model'\\''s "
                          "FLOPs is below min_share 50.0%'",
                          cold),
            std::string::npos);
  size_t hot = manifest.find("build candidates/aaaa/index.json");
  EXPECT_NE(manifest.find("skip_flag = \n", hot), std::string::npos);
}

TEST_F(PlannerTest, TopKTakesTheDispatchesWithTheMostTimeToGain) {
  // aaaa is the hotter but runs at 97% of the CPU's peak: 2% of the
  // model's time to gain against bbbb's 20%.
  config.topK = 1;
  writeDispatches(Gains{{{0.02, 0.97}, {0.20, 0.2}}});
  std::string manifest = plan();
  size_t atPeak = manifest.find("build candidates/aaaa/index.json");
  ASSERT_NE(atPeak, std::string::npos);
  EXPECT_NE(manifest.find("skip_flag = --skip-reason='not among the 1 "
                          "dispatches with the most time to gain (top_k): it "
                          "runs at 97% of this CPU'\\''s peak FLOP rate in "
                          "the model'",
                          atPeak),
            std::string::npos);
  size_t gain = manifest.find("build candidates/bbbb/index.json");
  ASSERT_NE(gain, std::string::npos);
  EXPECT_LT(gain, atPeak); // listed first: Ninja starts it first
  EXPECT_NE(manifest.find("skip_flag = \n", gain), std::string::npos);
  // Without a profile's gains, the hottest is taken.
  writeDispatches();
  manifest = plan();
  EXPECT_NE(manifest.find("skip_flag = --skip-reason='not among the 1 "
                          "hottest dispatches (top_k)'",
                          manifest.find("build candidates/bbbb/index.json")),
            std::string::npos);
}

TEST_F(PlannerTest, StaleCandidateIndexOfAnotherDispatchIsIgnored) {
  writeDispatches();
  writeCandidates("aaaa", 2);
  CandidateIndex foreign;
  foreign.dispatch = "zzzz";
  ASSERT_FALSE(static_cast<bool>(
      writeJsonFile((dir + "/candidates/bbbb/index.json").str(), toJson(foreign))));
  std::string manifest = plan();
  EXPECT_EQ(manifest.find("best/bbbb.json"), std::string::npos);
  EXPECT_NE(manifest.find("build tune: phony build.ninja"), std::string::npos);
}

TEST_F(PlannerTest, IreePlanMeasuresBaselinesOnEveryDevice) {
  useIree("3.11.0");
  config.iree.compileFlags = {"--iree-hal-target-device=hip",
                              "--iree-rocm-target=gfx942"};
  config.iree.benchmarkFlags = {"--input=@in put.npy"};
  config.iree.devices = {"hip://0", "hip://1"};
  writeDispatches();
  writeCandidates("aaaa", 3);
  writeCandidates("bbbb", 0);
  std::string manifest = plan();
  expectGolden("plan_iree_two_devices.ninja", manifest);
  // Candidate n runs on device n mod 2, after that device's first baseline.
  EXPECT_NE(manifest.find("build measure/aaaa/1.json: bench "
                          "artifacts/aaaa/1.json | artifacts/aaaa/baseline.json "
                          "|| measure/aaaa/baseline.before.1.json\n"
                          "  pool = device_1"),
            std::string::npos);
  // A candidate is compared with the baseline's module (not_applied).
  EXPECT_NE(manifest.find("baseline_flag = "
                          "--baseline-record=artifacts/aaaa/baseline.json"),
            std::string::npos);
  // GPU devices measure while other candidates compile.
  EXPECT_EQ(manifest.find("|| compiled"), std::string::npos);
  EXPECT_NE(manifest.find("build measure/aaaa/baseline.after.0.json: bench "
                          "artifacts/aaaa/baseline.json | "
                          "measure/aaaa/0.json measure/aaaa/2.json\n"),
            std::string::npos);
}

TEST_F(PlannerTest, IreeThreadsRunEveryModuleOnThatManyWorkers) {
  useIree("3.13.0");
  config.threads = 2;
  config.iree.devices = {"local-task"};
  std::string manifest = plan();
  EXPECT_NE(manifest.find(" --device-flag=--task_topology_group_count=2\n"),
            std::string::npos)
      << manifest;
  // local-sync runs one thread: two are refused, naming the key.
  config.iree.devices = {"local-sync"};
  config.keyLines["tune.threads"] = 7;
  Expected<std::unique_ptr<Backend>> backend = makeBackend("iree");
  ASSERT_TRUE(static_cast<bool>(backend));
  Error err = (*backend)->checkModel(config);
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_NE(toString(std::move(err)).find("/repo/tune.toml:7: [tune] threads = "
                                          "2: device 'local-sync'"),
            std::string::npos);
}

TEST_F(PlannerTest, IreeBenchesOnTheHostCpuWaitForEveryCompile) {
  useIree("3.13.0");
  config.iree.devices = {"local-sync"};
  writeDispatches();
  writeCandidates("aaaa", 2);
  writeCandidates("bbbb", 0);
  std::string manifest = plan();
  // Compiles beside a bench on the same CPU spoil its samples.
  EXPECT_NE(manifest.find("build measure/aaaa/0.json: bench "
                          "artifacts/aaaa/0.json | artifacts/aaaa/baseline.json "
                          "|| measure/aaaa/baseline.before.0.json compiled\n"),
            std::string::npos)
      << manifest;
  EXPECT_NE(manifest.find("build measure/aaaa/baseline.before.0.json: bench "
                          "artifacts/aaaa/baseline.json || compiled\n"),
            std::string::npos)
      << manifest;
}
