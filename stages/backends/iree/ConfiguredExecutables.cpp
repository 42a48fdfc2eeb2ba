//===- ConfiguredExecutables.cpp - Configs a spec cannot deliver ----------===//
#include "stages/backends/iree/ConfiguredExecutables.h"

#include "stages/backends/iree/IreeIr.h"
#include "stages/backends/iree/ModelRun.h"
#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace retune::iree {
namespace {

/// The attributes IREE's configuration writes: removed, they are written
/// again by the configuration run on the stripped executable.
constexpr StringLiteral kConfigAttrs[] = {"lowering_config",
                                          "translation_info",
                                          "compilation_info"};

/// The target backend of `executable`'s variants (`llvm-cpu`, `rocm`):
/// the first quoted name of `#hal.executable.target<"llvm-cpu", ...>`.
std::string variantTarget(const IreeIrModule &executable) {
  std::string target;
  executable.walk([&](IreeIrOp op, ArrayRef<IreeIrOp>) {
    if (!target.empty() || op.name() != "hal.executable.variant")
      return;
    std::string printed = op.attr("target");
    size_t open = printed.find('"');
    size_t close = printed.find('"', open + 1);
    if (open != std::string::npos && close != std::string::npos)
      target = printed.substr(open + 1, close - open - 1);
  });
  return target;
}

/// Which executable each of `file`'s exports belongs to.
Error readExports(const IreeIrLibrary &library, StringRef file,
                  ConfiguredExecutables &into) {
  Expected<std::string> text = readFile(file);
  if (!text)
    return text.takeError();
  Expected<std::unique_ptr<IreeIrModule>> module = library.parse(*text, file);
  if (!module)
    return module.takeError();
  std::string executable;
  (*module)->walk([&](IreeIrOp op, ArrayRef<IreeIrOp> ancestors) {
    if (op.name() == "hal.executable") {
      executable = op.symbolName();
      into.fileOfExecutable[executable] = file.str();
    } else if (op.name() == "hal.executable.export" && !executable.empty()) {
      into.executableOfExport[op.symbolName()] = executable;
    }
  });
  if (executable.empty())
    return makeError(file + ": IREE dumped a configured executable file "
                            "without a hal.executable");
  return Error::success();
}

} // namespace

std::string substituteExecutablesFlag(StringRef dir) {
  return ("--iree-hal-substitute-executable-configurations-from=" + dir).str();
}

std::string ConfiguredExecutables::fileExporting(StringRef exportName) const {
  auto executable = executableOfExport.find(exportName);
  if (executable == executableOfExport.end())
    return {};
  auto file = fileOfExecutable.find(executable->second);
  return file == fileOfExecutable.end() ? std::string() : file->second;
}

Expected<ConfiguredExecutables>
dumpConfiguredExecutables(const IreeTools &tools, const IreeIrLibrary &library,
                          StringRef model, ArrayRef<std::string> flags,
                          StringRef spec, StringRef dir, StringRef logPath,
                          unsigned timeoutSeconds) {
  // A directory left by an earlier, killed run must not mix in.
  if (std::error_code ec = sys::fs::remove_directories(dir))
    return makeError("cannot clear " + dir + ": " + ec.message());
  if (std::error_code ec = sys::fs::create_directories(dir))
    return makeError("cannot create " + dir + ": " + ec.message());
  std::vector<std::string> args = {model.str()};
  args.insert(args.end(), flags.begin(), flags.end());
  if (!spec.empty())
    llvm::append_range(
        args, tools.syntax().specLoadingFlags(familyOfFlags(flags), spec));
  args.push_back("--compile-to=executable-configurations");
  args.push_back(("--iree-hal-dump-executable-configurations-to=" + dir).str());
  args.push_back("-o");
  args.push_back("/dev/null");
  ChildOutcome outcome =
      tools.runTool(tools.compile, args, timeoutSeconds, 0, logPath);
  if (outcome.status != Status::Ok)
    return makeError(model + ": iree-compile could not configure its "
                             "executables (" +
                     toString(outcome.status) + "): " + outcome.message +
                     "\nfull log: " + logPath);
  Expected<std::vector<std::string>> files = listFiles(dir, ".mlir");
  if (!files)
    return files.takeError();
  ConfiguredExecutables executables;
  for (const std::string &file : *files)
    if (Error err = readExports(library, file, executables))
      return std::move(err);
  return executables;
}

