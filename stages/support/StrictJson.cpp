//===- StrictJson.cpp - JSON exactly as RFC 8259 writes it ----------------===//
#include "stages/support/StrictJson.h"

#include "stages/support/FileUtil.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <vector>

using namespace llvm;

namespace retune {
namespace {

/// One open object or array while scanning.
struct Frame {
  bool isObject = false;
  /// In an object: the next string is a key.
  bool expectingKey = false;
  StringSet<> keys;
};

bool isDigit(char c) { return c >= '0' && c <= '9'; }

/// Whether `token` is a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
bool isJsonNumber(StringRef token) {
  size_t i = 0, n = token.size();
  auto digits = [&] {
    size_t start = i;
    while (i < n && isDigit(token[i]))
      ++i;
    return i > start;
  };
  if (i < n && token[i] == '-')
    ++i;
  if (i < n && token[i] == '0')
    ++i;
  else if (!digits())
    return false;
  if (i < n && token[i] == '.') {
    ++i;
    if (!digits())
      return false;
  }
  if (i < n && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    if (i < n && (token[i] == '+' || token[i] == '-'))
      ++i;
    if (!digits())
      return false;
  }
  return i == n;
}

/// The structural checks llvm::json does not make; iterative, so that no
/// input can exhaust the stack.
Error scan(StringRef text, unsigned maxDepth) {
  std::vector<Frame> stack;
  unsigned line = 1;
  auto fail = [&](const Twine &what) {
    return makeError(formatv("line {0}: {1}", line, what.str()).str());
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    switch (c) {
    case '\n':
      ++line;
      break;
    case '{':
    case '[':
      if (stack.size() >= maxDepth)
        return fail(formatv("nested deeper than {0} levels", maxDepth));
      stack.push_back({c == '{', c == '{', {}});
      break;
    case '}':
    case ']':
      if (!stack.empty())
        stack.pop_back();
      break;
    case ',':
      if (!stack.empty() && stack.back().isObject)
        stack.back().expectingKey = true;
      break;
    case '"': {
      size_t start = ++i;
      while (i < text.size() && text[i] != '"') {
        if (text[i] == '\\')
          ++i;
        else if (text[i] == '\n')
          ++line;
        ++i;
      }
      StringRef string = text.slice(start, std::min(i, text.size()));
      if (!stack.empty() && stack.back().isObject &&
          stack.back().expectingKey) {
        if (!stack.back().keys.insert(string).second)
          return fail("duplicate key \"" + string + "\"");
        stack.back().expectingKey = false;
      }
      break;
    }
    default:
      if (c == '-' || c == '+' || c == '.' || isDigit(c)) {
        size_t end = i;
        while (end < text.size() &&
               (isDigit(text[end]) || StringRef("+-.eE").contains(text[end])))
          ++end;
        StringRef token = text.slice(i, end);
        if (!isJsonNumber(token))
          return fail("'" + token + "' is not a JSON number");
        i = end - 1;
      }
      break;
    }
  }
  return Error::success();
}

} // namespace

Expected<json::Value> parseStrictJson(StringRef text, unsigned maxDepth) {
  if (Error err = scan(text, maxDepth))
    return std::move(err);
  return json::parse(text);
}

} // namespace retune
