#include "pipeline/Config.h"

#include "gtest/gtest.h"

using namespace retune;
using namespace retune::pipeline;

static std::string errorOf(StringRef text) {
  Expected<TuneConfig> config = parseConfig(text, "/repo/tune.toml");
  if (config)
    return "";
  return toString(config.takeError());
}

TEST(ConfigTest, DefaultsAndRelativeModelPath) {
  Expected<TuneConfig> config =
      parseConfig("[model]\npath = \"m/model.mlir\"\n", "/repo/tune.toml");
  ASSERT_TRUE(static_cast<bool>(config)) << toString(config.takeError());
  EXPECT_EQ(config->modelPath, "/repo/m/model.mlir");
  EXPECT_EQ(config->backend, "mlir-cpu");
  EXPECT_EQ(config->candidates, 8u);
  EXPECT_EQ(config->threads, 1u);
  EXPECT_DOUBLE_EQ(config->margin, 0.02);
}

TEST(ConfigTest, EveryKeyIsRead) {
  Expected<TuneConfig> config = parseConfig(R"toml(
[model]
path = "/abs/model.mlir"
entry = "forward"
[backend]
kind = "mlir-cpu"
[tune]
candidates = 3
jobs = 4
threads = 2
min_share = 0.1
top_k = 5
budget = "1h30m"
[compile]
timeout_s = 10
memory_mb = 1024
[bench]
warmup = 1
repetitions = 7
min_sample_s = 0.5
timeout_s = 20
seed = 9
[select]
margin = 0.05
)toml",
                                            "/repo/tune.toml");
  ASSERT_TRUE(static_cast<bool>(config)) << toString(config.takeError());
  EXPECT_EQ(config->modelPath, "/abs/model.mlir");
  EXPECT_EQ(config->entry, "forward");
  EXPECT_EQ(config->candidates, 3u);
  EXPECT_EQ(config->jobs, 4u);
  EXPECT_EQ(config->threads, 2u);
  EXPECT_DOUBLE_EQ(config->minShare, 0.1);
  EXPECT_EQ(config->topK, 5u);
  EXPECT_DOUBLE_EQ(config->budgetSeconds, 5400);
  EXPECT_EQ(config->compileTimeout, 10u);
  EXPECT_EQ(config->compileMemoryMB, 1024u);
  EXPECT_EQ(config->warmup, 1u);
  EXPECT_EQ(config->repetitions, 7u);
  EXPECT_DOUBLE_EQ(config->minSampleSeconds, 0.5);
  EXPECT_EQ(config->benchTimeout, 20u);
  EXPECT_EQ(config->seed, 9u);
  EXPECT_DOUBLE_EQ(config->margin, 0.05);
}

TEST(ConfigTest, UnknownKeyNamesKeyAndLine) {
  std::string error =
      errorOf("[model]\npath = \"m.mlir\"\n[tune]\ncandidate = 3\n");
  EXPECT_NE(error.find("/repo/tune.toml:4:"), std::string::npos) << error;
  EXPECT_NE(error.find("unknown key 'candidate' in [tune]"), std::string::npos);
  EXPECT_NE(error.find("candidates"), std::string::npos) << "lists known keys";
}

TEST(ConfigTest, UnknownTableNamesLine) {
  std::string error = errorOf("[model]\npath = \"m.mlir\"\n\n[bnech]\n");
  EXPECT_NE(error.find("tune.toml:4: unknown table [bnech]"), std::string::npos)
      << error;
}

TEST(ConfigTest, BadValuesNameKeyLineAndRange) {
  std::string error = errorOf("[model]\npath = \"m.mlir\"\n[tune]\ncandidates = 0\n");
  EXPECT_NE(error.find("tune.toml:4: [tune] candidates must be an integer from 1"),
            std::string::npos)
      << error;
  error = errorOf("[model]\npath = \"m.mlir\"\n[tune]\nthreads = \"two\"\n");
  EXPECT_NE(error.find("tune.toml:4: [tune] threads"), std::string::npos) << error;
  error = errorOf("[model]\npath = \"m.mlir\"\n[tune]\nbudget = \"soon\"\n");
  EXPECT_NE(error.find("tune.toml:4: [tune] budget must be a duration such as \"90s\""),
            std::string::npos)
      << error;
  error = errorOf("[model]\npath = \"m.mlir\"\n[select]\nmargin = 2.0\n");
  EXPECT_NE(error.find("[select] margin must be a number from 0 to 0.9"),
            std::string::npos)
      << error;
  error = errorOf("[model]\npath = \"m.mlir\"\n[backend]\nkind = \"tvm\"\n");
  EXPECT_NE(error.find("[backend] kind must be one of: mlir-cpu"),
            std::string::npos)
      << error;
}

