//===- ModelSignature.cpp - A model's entry function and its inputs -------===//
#include "stages/backends/iree/ModelSignature.h"

#include "stages/core/ModelText.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

using namespace llvm;

namespace retune::iree {
namespace {

/// `256x1024xf32` from `tensor<256x1024xf32>`, `1x128xi64` from
/// `!torch.vtensor<[1,128],si64>`.
Expected<std::string> inputOf(StringRef type) {
  SmallVector<StringRef> m;
  if (Regex("^tensor<([0-9x]*)([a-z][a-z0-9]*)>$").match(type, &m))
    return (m[1] + m[2]).str();
  if (Regex("^!torch\\.vtensor<\\[([0-9,]*)\\],([a-z][a-z0-9]*)>$")
          .match(type, &m)) {
    SmallVector<StringRef> dims;
    m[1].split(dims, ',', -1, false);
    std::string shape;
    for (StringRef dim : dims)
      shape += dim.str() + "x";
    // Torch spells signed integers si64; IREE's inputs use i64.
    StringRef element = m[2].starts_with("si") ? m[2].drop_front(1) : m[2];
    return shape + element.str();
  }
  return makeError(type.str());
}

/// The types of an argument list `%a: T1, %b: T2 {attrs}`.
std::vector<StringRef> argumentTypes(StringRef arguments) {
  std::vector<StringRef> types;
  Regex argument("%[A-Za-z0-9_]+[ \t\n]*:[ \t\n]*");
  SmallVector<StringRef> m;
  for (StringRef rest = arguments; argument.match(rest, &m);) {
    rest = rest.drop_front(m[0].data() + m[0].size() - rest.data());
    // The type runs to the first top-level ',', '{' or the end.
    int depth = 0;
    size_t end = 0;
    for (; end < rest.size(); ++end) {
      char c = rest[end];
      if (depth == 0 && (c == ',' || c == '{'))
        break;
      depth += (c == '<' || c == '[' || c == '(')   ? 1
               : (c == '>' || c == ']' || c == ')') ? -1
                                                    : 0;
    }
    types.push_back(rest.take_front(end).trim());
    rest = rest.drop_front(end);
  }
  return types;
}

} // namespace

Expected<EntryFunction> readEntryFunction(StringRef modelText, StringRef entry,
                                          StringRef fileName) {
  std::vector<FunctionHeader> functions = publicFunctions(modelText);
  std::vector<std::string> names;
  for (const FunctionHeader &f : functions)
    names.push_back("@" + f.name);
  const FunctionHeader *chosen = nullptr;
  if (!entry.empty()) {
    for (const FunctionHeader &f : functions)
      if (f.name == entry)
        chosen = &f;
    if (!chosen)
      return makeError(fileName + ": no public function @" + entry +
                       " (public functions: " +
                       (names.empty() ? "none" : join(names, ", ")) +
                       "); fix [model] entry in tune.toml");
  } else {
    if (functions.size() != 1)
      return makeError(
          fileName + ": " + std::to_string(functions.size()) +
          " public functions (" + (names.empty() ? "none" : join(names, ", ")) +
          "); name the one to benchmark with [model] entry in tune.toml");
    chosen = &functions.front();
  }
  EntryFunction result{chosen->name, {}};
  for (auto [i, type] : enumerate(argumentTypes(chosen->arguments))) {
    Expected<std::string> input = inputOf(type);
    if (!input)
      return makeError(fileName + ":" + std::to_string(chosen->line) +
                       ": argument " + std::to_string(i) + " of @" +
                       chosen->name + " has type " +
                       toString(input.takeError()) +
                       ", which needs explicit data (dynamic or non-tensor); "
                       "give every input in [iree] benchmark_flags "
                       "(\"--input=...\")");
    result.inputs.push_back(std::move(*input));
  }
  return result;
}

Expected<ModelInvocation>
resolveModelInvocation(StringRef modelPath, StringRef entry,
                       ArrayRef<std::string> benchFlags) {
  ModelInvocation result{entry.str(), benchFlags.vec()};
  bool hasInputs = llvm::any_of(
      result.flags, [](StringRef flag) { return flag.starts_with("--input"); });
  if (!result.function.empty() && hasInputs)
    return result;
  Expected<std::string> text = readFile(modelPath);
  if (!text)
    return text.takeError();
  Expected<EntryFunction> signature =
      readEntryFunction(*text, entry, modelPath);
  if (!signature)
    return signature.takeError();
  result.function = signature->name;
  if (!hasInputs)
    for (const std::string &input : signature->inputs)
      result.flags.push_back("--input=" + input);
  return result;
}

} // namespace retune::iree
