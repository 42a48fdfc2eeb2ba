//===- SpecLinker.cpp - Many specs -> one foreach_match -------------------===//
#include "stages/backends/mlircpu/SpecLinker.h"

#include "stages/backends/mlircpu/CpuCompiler.h"
#include "stages/backends/mlircpu/CpuSpec.h"
#include "stages/support/FileUtil.h"

#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace retune::link {
namespace {

std::string freeName(StringRef name, const llvm::StringSet<> &taken) {
  if (!taken.contains(name))
    return name.str();
  for (unsigned suffix = 1;; ++suffix) {
    std::string candidate = (name + "_" + Twine(suffix)).str();
    if (!taken.contains(candidate))
      return candidate;
  }
}

/// The foreach_match of a spec's entry point.
FailureOr<transform::ForeachMatchOp> entryMatch(ModuleOp spec, StringRef path,
                                                std::string &error) {
  auto entry = dyn_cast_or_null<transform::NamedSequenceOp>(
      SymbolTable::lookupSymbolIn(spec, cpu::kSpecEntryPoint));
  if (!entry) {
    error = (path + ": defines no @" + cpu::kSpecEntryPoint).str();
    return failure();
  }
  transform::ForeachMatchOp match;
  entry.walk([&](transform::ForeachMatchOp op) { match = op; });
  return match; // null: a pass-through spec with no pairs
}

} // namespace

Expected<std::string> linkSpecs(const std::vector<std::string> &specPaths,
                                StringRef headerComment) {
  std::string body;
  llvm::raw_string_ostream os(body);
  llvm::StringSet<> taken = {cpu::kSpecEntryPoint};
  SmallVector<std::pair<std::string, std::string>> pairs;
  for (const std::string &path : specPaths) {
    Expected<OwningOpRef<ModuleOp>> spec = cpu::parseModuleFile(path);
    if (!spec)
      return spec.takeError();
    ModuleOp module = **spec;
    // Rename clashing sequences first, so the entry's references follow.
    for (auto sequence : module.getOps<transform::NamedSequenceOp>()) {
      StringRef name = sequence.getSymName();
      if (name == cpu::kSpecEntryPoint)
        continue;
      std::string fresh = freeName(name, taken);
      if (fresh != name) {
        auto freshAttr = StringAttr::get(module.getContext(), fresh);
        if (failed(SymbolTable::replaceAllSymbolUses(sequence, freshAttr,
                                                     module)))
          return makeError(path + ": cannot rename @" + name);
        SymbolTable::setSymbolName(sequence, freshAttr);
      }
      taken.insert(fresh);
    }
    std::string error;
    FailureOr<transform::ForeachMatchOp> match = entryMatch(module, path, error);
    if (failed(match))
      return makeError(error);
    if (*match)
      for (auto [matcher, action] :
           llvm::zip((*match).getMatchers(), (*match).getActions()))
        pairs.emplace_back(
            cast<SymbolRefAttr>(matcher).getLeafReference().str(),
            cast<SymbolRefAttr>(action).getLeafReference().str());
    for (auto sequence : module.getOps<transform::NamedSequenceOp>()) {
      if (sequence.getSymName() == cpu::kSpecEntryPoint)
        continue;
      os << "  ";
      sequence->print(os);
      os << "\n";
    }
  }

  std::string text;
  SmallVector<StringRef> lines;
  if (!headerComment.empty())
    headerComment.split(lines, '\n');
  for (StringRef line : lines)
    text += "// " + line.str() + "\n";
  text += "module attributes {transform.with_named_sequence} {\n" + body +
          cpu::emitEntryPoint(pairs) + "}\n";
  // What we hand on must be what the compile step accepts.
  OwningOpRef<ModuleOp> check = parseSourceString<ModuleOp>(
      text, &cpu::compilerContext(), "<linked spec>");
  if (!check || failed(verify(*check)))
    return makeError("the linked spec does not verify");
  return text;
}

} // namespace retune::link
