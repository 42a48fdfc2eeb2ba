//===- Options.cpp - The [gpu] table of tune.toml -------------------------===//
#include "stages/search/gpu/Options.h"

#include "stages/support/FileUtil.h"

namespace retune::gpu {

StringRef toString(Ordering ordering) {
  switch (ordering) {
  case Ordering::Auto:
    return "auto";
  case Ordering::NearCompiler:
    return "near_compiler";
  case Ordering::Heuristic:
    return "heuristic";
  case Ordering::Estimate:
    return "estimate";
  case Ordering::Shuffle:
    return "shuffle";
  case Ordering::Enumeration:
    return "enumeration";
  }
  llvm_unreachable("unknown ordering");
}

namespace {

/// Reads one key; every error names file, line and key.
class TableReader {
public:
  TableReader(StringRef fileName) : fileName(fileName) {}

  Error fail(const toml::node &node, StringRef key, const Twine &what) {
    return makeError(fileName + ":" + Twine(node.source().begin.line) + ": [gpu] " + key + ": " +
                     what);
  }

  Error ints(const toml::node &node, StringRef key, SmallVector<int64_t> &out, int64_t lo,
             int64_t hi) {
    const toml::array *array = node.as_array();
    if (!array)
      return fail(node, key, "expected an array of integers");
    out.clear();
    for (const toml::node &item : *array) {
      std::optional<int64_t> value = item.value<int64_t>();
      if (!value || *value < lo || *value > hi)
        return fail(item, key, "expected integers in [" + Twine(lo) + ", " + Twine(hi) + "]");
      out.push_back(*value);
    }
    if (out.empty())
      return fail(node, key, "needs at least one value");
    return Error::success();
  }

  Error bools(const toml::node &node, StringRef key, SmallVector<bool> &out, bool allowEmpty) {
    const toml::array *array = node.as_array();
    if (!array)
      return fail(node, key, "expected an array of booleans");
    out.clear();
    for (const toml::node &item : *array) {
      std::optional<bool> value = item.value<bool>();
      if (!value)
        return fail(item, key, "expected booleans");
      out.push_back(*value);
    }
    if (out.empty() && !allowEmpty)
      return fail(node, key, "needs at least one value");
    return Error::success();
  }

  Expected<std::string> string(const toml::node &node, StringRef key) {
    std::optional<std::string> value = node.value<std::string>();
    if (!value)
      return fail(node, key, "expected a string");
    return *value;
  }

  Expected<int64_t> integer(const toml::node &node, StringRef key, int64_t lo) {
    std::optional<int64_t> value = node.value<int64_t>();
    if (!value || *value < lo)
      return fail(node, key, "expected an integer >= " + Twine(lo));
    return *value;
  }

private:
  StringRef fileName;
};

} // namespace

Expected<GpuSearchOptions> parseGpuOptions(const toml::table &table, StringRef fileName) {
  GpuSearchOptions options;
  TableReader reader(fileName);
  for (const auto &[tomlKey, node] : table) {
    StringRef key(tomlKey.str().data(), tomlKey.str().size());
    auto badChoice = [&](StringRef value, StringRef choices) {
      return reader.fail(node, key, "unknown value '" + value + "' (expected " + choices + ")");
    };
    if (key == "pipelines") {
      const toml::array *array = node.as_array();
      if (!array || array->empty())
        return reader.fail(node, key, "expected a non-empty array of pipeline names");
      options.pipelines.clear();
      for (const toml::node &item : *array) {
        std::optional<std::string> name = item.value<std::string>();
        if (name && *name == "vector_distribute")
          options.pipelines.push_back(Pipeline::VectorDistribute);
        else if (name && *name == "tile_and_fuse")
          options.pipelines.push_back(Pipeline::TileAndFuse);
        else
          return reader.fail(item, key, "expected \"vector_distribute\" or \"tile_and_fuse\"");
      }
    } else if (key == "prefetch_stages") {
      if (Error e = reader.ints(node, key, options.prefetchStages, 0, 8))
        return std::move(e);
    } else if (key == "waves_per_eu") {
      if (Error e = reader.ints(node, key, options.wavesPerEu, 1, 10))
        return std::move(e);
    } else if (key == "no_reduce_shared_memory_bank_conflicts") {
      if (Error e = reader.bools(node, key, options.noReduceBankConflicts, true))
        return std::move(e);
    } else if (key == "denormal_flushing") {
      if (Error e = reader.bools(node, key, options.denormalFlushing, false))
        return std::move(e);
    } else if (key == "num_subgroups") {
      std::optional<int64_t> value = node.value<int64_t>();
      if (!value || (*value != -1 && (*value < 1 || *value > 32)))
        return reader.fail(node, key, "expected -1 (any of 1..10) or a count in 1..32");
      options.numSubgroups = *value;
    } else if (key == "conv_strategy") {
      Expected<std::string> value = reader.string(node, key);
      if (!value)
        return value.takeError();
      if (*value == "igemm")
        options.convStrategy = ConvStrategy::Igemm;
      else if (*value == "direct")
        options.convStrategy = ConvStrategy::Direct;
      else if (*value == "both")
        options.convStrategy = ConvStrategy::Both;
      else
        return badChoice(*value, "igemm, direct or both");
    } else if (key == "order") {
      Expected<std::string> value = reader.string(node, key);
      if (!value)
        return value.takeError();
      bool found = false;
      for (Ordering o : {Ordering::Auto, Ordering::Heuristic, Ordering::Estimate,
                         Ordering::NearCompiler, Ordering::Shuffle, Ordering::Enumeration})
        if (*value == toString(o)) {
          options.ordering = o;
          found = true;
        }
      if (!found)
        return badChoice(*value, "auto, heuristic, estimate, near_compiler, shuffle or enumeration");
    } else if (key == "seed") {
      Expected<int64_t> value = reader.integer(node, key, 0);
      if (!value)
        return value.takeError();
      options.seed = static_cast<uint64_t>(*value);
    } else if (key == "engine") {
      Expected<std::string> value = reader.string(node, key);
      if (!value)
        return value.takeError();
      std::optional<Engine> engine = parseEngine(*value);
      if (!engine)
        return badChoice(*value, "z3-blocking, z3-incremental, lattice-z3 or lattice");
      options.engine = *engine;
    } else if (key == "max_candidates") {
      Expected<int64_t> value = reader.integer(node, key, 0);
      if (!value)
        return value.takeError();
      options.maxCandidates = static_cast<size_t>(*value);
    } else {
      return reader.fail(node, key, "unknown key (known: pipelines, prefetch_stages, "
                                    "no_reduce_shared_memory_bank_conflicts, waves_per_eu, "
                                    "denormal_flushing, num_subgroups, conv_strategy, order, "
                                    "seed, engine, max_candidates)");
    }
  }
  return options;
}

Expected<GpuSearchOptions> parseGpuOptionsText(StringRef tomlText, StringRef fileName) {
  toml::parse_result parsed =
      toml::parse(std::string_view(tomlText.data(), tomlText.size()),
                  std::string_view(fileName.data(), fileName.size()));
  if (!parsed)
    return makeError(fileName + ":" + Twine(parsed.error().source().begin.line) + ": " +
                     std::string(parsed.error().description()));
  const toml::node_view<const toml::node> gpu = std::as_const(parsed.table())["gpu"];
  if (!gpu)
    return GpuSearchOptions();
  const toml::table *table = gpu.as_table();
  if (!table)
    return makeError(fileName + ":" + Twine(gpu.node()->source().begin.line) +
                     ": 'gpu' must be a table");
  return parseGpuOptions(*table, fileName);
}

} // namespace retune::gpu
