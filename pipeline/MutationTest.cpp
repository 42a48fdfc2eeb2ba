//===- MutationTest.cpp - Bounded random mutation of every input reader ---===//
//
// A fuzz test that runs in CI: valid tune.toml texts and records are mutated
// with a fixed seed (bytes flipped, cut and inserted; JSON values replaced
// by hostile ones) a bounded number of times. Every reader must then either
// reject the input with an error or return a value that keeps its
// invariants: finite numbers in range, no control characters in values that
// reach command lines, no field silently read as 0.
//
//===----------------------------------------------------------------------===//
#include "pipeline/Config.h"
#include "stages/core/Records.h"
#include "stages/core/Testing.h"

#include "llvm/Support/FormatVariadic.h"
#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace retune;
using namespace retune::pipeline;

namespace {

constexpr unsigned kIterations = 20000;

/// Tokens a hostile user or a damaged disk puts where a value was.
const char *const kTokens[] = {"nan",   "inf",   "-inf", "-5",  "null", "\"abc\"",
                               "'",     "$",     "\n",   "1e999", "[",  "{",
                               "}",     "\"",    ";",    "0",   "-0",   "1e308",
                               "true",  "\"\"",  "[]",   "{}",  "0.5",  "\"a\nb\""};

class Mutator {
public:
  explicit Mutator(unsigned seed) : rng(seed) {}

  /// One to three byte-level edits of `text`.
  std::string bytes(std::string text) {
    for (unsigned n = pick(3) + 1; n > 0 && !text.empty(); --n) {
      size_t at = pick(text.size());
      switch (pick(4)) {
      case 0:
        text[at] = static_cast<char>(pick(256));
        break;
      case 1:
        text.erase(at, pick(16) + 1);
        break;
      case 2:
        text.insert(at, kTokens[pick(std::size(kTokens))]);
        break;
      default:
        text.resize(at); // truncated
      }
    }
    return text;
  }

  /// `value` with one member somewhere replaced by a hostile value or
  /// removed.
  void replaceOne(llvm::json::Value &value) {
    llvm::json::Object *object = value.getAsObject();
    llvm::json::Array *array = value.getAsArray();
    if (object && !object->empty()) {
      auto it = object->begin();
      std::advance(it, pick(object->size()));
      if (pick(3) == 0 && (it->second.getAsObject() || it->second.getAsArray()))
        return replaceOne(it->second);
      if (pick(5) == 0) {
        object->erase(it->first);
        return;
      }
      it->second = hostileValue();
      return;
    }
    if (array && !array->empty())
      return replaceOne((*array)[pick(array->size())]);
    value = hostileValue();
  }

  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); }

private:
  llvm::json::Value hostileValue() {
    switch (pick(7)) {
    case 0:
      return "abc";
    case 1:
      return nullptr;
    case 2:
      return -5;
    case 3:
      return 0;
    case 4:
      return llvm::json::Array{};
    case 5:
      return 1e308;
    default:
      return "a/../b";
    }
  }
  std::mt19937 rng;
};

bool finiteIn(double v, double lo, double hi) {
  return std::isfinite(v) && v >= lo && v <= hi;
}

bool oneLine(llvm::StringRef s) {
  return llvm::none_of(s, [](char c) { return static_cast<unsigned char>(c) < 0x20; });
}

bool plainName(llvm::StringRef s) {
  return !s.empty() && !s.contains('/') && s != "." && s != "..";
}

/// Reads mutated JSON texts and JSON values of `valid` with `parse`;
/// `invariant` checks what a successful parse returned.
template <typename T>
void mutateRecord(const llvm::json::Value &valid,
                  llvm::Expected<T> (*parse)(const llvm::json::Value &),
                  llvm::function_ref<void(const T &, const llvm::json::Value &)>
                      invariant) {
  Mutator mutator(12);
  std::string text = llvm::formatv("{0:2}", valid).str();
  for (unsigned i = 0; i < kIterations; ++i) {
    llvm::json::Value value = valid;
    if (i % 2) {
      mutator.replaceOne(value);
    } else {
      llvm::Expected<llvm::json::Value> parsed =
          llvm::json::parse(mutator.bytes(text));
      if (!parsed) {
        llvm::consumeError(parsed.takeError());
        continue;
      }
      value = std::move(*parsed);
    }
    llvm::Expected<T> record = parse(value);
    if (!record) {
      llvm::consumeError(record.takeError());
      continue;
    }
    invariant(*record, value);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "iteration " << i << ": " << llvm::formatv("{0:2}", value).str();
      return;
    }
  }
}

} // namespace