Expected<std::string> reconfigureExecutable(const IreeTools &tools,
                                            const IreeIrLibrary &library,
                                            StringRef executableFile,
                                            StringRef spec, StringRef outFile,
                                            unsigned timeoutSeconds) {
  Expected<std::string> text = readFile(executableFile);
  if (!text)
    return text.takeError();
  Expected<std::unique_ptr<IreeIrModule>> module =
      library.parse(*text, executableFile);
  if (!module)
    return module.takeError();
  std::string target = variantTarget(**module);
  if (target.empty())
    return makeError(executableFile +
                     ": no hal.executable.variant with a target to configure");
  for (StringRef attr : kConfigAttrs)
    (*module)->removeAttrEverywhere(attr);
  std::string stripped = (outFile + ".stripped.mlir").str();
  if (Error err = writeFileAtomic(stripped, (*module)->print()))
    return std::move(err);
  std::vector<std::string> args = {
      stripped,
      "--pass-pipeline=builtin.module(hal.executable(hal.executable.variant("
      "iree-hal-configure-target-executable-variants{target=" +
          target + "})))"};
  if (!spec.empty())
    llvm::append_range(args, tools.syntax().specLoadingFlags(
                                 target == "llvm-cpu" ? "cpu"
                                 : target == "cuda"   ? "cuda"
                                                      : "gpu",
                                 spec));
  args.push_back("-o");
  args.push_back(outFile.str());
  std::string logPath = (outFile + ".log").str();
  ChildOutcome outcome =
      tools.runTool(tools.opt, args, timeoutSeconds, 0, logPath);
  sys::fs::remove(stripped);
  if (outcome.status != Status::Ok)
    return makeError(executableFile + ": iree-opt could not configure it " +
                     (spec.empty() ? "again" : "with " + spec) + " (" +
                     toString(outcome.status) + "): " + outcome.message +
                     "\nfull log: " + logPath);
  sys::fs::remove(logPath);
  Expected<std::string> configured = readFile(outFile);
  // A pipeline that matched no variant leaves the executable as it was
  // given: stripped, which would compile into a wrong comparison.
  if (configured && !StringRef(*configured).contains("translation_info"))
    return makeError(executableFile + ": IREE's configuration for target " +
                     target + " configured nothing in it (see " + outFile +
                     ")");
  return configured;
}

Expected<SpecReach>
SpecReach::find(const IreeTools &tools, const IreeIrLibrary &library,
                StringRef model, ArrayRef<std::string> flags,
                StringRef linkedSpec, ArrayRef<Dispatch> dispatches,
                StringRef workDir, unsigned timeoutSeconds) {
  SpecReach reach;
  reach.tools = &tools;
  reach.library = &library;
  reach.workDir = workDir.str();
  reach.timeoutSeconds = timeoutSeconds;
  auto dump = [&](StringRef name,
                  StringRef spec) -> Expected<ConfiguredExecutables> {
    std::string dir = (workDir + "/configured-" + name).str();
    return dumpConfiguredExecutables(tools, library, model, flags, spec, dir,
                                     dir + ".log", timeoutSeconds);
  };
  Expected<ConfiguredExecutables> baseline = dump("baseline", "");
  if (!baseline)
    return baseline.takeError();
  Expected<ConfiguredExecutables> linked = dump("linked", linkedSpec);
  if (!linked)
    return linked.takeError();
  for (const Dispatch &d : dispatches)
    for (const std::string &exportName : d.exportNames) {
      std::string before = baseline->fileExporting(exportName);
      std::string after = linked->fileExporting(exportName);
      if (before.empty() || after.empty())
        continue;
      Expected<std::string> beforeText = readFile(before);
      Expected<std::string> afterText = readFile(after);
      if (!beforeText || !afterText) {
        consumeError(beforeText.takeError());
        consumeError(afterText.takeError());
        continue;
      }
      if (*beforeText == *afterText)
        reach.missed[d.id].push_back(
            {baseline->executableOfExport[exportName], before});
    }
  return reach;
}

Expected<std::vector<DeliveredExecutable>>
SpecReach::substitute(ArrayRef<Winner> winners, StringRef dir,
                      std::vector<std::string> &notApplied) const {
  // What an earlier attempt of this tag, maybe killed, left must not mix in.
  if (std::error_code ec = sys::fs::remove_directories(dir))
    return makeError("cannot clear " + dir + ": " + ec.message());
  std::vector<DeliveredExecutable> delivered;
  for (const Winner &w : winners) {
    auto m = missed.find(w.dispatch);
    if (m == missed.end())
      continue;
    if (std::error_code ec = sys::fs::create_directories(dir))
      return makeError("cannot create " + dir + ": " + ec.message());
    size_t before = delivered.size();
    for (const Missed &exe : m->second) {
      Expected<std::optional<std::string>> file = configureWith(exe, w, dir);
      if (!file)
        return file.takeError();
      if (*file)
        delivered.push_back({w.dispatch, exe.executable, std::move(**file)});
    }
    if (delivered.size() == before)
      notApplied.push_back(w.dispatch);
  }
  return delivered;
}

Expected<std::optional<std::string>>
SpecReach::configureWith(const Missed &exe, const Winner &w,
                         StringRef dir) const {
  auto same = unchanged.find(exe.executable);
  if (same == unchanged.end()) {
    Expected<std::string> text = reconfigureExecutable(
        *tools, *library, exe.file, "",
        workDir + "/configured-" + exe.executable + ".default.mlir",
        timeoutSeconds);
    if (!text)
      return text.takeError();
    same = unchanged.insert({exe.executable, std::move(*text)}).first;
  }
  std::string file = (dir + "/" + exe.executable + ".mlir").str();
  Expected<std::string> text = reconfigureExecutable(
      *tools, *library, exe.file, w.spec, file, timeoutSeconds);
  if (!text)
    return text.takeError();
  if (*text == same->second) {
    sys::fs::remove(file);
    return std::nullopt;
  }
  return file;
}

} // namespace retune::iree
