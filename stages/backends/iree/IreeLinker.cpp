//===- IreeLinker.cpp - Link tuning specs with IREE's own linker ---------===//
#include "stages/backends/iree/IreeLinker.h"

#include "stages/backends/iree/IreeSpec.h"
#include "stages/backends/iree/MlirText.h"
#include "stages/backends/iree/TransformText.h"
#include "stages/support/FileUtil.h"

using namespace llvm;

namespace retune::iree {

Expected<std::string> specContainer(ArrayRef<std::string> names,
                                    ArrayRef<std::string> specs) {
  std::string out = "module attributes {transform.with_named_sequence} {\n";
  for (auto [name, text] : zip(names, specs)) {
    Expected<std::unique_ptr<TextFile>> file = TextFile::parse(text, name);
    if (!file)
      return file.takeError();
    const std::vector<OpNode> &top = (*file)->ops();
    if (top.size() != 1 || !isModule(top.front()))
      return makeError(name + ": a tuning spec to link must be one module "
                              "(" + Twine(top.size()) +
                       " top-level operations); write each spec as one "
                       "`module attributes {transform.with_named_sequence}`");
    out += (*file)->opText(top.front()).str() + "\n";
  }
  return out + "}\n";
}

Expected<std::string> linkTuningSpecFiles(const IreeTools &tools,
                                          ArrayRef<std::string> paths,
                                          StringRef workDir, StringRef stem) {
  if (paths.empty())
    return makeError("no tuning specs to link");
  std::vector<std::string> texts;
  for (const std::string &path : paths) {
    Expected<std::string> text = readFile(path);
    if (!text)
      return text.takeError();
    texts.push_back(std::move(*text));
  }
  if (texts.size() == 1)
    return texts.front();
  Expected<std::string> container = specContainer(paths, texts);
  if (!container)
    return container.takeError();
  std::string input = (workDir + "/" + stem + ".specs.mlir").str();
  std::string output = (workDir + "/" + stem + ".linked.mlir").str();
  std::string log = (workDir + "/" + stem + ".link.log").str();
  if (Error err = writeFileAtomic(input, *container))
    return std::move(err);
  ChildOutcome linked = tools.runTool(
      tools.opt, {input, "--iree-codegen-link-tuning-specs", "-o", output},
      /*timeoutSeconds=*/300, 0, log);
  if (linked.status != Status::Ok)
    return makeError("iree-opt --iree-codegen-link-tuning-specs failed on " +
                     input + " (" + linked.message + "; log: " + log + ")");
  Expected<std::string> text = readFile(output);
  if (!text)
    return text.takeError();
  if (Error err = verifyTuningSpec(*text, output))
    return makeError("IREE's linker wrote a spec that does not verify: " +
                     toString(std::move(err)));
  return text;
}

} // namespace retune::iree
