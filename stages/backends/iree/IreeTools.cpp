//===- IreeTools.cpp - Locating IREE's tools and their version ------------===//
#include "stages/backends/iree/IreeTools.h"

#include "stages/support/FileUtil.h"
#include "stages/core/Subprocess.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

#include <optional>

using namespace llvm;

namespace retune::iree {

ArrayRef<IreeSyntax> knownReleases() {
  auto row = [](unsigned line) {
    IreeSyntax s;
    s.line = line;
    bool v311 = line >= 11;
    s.tunerAttributesFlag = v311 ? "--iree-codegen-add-tuner-attributes"
                                 : "--iree-config-add-tuner-attributes";
    s.rocmTargetFlag = v311 ? "--iree-rocm-target" : "--iree-hip-target";
    s.rootOpAttr = v311 ? "root_op = #iree_codegen.root_op<set = 0>" : "root_op";
    s.cpuUsesTransformLibrary = !v311;
    s.pipelineAttributes = line >= 12;
    s.prefetchOption =
        line >= 10 ? "prefetch_num_stages" : "prefetch_shared_memory";
    return s;
  };
  static const std::vector<IreeSyntax> rows = {row(8),  row(9),  row(10),
                                               row(11), row(12), row(13)};
  return rows;
}

IreeSyntax syntaxFor(unsigned line) {
  ArrayRef<IreeSyntax> rows = knownReleases();
  for (const IreeSyntax &s : rows)
    if (s.line == line)
      return s;
  return line > rows.back().line ? rows.back() : rows.front();
}

Expected<IreeVersion> parseIreeVersion(StringRef output) {
  // "IREE compiler version 3.13.0rc20261016 @ <sha>", "... 3.11.0 @ ...",
  // "... 3.12.0.dev+<sha> ..."; builds print "IREE (https://iree.dev):" first.
  Regex re("version[ \t]+([0-9]+)\\.([0-9]+)\\.([0-9]+)([^ \t\n@]*)");
  SmallVector<StringRef> m;
  if (output.contains("version (unknown)"))
    return makeError("iree-compile does not know its version (a source "
                     "build?); pin the release with tune.toml's [iree] "
                     "version = \"3.13.0\"");
  if (Regex("version[ \t]+20[0-9]{6}\\.").match(output))
    return makeError("IREE with a date version (before 3.0) is not "
                     "supported; install IREE 3.8 or newer");
  if (!re.match(output, &m))
    return makeError("cannot read the IREE version from `iree-compile "
                     "--version` output:\n" +
                     output.trim() +
                     "\nexpected 'IREE compiler version X.Y.Z'; is this "
                     "iree-compile?");
  IreeVersion v;
  m[1].getAsInteger(10, v.major);
  m[2].getAsInteger(10, v.minor);
  m[3].getAsInteger(10, v.patch);
  v.text = (m[1] + "." + m[2] + "." + m[3] + m[4]).str();
  ArrayRef<IreeSyntax> rows = knownReleases();
  auto unsupported = [&](StringRef why) {
    return makeError(formatv("IREE {0} is not supported: {1}. Supported: 3.{2} "
                             "to 3.{3} and newer 3.x (with the 3.{3} "
                             "spellings); install one of those (scripts/"
                             "setup.sh installs 3.{3} into .venv/) or point "
                             "tune.toml's [iree] tool paths at one",
                             v.text, why, rows.front().line, rows.back().line)
                         .str());
  };
  if (v.major != 3)
    return unsupported("only IREE 3.x is known");
  if (v.minor < rows.front().line)
    return unsupported("releases before 3.8 lack the "
                       "transform.iree.match.contraction/convolution/"
                       "attention matchers");
  v.line = std::min(v.minor, rows.back().line);
  v.newerThanKnown = v.minor > rows.back().line;
  return v;
}

std::string newerReleaseWarning(const IreeVersion &version) {
  return formatv("IREE {0} is newer than the newest release Retune knows "
                 "(3.{1}); using the 3.{1} spellings. If specs fail to parse, "
                 "pin [iree] version = \"3.{1}.0\" and report it",
                 version.text, version.line)
      .str();
}

std::string IreeSyntax::pipeline(StringRef family, StringRef name) const {
  bool gpu = family == "gpu" || family == "rocm" || family == "cuda";
  if (pipelineAttributes)
    return (gpu ? "#iree_gpu.pipeline<" : "#iree_cpu.pipeline<") + name.str() +
           ">";
  if (gpu)
    return "LLVMGPU" + name.str();
  // CPU enum names: CPUDefault, CPUDoubleTilingExpert, Mmt4dTilingExpert, ...
  if (name.starts_with("Mmt4d"))
    return name.str();
  return "CPU" + name.str();
}

std::string IreeSyntax::pipelineOptions(unsigned prefetchStages) const {
  if (prefetchOption == "prefetch_shared_memory")
    return std::string("#iree_gpu.pipeline_options<prefetch_shared_memory = ") +
           (prefetchStages > 0 ? "true" : "false") + ">";
  return "#iree_gpu.pipeline_options<prefetch_num_stages = " +
         std::to_string(prefetchStages) + ">";
}

std::vector<std::string> IreeSyntax::specFlags(StringRef family,
                                               StringRef specPath) const {
  // IREE 3.13's CUDA target runs its configuration pipeline without the
  // tuning spec path (MaterializeTuningSpecs gets an empty one): a spec
  // given with --iree-codegen-tuning-spec-path never reaches a CUDA
  // dispatch, the transform library does.
  if ((family == "cpu" && cpuUsesTransformLibrary) || family == "cuda")
    return {"--iree-codegen-transform-dialect-library=" + specPath.str() +
            "@__kernel_config"};
  return {"--iree-codegen-tuning-spec-path=" + specPath.str()};
}

std::vector<std::string>
IreeSyntax::specLoadingFlags(StringRef family, StringRef specPath) const {
  std::vector<std::string> flags = specFlags(family, specPath);
  // IREE (seen with 3.13) loads a spec under a lock on a pass-manager
  // worker, and verifying it waits on the same thread pool: the worker can
  // pick up another executable's pipeline, which takes the lock again and
  // hangs the compile until its timeout (a whole-model configuration of
  // PP-OCRv4: killed after 120 s, 7 s the run before). One thread cannot.
  // Measured on MiniLM's whole model (2 cores): 3.72 s threaded, 3.78 s
  // not, the same module.
  flags.push_back("--mlir-disable-threading");
  return flags;
}

namespace {
/// Replaces every `from` in `text` by `spell(match)`, scanning forward from
/// each replacement so that a replacement that contains `from` (the newest
/// release spells it the same) cannot be found again.
std::string replaceEach(StringRef text, const Regex &from,
                        function_ref<std::string(ArrayRef<StringRef>)> spell) {
  std::string out;
  SmallVector<StringRef> m;
  while (from.match(text, &m)) {
    size_t at = m[0].data() - text.data();
    out += text.take_front(at);
    out += spell(m);
    text = text.drop_front(at + m[0].size());
  }
  return out + text.str();
}
} // namespace

std::string IreeSyntax::respell(StringRef newest) const {
  std::string text = replaceEach(
      newest, Regex("#iree_gpu\\.pipeline<([A-Za-z]+)>"),
      [&](ArrayRef<StringRef> m) { return pipeline("gpu", m[1]); });
  text = replaceEach(
      text, Regex("#iree_cpu\\.pipeline<([A-Za-z0-9]+)>"),
      [&](ArrayRef<StringRef> m) { return pipeline("cpu", m[1]); });
  if (prefetchOption == "prefetch_num_stages")
    return text;
  return replaceEach(text, Regex("prefetch_num_stages = ([0-9]+)"),
                     [&](ArrayRef<StringRef> m) {
                       return std::string("prefetch_shared_memory = ") +
                              (m[1] == "0" ? "false" : "true");
                     });
}

namespace {
/// A tool found by `locate`, and where.
struct Located {
  std::string path;
  std::string where;
};

Expected<Located> locate(const IreeToolPaths &paths, StringRef explicitPath,
                         StringRef name) {
  if (!explicitPath.empty()) {
    if (sys::fs::can_execute(explicitPath))
      return Located{explicitPath.str(), "tune.toml"};
    return makeError(name + " '" + explicitPath +
                     "' does not exist or is not executable; fix the path "
                     "in tune.toml or install IREE");
  }
  auto inDir = [&](StringRef dir) -> std::optional<std::string> {
    if (dir.empty())
      return std::nullopt;
    SmallString<256> candidate(dir);
    sys::path::append(candidate, name);
    if (!sys::fs::can_execute(candidate))
      return std::nullopt;
    return std::string(candidate);
  };
  if (std::optional<std::string> found = inDir(paths.searchDir))
    return Located{*found, "tools_dir"};
  if (ErrorOr<std::string> found = sys::findProgramByName(name))
    return Located{*found, "PATH"};
  if (std::optional<std::string> found = inDir(paths.fallbackDir))
    return Located{*found, "the project's .venv"};
  return makeError("cannot find " + name +
                   " in tools_dir, on PATH or in the project's .venv; run "
                   "scripts/setup.sh (installs the pinned IREE into .venv/) "
                   "or set [iree] tools_dir in tune.toml");
}
} // namespace

Expected<IreeTools> findIreeTools(const IreeToolPaths &paths,
                                  ProcessRunner &runner) {
  IreeTools tools;
  tools.runner = &runner;
  Expected<Located> compile = locate(paths, paths.compile, "iree-compile");
  if (!compile)
    return compile.takeError();
  // The other tools come from the same place as iree-compile when they are
  // not named: mixing two installations would mix two releases.
  IreeToolPaths sibling = paths;
  if (compile->where != "tune.toml")
    sibling.searchDir = sys::path::parent_path(compile->path).str();
  Expected<Located> opt = locate(sibling, paths.opt, "iree-opt");
  if (!opt)
    return opt.takeError();
  Expected<Located> bench =
      locate(sibling, paths.benchmark, "iree-benchmark-module");
  if (!bench)
    return bench.takeError();
  tools.compile = compile->path;
  tools.foundIn = compile->where;
  tools.opt = opt->path;
  tools.benchmark = bench->path;
  // Runtime tools of the same installation: beside the benchmark tool, or
  // beside its real path when the plan found a link to it (on PATH, in a
  // tools_dir); empty where the installation lacks them.
  SmallString<256> realBench;
  if (sys::fs::real_path(bench->path, realBench))
    realBench.clear();
  auto besideBenchmark = [&](StringRef name) {
    for (StringRef tool : {StringRef(bench->path), StringRef(realBench)}) {
      if (tool.empty())
        continue;
      SmallString<256> path(sys::path::parent_path(tool));
      sys::path::append(path, name);
      if (sys::fs::can_execute(path))
        return std::string(path);
    }
    return std::string();
  };
  tools.run = besideBenchmark("iree-run-module");
  tools.profile = besideBenchmark("iree-profile");
  if (!paths.version.empty()) {
    Expected<IreeVersion> pinned =
        parseIreeVersion("IREE compiler version " + paths.version);
    if (!pinned)
      return pinned.takeError();
    tools.version = *pinned;
    return tools;
  }
  // Only the version is wanted: a temporary log, so that a refused plan
  // leaves nothing behind in the build directory.
  SmallString<256> log;
  if (std::error_code ec =
          sys::fs::createTemporaryFile("iree-compile-version", "log", log))
    return makeError("cannot create a temporary file: " + ec.message());
  ChildOutcome outcome =
      tools.runTool(tools.compile, {"--version"}, 60, 0, log);
  Expected<std::string> output = readFile(log);
  sys::fs::remove(log);
  if (!output)
    return output.takeError();
  if (outcome.status != Status::Ok)
    return makeError("`" + tools.compile + " --version` failed (" +
                     outcome.message + "): " + StringRef(*output).trim() +
                     "; check the IREE installation");
  Expected<IreeVersion> version = parseIreeVersion(*output);
  if (!version)
    return makeError(tools.compile + ": " + toString(version.takeError()));
  tools.version = *version;
  return tools;
}

unsigned deviceWorkers(ArrayRef<std::string> deviceFlags) {
  constexpr StringLiteral kGroupCount = "--task_topology_group_count=";
  for (StringRef flag : deviceFlags) {
    unsigned count = 0;
    if (flag.consume_front(kGroupCount) && !flag.getAsInteger(10, count) &&
        count > 0)
      return count;
  }
  return 0;
}

Expected<IreeTools> toolsFrom(const IreeToolOptions &options,
                              StringRef logDir, ProcessRunner &runner) {
  if (Error err = createParentDirs((logDir + "/x").str()))
    return std::move(err);
  Expected<IreeTools> tools = findIreeTools(
      {options.compile, options.opt, options.benchmark, "", options.version},
      runner);
  if (tools)
    tools->deviceFlags = options.deviceFlags;
  return tools;
}

Expected<IreeSyntax> syntaxFrom(const IreeToolOptions &options) {
  if (options.version.empty())
    return makeError("--iree-version is required (retune plan passes the "
                     "detected release)");
  Expected<IreeVersion> parsed =
      parseIreeVersion("IREE compiler version " + options.version);
  if (!parsed)
    return parsed.takeError();
  return syntaxFor(parsed->line);
}

} // namespace retune::iree
