//===- ModelText.cpp - A model's public functions, read as text -----------===//
#include "stages/core/ModelText.h"

#include "llvm/Support/Regex.h"

using namespace llvm;

namespace retune {

namespace {
/// The name a symbol reference spells: `@main` -> "main", and a quoted one
/// (an ONNX graph named "Model from PaddlePaddle." imports as
/// `@"Model from PaddlePaddle."`) without its quotes and escapes.
std::string symbolName(StringRef spelled) {
  if (!spelled.consume_front("\"") || !spelled.consume_back("\""))
    return spelled.str();
  std::string name;
  for (size_t i = 0; i < spelled.size(); ++i) {
    if (spelled[i] == '\\' && i + 1 < spelled.size())
      ++i;
    name += spelled[i];
  }
  return name;
}
} // namespace

std::vector<FunctionHeader> publicFunctions(StringRef text) {
  std::vector<FunctionHeader> found;
  Regex header("(func\\.func|util\\.func)[ \t]+(public[ \t]+|private[ \t]+)?"
               "@([A-Za-z0-9_$.-]+|\"([^\"\\]|\\\\.)*\")\\(");
  SmallVector<StringRef> m;
  for (StringRef rest = text; header.match(rest, &m);) {
    size_t open = m[0].data() + m[0].size() - text.data();
    rest = text.drop_front(open);
    // The argument list ends at the matching parenthesis.
    int depth = 1;
    size_t end = open;
    while (end < text.size() && depth > 0) {
      char c = text[end++];
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    }
    bool isPrivate = m[2].trim() == "private";
    if (!isPrivate)
      found.push_back(
          {symbolName(m[3]), text.slice(open, end - 1),
           static_cast<unsigned>(text.take_front(open).count('\n') + 1)});
    rest = text.drop_front(end);
  }
  return found;
}

} // namespace retune