TEST(ConfigTest, ParametersDecideWhereAnImportedModelsWeightsGo) {
  auto configOf = [](StringRef text) {
    Expected<TuneConfig> config = parseConfig(text, "/repo/tune.toml");
    EXPECT_TRUE(static_cast<bool>(config)) << toString(config.takeError());
    return config ? *config : TuneConfig();
  };
  // "auto" goes by the ONNX file's size; a missing file stays inline.
  TuneConfig automatic = configOf("[model]\npath = \"m.onnx\"\n[backend]\nkind = \"iree\"\n");
  EXPECT_EQ(automatic.parameters, "auto");
  EXPECT_FALSE(automatic.externalParameters());
  EXPECT_TRUE(configOf("[backend]\nkind = \"iree\"\n[model]\npath = \"m.onnx\"\nparameters = \"external\"\n")
                  .externalParameters());
  // An .mlir model carries its weights as written: nothing to externalize.
  EXPECT_FALSE(configOf("[model]\npath = \"m.mlir\"\nparameters = \"external\"\n")
                   .externalParameters());
  std::string error =
      errorOf("[model]\npath = \"m.onnx\"\nparameters = \"somewhere\"\n[backend]\nkind = \"iree\"\n");
  EXPECT_NE(error.find("tune.toml:3: [model] parameters must be one of: auto, "
                       "external, inline"),
            std::string::npos)
      << error;
}

TEST(ConfigTest, SyntaxErrorNamesLine) {
  std::string error = errorOf("[model]\npath = \"m.mlir\"\n[tune\n");
  EXPECT_NE(error.find("tune.toml:3:"), std::string::npos) << error;
  EXPECT_NE(error.find("invalid TOML"), std::string::npos);
}

TEST(ConfigTest, ModelIsRequired) {
  EXPECT_NE(errorOf("[tune]\ncandidates = 2\n").find("[model] path is required"),
            std::string::npos);
}

TEST(ConfigTest, IreeAndGpuTables) {
  Expected<TuneConfig> config = parseConfig(R"toml(
[model]
path = "model.mlir"
[backend]
kind = "iree"
[iree]
iree_compile = "bin/iree-compile"
iree_opt = "iree-opt"
tools_dir = "tools"
version = "3.11.0"
compile_flags = ["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"]
benchmark_flags = ["--input=1xf32"]
devices = ["hip://0", "hip://1"]
repetitions = 4
model_rounds = 2
rewrite_model = false
dump_timeout_s = 60
profile = "profile.txt"
min_share = 0.05
top_k = 3
[gpu]
order = "shuffle"
seed = 7
)toml",
                                            "/repo/tune.toml");
  ASSERT_TRUE(static_cast<bool>(config)) << toString(config.takeError());
  const IreeConfig &i = config->iree;
  EXPECT_EQ(config->backend, "iree");
  EXPECT_EQ(i.compile, "/repo/bin/iree-compile");
  EXPECT_EQ(i.opt, "iree-opt"); // a bare name: looked up on PATH
  EXPECT_EQ(i.toolsDir, "/repo/tools");
  EXPECT_EQ(i.profile, "/repo/profile.txt");
  EXPECT_EQ(i.devices, (std::vector<std::string>{"hip://0", "hip://1"}));
  EXPECT_EQ(i.compileFlags.size(), 2u);
  EXPECT_EQ(i.repetitions, 4u);
  EXPECT_EQ(i.modelRounds, 2u);
  EXPECT_FALSE(i.rewriteModel);
  EXPECT_EQ(i.dumpTimeout, 60u);
  EXPECT_DOUBLE_EQ(config->minShare, 0.05);
  EXPECT_EQ(config->topK, 3u);
  EXPECT_NE(config->gpuTable.find("[gpu]"), std::string::npos);
  EXPECT_NE(config->gpuTable.find("shuffle"), std::string::npos);
}