TEST(MutationTest, TuneToml) {
  const std::string valid = R"toml([model]
path = "model.mlir"
entry = "forward"
[tune]
candidates = 3
min_share = 0.1
[bench]
repetitions = 3
min_sample_s = 0.002
[select]
margin = 0.02
[cache]
dir = "cache"
)toml";
  Mutator mutator(7);
  for (unsigned i = 0; i < kIterations; ++i) {
    std::string text = mutator.bytes(valid);
    Expected<TuneConfig> config = parseConfig(text, "/repo/tune.toml");
    if (!config) {
      std::string message = toString(config.takeError());
      EXPECT_LT(message.size(), 2000u) << message.substr(0, 200);
      continue;
    }
    EXPECT_TRUE(finiteIn(config->margin, 0, 0.9)) << text;
    EXPECT_TRUE(finiteIn(config->minShare, 0, 1)) << text;
    EXPECT_TRUE(finiteIn(config->minSampleSeconds, 0, 60)) << text;
    EXPECT_GE(config->candidates, 1u) << text;
    for (const std::string *value :
         {&config->modelPath, &config->entry, &config->cacheDir})
      EXPECT_TRUE(oneLine(*value)) << text;
    if (::testing::Test::HasFailure())
      return;
  }
}

TEST(MutationTest, BenchRecord) {
  BenchRecord valid;
  valid.samples = {1e-3, 2e-3};
  valid.baselineSamples = {2e-3, 2e-3};
  valid.median = 1.5e-3;
  valid.baselineMedian = 2e-3;
  valid.ratio = 0.75;
  valid.noise = 0.01;
  mutateRecord<BenchRecord>(
      toJson(valid), benchRecordFromJson,
      [](const BenchRecord &r, const llvm::json::Value &v) {
        // The ratio read is the ratio written: never a default 0.
        EXPECT_EQ(v.getAsObject()->getNumber("ratio"), r.ratio);
        for (double d : {r.ratio, r.median, r.baselineMedian, r.noise,
                         r.maxError, r.seconds, r.startedAt})
          EXPECT_TRUE(finiteIn(d, 0, 1e308));
        for (const std::vector<double> *samples : {&r.samples, &r.baselineSamples})
          for (double d : *samples)
            EXPECT_TRUE(finiteIn(d, 0, 1e308));
      });
}

TEST(MutationTest, CompileRecord) {
  CompileRecord valid;
  valid.artifact = "artifacts/a/0.so";
  valid.artifactHash = "0123";
  valid.functions.push_back({"f", {{{4, 4}, "f32"}}, {{{4}, "f32"}}});
  mutateRecord<CompileRecord>(
      toJson(valid), compileRecordFromJson,
      [](const CompileRecord &r, const llvm::json::Value &) {
        if (r.status == Status::Ok) {
          EXPECT_FALSE(r.artifact.empty());
          EXPECT_FALSE(r.artifactHash.empty());
        }
        EXPECT_TRUE(finiteIn(r.seconds, 0, 1e308));
        for (const FuncSignature &f : r.functions)
          for (const TensorSpec &t : f.args)
            for (int64_t d : t.shape)
              EXPECT_GE(d, 0);
      });
}

TEST(MutationTest, DispatchIndex) {
  DispatchIndex valid;
  valid.model = "m.mlir";
  valid.totalFlops = 4;
  valid.dispatches.push_back(
      {"aaaa", "mm", "mm", 3, 0.75, 1, matmulProblem(8, 8, 8), "h"});
  valid.dispatches.push_back(
      {"bbbb", "mm2", "mm2", 1, 0.25, 2, matmulProblem(4, 4, 4), "h"});
  mutateRecord<DispatchIndex>(
      toJson(valid), dispatchIndexFromJson,
      [](const DispatchIndex &r, const llvm::json::Value &) {
        EXPECT_TRUE(finiteIn(r.totalFlops, 0, 1e308));
        for (const DispatchEntry &d : r.dispatches) {
          EXPECT_TRUE(finiteIn(d.share, 0, 1));
          EXPECT_TRUE(finiteIn(d.flops, 0, 1e308));
          EXPECT_GE(d.occurrences, 1u);
          EXPECT_TRUE(plainName(d.id)) << d.id;
        }
      });
}

TEST(MutationTest, CandidateIndex) {
  CandidateIndex valid;
  valid.dispatch = "aaaa";
  valid.totalSolutions = 10;
  valid.candidates.push_back({0, "0.spec.mlir", {}, 1.0, "h0"});
  valid.candidates.push_back({1, "1.spec.mlir", {}, 2.0, "h1"});
  mutateRecord<CandidateIndex>(
      toJson(valid), candidateIndexFromJson,
      [](const CandidateIndex &r, const llvm::json::Value &) {
        EXPECT_TRUE(plainName(r.dispatch)) << r.dispatch;
        std::set<unsigned> indexes;
        for (const CandidateEntry &c : r.candidates) {
          EXPECT_TRUE(plainName(c.file)) << c.file;
          EXPECT_TRUE(std::isfinite(c.cost));
          EXPECT_TRUE(indexes.insert(c.index).second);
        }
      });
}
