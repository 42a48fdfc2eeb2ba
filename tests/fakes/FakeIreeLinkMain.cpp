//===- FakeIreeLinkMain.cpp - The fake iree-opt's spec linking -----------===//
//
// `fake-iree-link <container.mlir> <output>`: what the fake iree-opt runs for
// `--iree-codegen-link-tuning-specs`. The container is the module Retune
// hands IREE's linker (stages/backends/iree/IreeLinker.h): one nested module
// per spec; the output is the linked spec (TextSpecLinker.h).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/MlirText.h"
#include "stages/backends/iree/TransformText.h"
#include "stages/support/FileUtil.h"
#include "tests/fakes/TextSpecLinker.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace retune;
using namespace retune::iree;

static Error run(StringRef inputPath, StringRef outputPath) {
  Expected<std::string> text = readFile(inputPath);
  if (!text)
    return text.takeError();
  Expected<std::unique_ptr<TextFile>> file = TextFile::parse(*text, inputPath);
  if (!file)
    return file.takeError();
  const std::vector<OpNode> &top = (*file)->ops();
  if (top.size() != 1 || !isModule(top.front()) ||
      top.front().regions.empty())
    return makeError(inputPath + ": expected one module holding the specs");
  std::vector<fakes::SpecInput> specs;
  for (const OpNode &nested : top.front().regions.front())
    if (isModule(nested))
      specs.push_back({(inputPath + ":" + Twine(nested.line)).str(),
                       (*file)->opText(nested).str()});
  Expected<fakes::LinkResult> linked = fakes::linkTuningSpecs(specs);
  if (!linked)
    return linked.takeError();
  return writeFileAtomic(outputPath, linked->text);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    errs() << "usage: fake-iree-link <container.mlir> <output>\n";
    return 2;
  }
  if (Error err = run(argv[1], argv[2])) {
    errs() << argv[1] << ": error: " << toString(std::move(err)) << "\n";
    return 1;
  }
  return 0;
}
