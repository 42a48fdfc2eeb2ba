//===- IreeTools.cpp - Locating IREE's tools and their version ------------===//
#include "stages/iree/IreeTools.h"

#include "stages/support/FileUtil.h"
#include "stages/support/Subprocess.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

using namespace llvm;

namespace retune::iree {

StringRef toString(IreeEra era) {
  switch (era) {
  case IreeEra::V3_10:
    return "v3.10-and-older";
  case IreeEra::V3_11:
    return "v3.11";
  case IreeEra::Nightly:
    return "nightly";
  }
  llvm_unreachable("unknown era");
}

Expected<IreeVersion> parseIreeVersion(StringRef output) {
  // "IREE compiler version 3.11.0 @ <sha>", "... 3.12.0rc20260801 @ ...",
  // "... 3.12.0.dev+<sha> ..."; older builds print "IREE (https://iree.dev):"
  // first.
  Regex re("version[ \t]+([0-9]+)\\.([0-9]+)\\.([0-9]+)([^ \t\n@]*)");
  SmallVector<StringRef> m;
  if (output.contains("version (unknown)"))
    return makeError("iree-compile does not know its version (a source "
                     "build?); pin the release with tune.toml's [iree] "
                     "version = \"3.11.0\"");
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
  auto unsupported = [&](StringRef why) {
    return makeError("IREE " + v.text + " is not supported: " + why +
                     ". Supported: 3.8 to 3.11 releases and 3.12 nightlies; "
                     "install one of those or point tune.toml's [iree] tool "
                     "paths at one");
  };
  if (v.major != 3)
    return unsupported("only IREE 3.x is known");
  if (v.minor < 8)
    return unsupported("releases before 3.8 lack the "
                       "transform.iree.match.contraction/convolution/"
                       "attention matchers");
  if (v.minor <= 10)
    v.era = IreeEra::V3_10;
  else if (v.minor == 11)
    v.era = IreeEra::V3_11;
  else if (v.minor == 12)
    v.era = IreeEra::Nightly;
  else
    return unsupported("newer than the known nightly line (3.12)");
  return v;
}

std::string IreeSyntax::pipeline(StringRef family, StringRef name) const {
  bool gpu = family == "gpu" || family == "rocm";
  if (era == IreeEra::Nightly)
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
  if (family == "cpu" && cpuUsesTransformLibrary)
    return {"--iree-codegen-transform-dialect-library=" + specPath.str() +
            "@__kernel_config"};
  return {"--iree-codegen-tuning-spec-path=" + specPath.str()};
}

IreeSyntax syntaxFor(IreeEra era) {
  IreeSyntax s;
  s.era = era;
  s.prefetchOption = "prefetch_num_stages";
  switch (era) {
  case IreeEra::V3_10:
    s.tunerAttributesFlag = "--iree-config-add-tuner-attributes";
    s.rocmTargetFlag = "--iree-hip-target";
    s.rootOpAttr = "root_op";
    s.cpuUsesTransformLibrary = true;
    break;
  case IreeEra::V3_11:
  case IreeEra::Nightly:
    s.tunerAttributesFlag = "--iree-codegen-add-tuner-attributes";
    s.rocmTargetFlag = "--iree-rocm-target";
    s.rootOpAttr = "root_op = #iree_codegen.root_op<set = 0>";
    break;
  }
  return s;
}

namespace {
Expected<std::string> locate(StringRef explicitPath, StringRef name,
                             StringRef searchDir, StringRef what) {
  if (!explicitPath.empty()) {
    if (sys::fs::can_execute(explicitPath))
      return explicitPath.str();
    return makeError(what + " '" + explicitPath +
                     "' does not exist or is not executable; fix the path "
                     "in tune.toml or install IREE");
  }
  if (!searchDir.empty()) {
    SmallString<256> candidate(searchDir);
    sys::path::append(candidate, name);
    if (sys::fs::can_execute(candidate))
      return std::string(candidate);
  }
  ErrorOr<std::string> found = sys::findProgramByName(name);
  if (found)
    return *found;
  return makeError("cannot find " + name +
                   " on PATH; install IREE (pip install iree-base-compiler "
                   "iree-base-runtime) or set its path in tune.toml");
}
} // namespace

Expected<IreeTools> findIreeTools(const IreeToolPaths &paths,
                                  StringRef logDir) {
  IreeTools tools;
  Expected<std::string> compile =
      locate(paths.compile, "iree-compile", paths.searchDir, "iree-compile");
  if (!compile)
    return compile.takeError();
  Expected<std::string> opt =
      locate(paths.opt, "iree-opt", paths.searchDir, "iree-opt");
  if (!opt)
    return opt.takeError();
  Expected<std::string> bench =
      locate(paths.benchmark, "iree-benchmark-module", paths.searchDir,
             "iree-benchmark-module");
  if (!bench)
    return bench.takeError();
  tools.compile = *compile;
  tools.opt = *opt;
  tools.benchmark = *bench;
  if (!paths.version.empty()) {
    Expected<IreeVersion> pinned =
        parseIreeVersion("IREE compiler version " + paths.version);
    if (!pinned)
      return pinned.takeError();
    tools.version = *pinned;
    return tools;
  }
  SmallString<256> log(logDir);
  sys::path::append(log, "iree-compile-version.log");
  ChildOutcome outcome = runLimited(tools.compile, {"--version"}, 60, 0, log);
  Expected<std::string> output = readFile(log);
  if (!output)
    return output.takeError();
  if (outcome.status != Status::Ok)
    return makeError("`" + tools.compile + " --version` failed (" +
                     outcome.message + "); check the IREE installation");
  Expected<IreeVersion> version = parseIreeVersion(*output);
  if (!version)
    return makeError(tools.compile + ": " + toString(version.takeError()));
  tools.version = *version;
  return tools;
}

} // namespace retune::iree
