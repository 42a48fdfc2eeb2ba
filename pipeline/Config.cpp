//===- Config.cpp - tune.toml, validated ----------------------------------===//
#include "pipeline/Config.h"

#include "pipeline/Backend.h"
#include "pipeline/TableReader.h"

#include "stages/search/gpu/Options.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <toml++/toml.h>

using namespace llvm;

namespace retune::pipeline {
namespace {

using TableParser = std::function<Error(TableReader &, TuneConfig &)>;

/// `[cluster]`: where compile and bench steps run (docs/cluster.md).
Error readClusterTable(TableReader &r, TuneConfig &c) {
  ClusterConfig &k = c.cluster;
  if (Error err = r.stringKey("kind", k.kind, {"local", "slurm"}))
    return err;
  for (auto [key, field] :
       {std::pair<StringRef, std::string *>{"partition", &k.partition},
        {"account", &k.account},
        {"gres", &k.gres}})
    if (Error err = r.stringKey(key, *field))
      return err;
  if (Error err = r.unsignedKey("cpus", k.cpus, 0, 100000))
    return err;
  if (Error err = r.unsignedKey("devices", k.devices, 1, 100000))
    return err;
  for (auto [key, field] :
       {std::pair<StringRef, unsigned *>{"compile_time_min", &k.compileTimeMin},
        {"bench_time_min", &k.benchTimeMin},
        {"model_time_min", &k.modelTimeMin}})
    if (Error err = r.unsignedKey(key, *field, 0, 525600))
      return err;
  if (Error err = r.stringListKey("compile_flags", k.compileFlags))
    return err;
  return r.stringListKey("bench_flags", k.benchFlags);
}

const std::map<std::string, TableParser> &tableParsers() {
  static const std::map<std::string, TableParser> parsers = {
      {"model",
       [](TableReader &r, TuneConfig &c) -> Error {
         if (Error err = r.stringKey("path", c.modelPath))
           return err;
         if (Error err = r.stringKey("parameters", c.parameters,
                                     {"auto", "external", "inline"}))
           return err;
         return r.stringKey("entry", c.entry);
       }},
      {"backend",
       [](TableReader &r, TuneConfig &c) -> Error {
         std::vector<std::string> names = backendNames();
         std::vector<StringRef> allowed(names.begin(), names.end());
         return r.stringKey("kind", c.backend, allowed);
       }},
      {"tune",
       [](TableReader &r, TuneConfig &c) -> Error {
         if (Error err = r.unsignedKey("candidates", c.candidates, 1, 100000))
           return err;
         if (Error err = r.unsignedKey("jobs", c.jobs, 0, 1024))
           return err;
         if (Error err = r.unsignedKey("threads", c.threads, 1, 1024))
           return err;
         if (Error err = r.realKey("min_share", c.minShare, 0, 1))
           return err;
         if (Error err = r.durationKey("budget", c.budgetSeconds))
           return err;
         return r.unsignedKey("top_k", c.topK, 0, 100000);
       }},
      {"compile",
       [](TableReader &r, TuneConfig &c) -> Error {
         if (Error err = r.unsignedKey("timeout_s", c.compileTimeout, 1, 86400))
           return err;
         return r.unsignedKey("memory_mb", c.compileMemoryMB, 64, 1 << 24);
       }},
      {"bench",
       [](TableReader &r, TuneConfig &c) -> Error {
         if (Error err = r.unsignedKey("warmup", c.warmup, 0, 1000))
           return err;
         if (Error err = r.unsignedKey("repetitions", c.repetitions, 1, 100000))
           return err;
         if (Error err = r.realKey("min_sample_s", c.minSampleSeconds, 0, 60))
           return err;
         if (Error err = r.unsignedKey("timeout_s", c.benchTimeout, 1, 86400))
           return err;
         return r.unsignedKey("seed", c.seed, 0, 1u << 31);
       }},
      {"select",
       [](TableReader &r, TuneConfig &c) -> Error {
         return r.realKey("margin", c.margin, 0, 0.9);
       }},
      {"cluster", readClusterTable},
      {"cache",
       [](TableReader &r, TuneConfig &c) -> Error {
         return r.stringKey("dir", c.cacheDir);
       }},
  };
  return parsers;
}

/// Each backend's own tables (Backend::readTable reads them).
std::vector<std::unique_ptr<Backend>> allBackends() {
  std::vector<std::unique_ptr<Backend>> backends;
  for (const std::string &name : backendNames())
    if (Expected<std::unique_ptr<Backend>> backend = makeBackend(name))
      backends.push_back(std::move(*backend));
    else
      consumeError(backend.takeError());
  return backends;
}

/// The backend whose own table `name` is, or null.
std::unique_ptr<Backend> tableOwner(StringRef name) {
  for (std::unique_ptr<Backend> &backend : allBackends())
    if (is_contained(backend->traits().ownTables, name))
      return std::move(backend);
  return nullptr;
}

std::string tableNames() {
  std::vector<std::string> names;
  for (const auto &entry : tableParsers())
    names.push_back("[" + entry.first + "]");
  for (const std::unique_ptr<Backend> &backend : allBackends())
    for (const std::string &table : backend->traits().ownTables)
      names.push_back("[" + table + "]");
  llvm::sort(names);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return join(names, ", ");
}

unsigned lineOf(const toml::node &node) { return node.source().begin.line; }

/// `[gpu]` is read by stages/search/gpu (the one place that knows its keys); we keep
/// the validated table as TOML text for the candidates stage.
Error readGpuTable(StringRef text, StringRef path, const toml::node &node,
                   TuneConfig &config) {
  if (!node.is_table())
    return makeError(formatv("{0}:{1}: 'gpu' must be a table ([gpu])", path,
                             lineOf(node))
                         .str());
  if (Expected<gpu::GpuSearchOptions> options =
          gpu::parseGpuOptionsText(text, path);
      !options)
    return options.takeError();
  toml::table wrapper;
  wrapper.insert("gpu", *node.as_table());
  std::ostringstream os;
  os << wrapper << "\n";
  config.gpuTable = os.str();
  return Error::success();
}

/// The names of the backends whose traits satisfy `pred`.
std::vector<std::string>
backendsWhere(function_ref<bool(const BackendTraits &)> pred) {
  std::vector<std::string> names;
  for (const std::string &name : backendNames())
    if (Expected<std::unique_ptr<Backend>> b = makeBackend(name)) {
      if (pred((*b)->traits()))
        names.push_back(name);
    } else {
      consumeError(b.takeError());
    }
  return names;
}

/// A backend's own tables ([iree], [gpu]) mean nothing to another, and the
/// hot-dispatch policy may be set in [tune] or [iree], not both.
Error checkBackendTables(const toml::table &root, StringRef path,
                         const TuneConfig &config,
                         const BackendTraits &traits) {
  for (const std::string &owner : backendNames()) {
    Expected<std::unique_ptr<Backend>> other = makeBackend(owner);
    if (!other)
      return other.takeError();
    for (const std::string &name : (*other)->traits().ownTables) {
      const toml::node *table = root.get(name);
      if (!table || is_contained(traits.ownTables, name))
        continue;
      return makeError(formatv("{0}:{1}: [{2}] is only used by [backend] kind "
                               "= \"{3}\" (this config uses \"{4}\"); remove "
                               "the table or change the backend",
                               path, lineOf(*table), name, owner,
                               config.backend)
                           .str());
    }
  }
  const toml::table *iree = root["iree"].as_table();
  const toml::table *tune = root["tune"].as_table();
  if (!iree || !tune)
    return Error::success();
  for (const char *key : {"min_share", "top_k"})
    if (const toml::node *node = iree->get(key); node && tune->get(key))
      return makeError(formatv("{0}:{1}: [iree] {2} is also set in [tune] "
                               "(line {3}); set it in one place",
                               path, lineOf(*node), key,
                               lineOf(*tune->get(key)))
                           .str());
  return Error::success();
}

/// A GRES name goes into `--gres=<name>:1`; Slurm's own names are plain
/// words. The iree backend's benches stay on their configured devices: its
/// per-device baselines need one fixed GPU per pool, which GRES, handing
/// out any free unit, does not give.
Error checkClusterTable(const toml::table &root, StringRef path,
                        const TuneConfig &config,
                        const BackendTraits &traits) {
  const toml::table *cluster = root["cluster"].as_table();
  if (!cluster || !config.cluster.isSlurm())
    return Error::success();
  StringRef gres = config.cluster.gres;
  if (gres.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                             "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
      StringRef::npos) {
    const toml::node *node = cluster->get("gres");
    return makeError(formatv("{0}:{1}: [cluster] gres must be a GRES name "
                             "(letters, digits, '_', '-'), like \"gpu\"; "
                             "got \"{2}\"",
                             path, node ? lineOf(*node) : lineOf(*cluster),
                             gres)
                         .str());
  }
  if (!traits.slurmRefusal.empty()) {
    const toml::node *kind = cluster->get("kind");
    return makeError(formatv("{0}:{1}: [cluster] kind = \"slurm\" runs the "
                             "{2} backend's steps; the {3} backend {4}; "
                             "remove [cluster] or use kind = \"local\"",
                             path, kind ? lineOf(*kind) : lineOf(*cluster),
                             join(backendsWhere([](const BackendTraits &t) {
                                    return t.slurmRefusal.empty();
                                  }),
                                  ", "),
                             config.backend, traits.slurmRefusal)
                         .str());
  }
  return Error::success();
}

/// Relative paths in tune.toml are relative to tune.toml's folder; bare
/// tool names (no '/') stay names.
void resolveRelative(std::string &path, StringRef base, bool keepBareNames) {
  if (path.empty() || sys::path::is_absolute(path) ||
      (keepBareNames && !StringRef(path).contains('/')))
    return;
  SmallString<256> absolute(base);
  sys::path::append(absolute, path);
  path = absolute.str().str();
}

} // namespace

Expected<TuneConfig> parseConfig(StringRef text, StringRef path) {
  toml::parse_result parsed = toml::parse(
      std::string_view(text.data(), text.size()), std::string(path));
  if (!parsed) {
    const toml::parse_error &error = parsed.error();
    return makeError(formatv("{0}:{1}:{2}: invalid TOML: {3}", path,
                             error.source().begin.line,
                             error.source().begin.column,
                             std::string(error.description()))
                         .str());
  }
  const toml::table &root = parsed.table();
  TuneConfig config;
  SmallString<256> absolute(path);
  sys::fs::make_absolute(absolute);
  config.configPath = absolute.str().str();
  for (const auto &[key, node] : root) {
    std::string name(key.str());
    if (name == "gpu") {
      if (Error err = readGpuTable(text, path, node, config))
        return std::move(err);
      continue;
    }
    auto parser = tableParsers().find(name);
    std::unique_ptr<Backend> owner =
        parser == tableParsers().end() ? tableOwner(name) : nullptr;
    if (parser == tableParsers().end() && !owner)
      return makeError(formatv("{0}:{1}: unknown table [{2}]; known tables: "
                               "{3}",
                               path, node.source().begin.line, abbreviate(name),
                               tableNames())
                           .str());
    const toml::table *table = node.as_table();
    if (!table)
      return makeError(formatv("{0}:{1}: '{2}' must be a table ([{2}])", path,
                               node.source().begin.line, name)
                           .str());
    TableReader reader(path, name, *table, config.keyLines);
    if (Error err = owner ? owner->readTable(name, reader, config)
                          : parser->second(reader, config))
      return std::move(err);
    if (Error err = reader.rejectUnknown())
      return std::move(err);
  }
  Expected<std::unique_ptr<Backend>> backend = makeBackend(config.backend);
  if (!backend)
    return backend.takeError();
  BackendTraits traits = (*backend)->traits();
  if (Error err = checkBackendTables(root, path, config, traits))
    return std::move(err);
  if (Error err = checkClusterTable(root, path, config, traits))
    return std::move(err);
  if (config.modelPath.empty())
    return makeError(path + ": [model] path is required (the model file, "
                            "relative to tune.toml)");
  if (!config.cacheDir.empty() && config.cacheDir != "off" &&
      !sys::path::is_absolute(config.cacheDir)) {
    SmallString<256> cache(sys::path::parent_path(config.configPath));
    sys::path::append(cache, config.cacheDir);
    config.cacheDir = cache.str().str();
  }
  if (!sys::path::is_absolute(config.modelPath)) {
    SmallString<256> model(sys::path::parent_path(config.configPath));
    sys::path::append(model, config.modelPath);
    config.modelPath = model.str().str();
  }
  StringRef base = sys::path::parent_path(config.configPath);
  resolveRelative(config.iree.profile, base, false);
  resolveRelative(config.search.ranker, base, false);
  resolveRelative(config.iree.toolsDir, base, false);
  for (std::string *tool : {&config.iree.compile, &config.iree.opt,
                            &config.iree.benchmark, &config.iree.importOnnx})
    resolveRelative(*tool, base, true);
  if (config.modelIsOnnx() && !traits.importsOnnx)
    return makeError(path + ": [model] path: " + config.modelPath +
                     " is an ONNX model; the " + config.backend +
                     " backend reads linalg MLIR. Set [backend] kind = \"" +
                     join(backendsWhere([](const BackendTraits &t) {
                            return t.importsOnnx;
                          }),
                          "\" or \"") +
                     "\" (it imports ONNX with iree-import-onnx)");
  return config;
}

bool TuneConfig::externalParameters() const {
  if (!modelIsOnnx() || parameters == "inline")
    return false;
  if (parameters == "external")
    return true;
  uint64_t size = 0;
  return !sys::fs::file_size(modelPath, size) &&
         size >= kExternalParametersBytes;
}

std::string TuneConfig::where(StringRef key) const {
  auto line = keyLines.find(key.str());
  if (line == keyLines.end())
    return configPath + ": ";
  return formatv("{0}:{1}: ", configPath, line->second).str();
}

Expected<TuneConfig> loadConfig(StringRef path) {
  Expected<std::string> text = readFile(path);
  if (!text)
    return text.takeError();
  return parseConfig(*text, path);
}

} // namespace retune::pipeline
