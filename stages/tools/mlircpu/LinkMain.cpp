//===- LinkMain.cpp - retune-link: winners -> one tuning spec -------------===//
#include "stages/backends/mlircpu/SpecLinker.h"
#include "stages/support/FileUtil.h"
#include "stages/core/Records.h"
#include "stages/support/ToolMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace retune;

static cl::OptionCategory category("retune-link options");
static cl::list<std::string> selections(cl::Positional, cl::OneOrMore,
                                        cl::desc("<best/<id>.json>..."),
                                        cl::cat(category));
static cl::opt<std::string> outputPath("output", cl::Required,
                                       cl::desc("linked spec to write"),
                                       cl::cat(category));

static Error run() {
  std::vector<std::string> specs;
  std::string header = "Linked by retune-link from the winners of:";
  for (const std::string &path : selections) {
    Expected<json::Value> value = readJsonFile(path, schema::kSelect);
    if (!value)
      return value.takeError();
    const json::Object *object = value->getAsObject();
    StringRef spec = object->getString("spec").value_or("");
    StringRef dispatch = object->getString("dispatch").value_or("?");
    header += "\n  " + dispatch.str() + ": " +
              (spec.empty() ? std::string("(no winner: default config)")
                            : spec.str());
    if (!spec.empty())
      specs.push_back(spec.str());
  }
  Expected<std::string> linked = link::linkSpecs(specs, header);
  if (!linked)
    return linked.takeError();
  return writeFileIfChanged(outputPath, *linked);
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "retune-link: link the winning spec of every dispatch into one tuning "
      "spec with a single foreach_match (first matcher wins).\n");
  return finishTool("retune-link", run());
}
