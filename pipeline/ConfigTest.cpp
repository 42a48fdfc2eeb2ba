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
  error = errorOf("[model]\npath = \"m.mlir\"\n[select]\nmargin = 2.0\n");
  EXPECT_NE(error.find("[select] margin must be a number from 0 to 0.9"),
            std::string::npos)
      << error;
  error = errorOf("[model]\npath = \"m.mlir\"\n[backend]\nkind = \"tvm\"\n");
  EXPECT_NE(error.find("[backend] kind must be one of: mlir-cpu"),
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