TEST(ConfigTest, IreeErrorsNameFileLineAndKey) {
  std::string head = "[model]\npath = \"m.mlir\"\n[backend]\nkind = \"iree\"\n";
  EXPECT_EQ(errorOf(head + "[iree]\ndevices = []\n"),
            "/repo/tune.toml:6: [iree] devices must be a non-empty array of "
            "non-empty one-line strings");
  EXPECT_EQ(errorOf(head + "[iree]\nrewrite_model = \"yes\"\n"),
            "/repo/tune.toml:6: [iree] rewrite_model must be true or false");
  EXPECT_EQ(errorOf(head + "[iree]\ncompile_flags = [\"a\", 3]\n"),
            "/repo/tune.toml:6: [iree] compile_flags must be an array of "
            "non-empty one-line strings");
  EXPECT_NE(errorOf(head + "[iree]\ndevice = [\"hip://0\"]\n")
                .find("/repo/tune.toml:6: unknown key 'device' in [iree]"),
            std::string::npos);
  EXPECT_NE(errorOf(head + "[gpu]\norder = \"best\"\n").find("/repo/tune.toml:6"),
            std::string::npos);
  EXPECT_EQ(errorOf(head + "[tune]\ntop_k = 2\n[iree]\ntop_k = 3\n"),
            "/repo/tune.toml:8: [iree] top_k is also set in [tune] (line 6); "
            "set it in one place");
  EXPECT_NE(errorOf("[model]\npath = \"m.mlir\"\n[iree]\nrepetitions = 2\n")
                .find("/repo/tune.toml:3: [iree] is only used by [backend] "
                      "kind = \"iree\""),
            std::string::npos);
}

TEST(ConfigTest, NonFiniteNumbersAreRejected) {
  // nan compares false to both bounds: it used to pass the range check.
  std::string head = "[model]\npath = \"m.mlir\"\n";
  EXPECT_EQ(errorOf(head + "[select]\nmargin = nan\n"),
            "/repo/tune.toml:4: [select] margin must be a number from 0 to 0.9");
  EXPECT_EQ(errorOf(head + "[bench]\nmin_sample_s = inf\n"),
            "/repo/tune.toml:4: [bench] min_sample_s must be a number from 0 "
            "to 60");
  EXPECT_EQ(errorOf(head + "[tune]\nmin_share = -nan\n"),
            "/repo/tune.toml:4: [tune] min_share must be a number from 0 to 1");
}

TEST(ConfigTest, NewlinesCannotReachACommandLine) {
  EXPECT_EQ(errorOf("[model]\npath = \"m.mlir\"\nentry = \"f\\nx\"\n"),
            "/repo/tune.toml:3: [model] entry must be a non-empty string on "
            "one line");
  EXPECT_EQ(errorOf("[model]\npath = \"m.mlir\"\n[cache]\ndir = \"\"\"\na\nb\"\"\"\n"),
            "/repo/tune.toml:4: [cache] dir must be a non-empty string on one "
            "line");
}

TEST(ConfigTest, AHugeUnknownKeyIsNotEchoedWhole) {
  std::string key(1 << 20, 'k');
  std::string error = errorOf("[model]\npath = \"m.mlir\"\n" + key + " = 1\n");
  EXPECT_LT(error.size(), 400u) << error.substr(0, 200);
  EXPECT_NE(error.find("unknown key 'kkkk"), std::string::npos) << error.substr(0, 200);
  EXPECT_NE(error.find("(1048576 bytes)"), std::string::npos);
}

TEST(ConfigTest, KeyLinesAreRemembered) {
  Expected<TuneConfig> config = parseConfig(
      "[model]\npath = \"m.mlir\"\n\nentry = \"f\"\n", "/repo/tune.toml");
  ASSERT_TRUE(static_cast<bool>(config)) << toString(config.takeError());
  EXPECT_EQ(config->where("model.entry"), "/repo/tune.toml:4: ");
  EXPECT_EQ(config->where("cache.dir"), "/repo/tune.toml: ");
}

TEST(ConfigTest, ClusterTable) {
  Expected<TuneConfig> config = parseConfig(R"toml(
[model]
path = "model.mlir"
[cluster]
kind = "slurm"
partition = "gpu nodes"
account = "ml"
gres = "cpubench"
cpus = 64
devices = 8
compile_time_min = 3
bench_time_min = 4
model_time_min = 30
compile_flags = ["--mem=4G"]
bench_flags = ["--exclusive", "--constraint=mi300"]
)toml",
                                            "/repo/tune.toml");
  ASSERT_TRUE(static_cast<bool>(config)) << toString(config.takeError());
  const ClusterConfig &k = config->cluster;
  EXPECT_TRUE(k.isSlurm());
  EXPECT_EQ(k.partition, "gpu nodes");
  EXPECT_EQ(k.account, "ml");
  EXPECT_EQ(k.gres, "cpubench");
  EXPECT_EQ(k.cpus, 64u);
  EXPECT_EQ(k.devices, 8u);
  EXPECT_EQ(k.compileTimeMin, 3u);
  EXPECT_EQ(k.benchTimeMin, 4u);
  EXPECT_EQ(k.modelTimeMin, 30u);
  EXPECT_EQ(k.compileFlags, (std::vector<std::string>{"--mem=4G"}));
  EXPECT_EQ(k.benchFlags.size(), 2u);
  // Without the table every step runs here.
  Expected<TuneConfig> local =
      parseConfig("[model]\npath = \"m.mlir\"\n", "/repo/tune.toml");
  ASSERT_TRUE(static_cast<bool>(local));
  EXPECT_FALSE(local->cluster.isSlurm());
}

TEST(ConfigTest, ClusterErrorsNameFileLineAndKey) {
  std::string head = "[model]\npath = \"m.mlir\"\n[cluster]\n";
  EXPECT_EQ(errorOf(head + "kind = \"pbs\"\n"),
            "/repo/tune.toml:4: [cluster] kind must be one of: local, slurm");
  EXPECT_EQ(errorOf(head + "kind = \"slurm\"\ndevices = 0\n"),
            "/repo/tune.toml:5: [cluster] devices must be an integer from 1 "
            "to 100000");
  EXPECT_EQ(errorOf(head + "kind = \"slurm\"\ngres = \"gpu:2\"\n"),
            "/repo/tune.toml:5: [cluster] gres must be a GRES name (letters, "
            "digits, '_', '-'), like \"gpu\"; got \"gpu:2\"");
  EXPECT_NE(errorOf(head + "kind = \"slurm\"\nnodes = 2\n")
                .find("/repo/tune.toml:5: unknown key 'nodes' in [cluster]"),
            std::string::npos);
  EXPECT_NE(errorOf("[model]\npath = \"m.mlir\"\n[backend]\nkind = \"iree\"\n" +
                    std::string("[cluster]\nkind = \"slurm\"\n"))
                .find("/repo/tune.toml:6: [cluster] kind = \"slurm\" runs the "
                      "mlir-cpu backend's steps"),
            std::string::npos);
}

TEST(ConfigTest, SearchTableIsReadForMlirCpuOnly) {
  Expected<TuneConfig> config = parseConfig(
      "[model]\npath = \"m.mlir\"\n[search]\nranker = \"models/r.json\"\n"
      "explore = 4\n",
      "/repo/tune.toml");
  ASSERT_TRUE(static_cast<bool>(config)) << toString(config.takeError());
  EXPECT_EQ(config->search.ranker, "/repo/models/r.json");
  EXPECT_EQ(config->search.explore, 4u);
  EXPECT_EQ(config->keyLines.at("search.ranker"), 4u);
  EXPECT_EQ(errorOf("[model]\npath = \"m.mlir\"\n[search]\nexplore = -1\n"),
            "/repo/tune.toml:4: [search] explore must be an integer from 0 "
            "to 100000");
  EXPECT_NE(errorOf("[model]\npath = \"m.mlir\"\n[backend]\nkind = \"iree\"\n"
                    "[search]\nexplore = 1\n")
                .find("[search] is only used by [backend] kind = \"mlir-cpu\""),
            std::string::npos);
}
