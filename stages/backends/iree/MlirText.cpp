//===- MlirText.cpp - A focused reader for MLIR text with foreign dialects ===//
#include "stages/backends/iree/MlirText.h"

#include "stages/support/FileUtil.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace retune::iree {

namespace {

bool isIdStart(char c) { return isAlpha(c) || c == '_'; }
bool isIdChar(char c) {
  return isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '-';
}
bool isBareIdChar(char c) { return isAlnum(c) || c == '_' || c == '$' || c == '.'; }

bool isOpener(const Token &t) {
  return t.kind == TokKind::Punct &&
         (t.text == "(" || t.text == "[" || t.text == "{" || t.text == "<");
}
bool isCloser(const Token &t) {
  return t.kind == TokKind::Punct &&
         (t.text == ")" || t.text == "]" || t.text == "}" || t.text == ">");
}
char closerFor(StringRef open) {
  switch (open[0]) {
  case '(':
    return ')';
  case '[':
    return ']';
  case '{':
    return '}';
  default:
    return '>';
  }
}

/// Tokenizes `src`; errors name the line.
Error tokenize(StringRef src, StringRef fileName, std::vector<Token> &out) {
  unsigned line = 1;
  bool lineStart = true;
  size_t i = 0, n = src.size();
  auto push = [&](TokKind kind, size_t b, size_t e) {
    out.push_back({kind, src.slice(b, e), line, b, lineStart});
    lineStart = false;
  };
  while (i < n) {
    char c = src[i];
    if (c == '\n') {
      ++line;
      lineStart = true;
      ++i;
      continue;
    }
    if (isSpace(c)) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && src[i + 1] == '/') {
      while (i < n && src[i] != '\n')
        ++i;
      continue;
    }
    size_t b = i;
    if (c == '"') {
      ++i;
      while (i < n && src[i] != '"') {
        if (src[i] == '\\')
          ++i;
        else if (src[i] == '\n')
          return makeError(fileName + ":" + Twine(line) +
                           ": unterminated string literal; close the quote");
        ++i;
      }
      if (i >= n)
        return makeError(fileName + ":" + Twine(line) +
                         ": unterminated string literal; close the quote");
      ++i;
      push(TokKind::String, b, i);
      continue;
    }
    if (c == '%' || c == '@' || c == '#' || c == '!' || c == '^') {
      ++i;
      if (c == '@' && i < n && src[i] == '"') {
        ++i;
        while (i < n && src[i] != '"' && src[i] != '\n')
          ++i;
        ++i;
      } else if (c == '#' || c == '!') {
        while (i < n && isBareIdChar(src[i]))
          ++i;
      } else {
        while (i < n && isIdChar(src[i]))
          ++i;
        if (c == '%' && i + 1 < n && src[i] == '#' && isDigit(src[i + 1])) {
          ++i;
          while (i < n && isDigit(src[i]))
            ++i;
        }
      }
      TokKind kind = c == '%'   ? TokKind::Value
                     : c == '@' ? TokKind::Symbol
                     : c == '#' ? TokKind::Hash
                     : c == '!' ? TokKind::Bang
                                : TokKind::Caret;
      push(kind, b, i);
      continue;
    }
    if (isIdStart(c)) {
      while (i < n && isBareIdChar(src[i]))
        ++i;
      push(TokKind::Ident, b, i);
      continue;
    }
    if (isDigit(c) || (c == '-' && i + 1 < n && isDigit(src[i + 1]))) {
      ++i;
      while (i < n && (isAlnum(src[i]) || src[i] == '.' || src[i] == '_' ||
                       ((src[i] == '-' || src[i] == '+') &&
                        (src[i - 1] == 'e' || src[i - 1] == 'E'))))
        ++i;
      push(TokKind::Number, b, i);
      continue;
    }
    if (c == '-' && i + 1 < n && src[i + 1] == '>') {
      i += 2;
      push(TokKind::Arrow, b, i);
      continue;
    }
    if ((c == ':' && i + 1 < n && src[i + 1] == ':') ||
        ((c == '>' || c == '<' || c == '=') && i + 1 < n &&
         (src[i + 1] == '=' || (c == '=' && src[i + 1] == '>')))) {
      i += 2;
      push(TokKind::Punct, b, i);
      continue;
    }
    ++i;
    push(TokKind::Punct, b, i);
  }
  return Error::success();
}

class StatementParser {
public:
  StatementParser(const std::vector<Token> &toks,
                  const std::vector<size_t> &match)
      : toks(toks), match(match) {}

  bool is(size_t i, StringRef text) const {
    return i < toks.size() && toks[i].kind == TokKind::Punct &&
           toks[i].text == text;
  }

  /// Does a statement start at token `i`?
  bool isStatementStart(size_t i) const {
    const Token &t = toks[i];
    switch (t.kind) {
    case TokKind::Value:
      return is(i + 1, "=") || is(i + 1, ",") ||
             (is(i + 1, ":") && i + 2 < toks.size() &&
              toks[i + 2].kind == TokKind::Number);
    case TokKind::Ident:
      if (t.text == "module" || t.text == "return" || t.text == "func")
        return true;
      return t.text.contains('.') && !is(i + 1, "=");
    case TokKind::String:
      return is(i + 1, "(");
    case TokKind::Hash:
    case TokKind::Bang:
      return is(i + 1, "=");
    case TokKind::Caret:
      return true;
    default:
      return false;
    }
  }

  /// Is the `{` at `j` a region (rather than an attribute dictionary)?
  bool isRegionBrace(size_t j) const {
    if (j == 0)
      return false;
    const Token &prev = toks[j - 1];
    if (prev.kind == TokKind::Ident &&
        (prev.text == "attributes" || prev.text == "attrs"))
      return false;
    if (prev.kind == TokKind::Punct &&
        (prev.text == "=" || prev.text == "," || prev.text == "[" ||
         prev.text == "(" || prev.text == "<" || prev.text == "{"))
      return false;
    size_t next = j + 1;
    if (next >= toks.size())
      return false;
    if (is(next, "}"))
      return prev.kind == TokKind::Punct && (prev.text == "}" || prev.text == ")");
    const Token &nt = toks[next];
    if ((nt.kind == TokKind::Ident || nt.kind == TokKind::String) &&
        is(next + 1, "="))
      return false;
    if ((nt.kind == TokKind::Ident || nt.kind == TokKind::String) &&
        nt.line == toks[j].line && (is(next + 1, ",") || is(next + 1, "}")))
      return false;
    return true;
  }

  /// Parses statements in [i, limit) (limit: the region's `}` or the end).
  std::vector<OpNode> parseBody(size_t i, size_t limit) {
    std::vector<OpNode> ops;
    while (i < limit) {
      const Token &t = toks[i];
      if (t.kind == TokKind::Caret) {
        // Block label: ^bb0(%a: T, ...):
        ++i;
        if (is(i, "("))
          i = match[i] + 1;
        if (is(i, ":"))
          ++i;
        continue;
      }
      OpNode op;
      i = parseStatement(i, limit, op);
      ops.push_back(std::move(op));
    }
    return ops;
  }

  size_t parseRegion(size_t open, OpNode &op) {
    size_t close = match[open];
    op.regionBraces.push_back({open, close});
    op.regions.push_back(parseBody(open + 1, close));
    return close + 1;
  }

  size_t parseStatement(size_t i, size_t limit, OpNode &op) {
    op.begin = i;
    op.line = toks[i].line;
    // Results: %a, %b:2 = ...
    size_t k = i;
    SmallVector<std::string> results;
    while (k < limit && toks[k].kind == TokKind::Value) {
      results.push_back(toks[k].text.str());
      ++k;
      if (is(k, ":") && k + 1 < limit && toks[k + 1].kind == TokKind::Number)
        k += 2;
      if (is(k, ",")) {
        ++k;
        continue;
      }
      break;
    }
    if (!results.empty() && is(k, "=")) {
      op.results = std::move(results);
      i = k + 1;
    }
    size_t j = i;
    if (j < limit) {
      const Token &nameTok = toks[j];
      if (nameTok.kind == TokKind::String)
        op.name = nameTok.text.drop_front().drop_back().str();
      else
        op.name = nameTok.text.str();
      ++j;
    }
    while (j < limit) {
      const Token &t = toks[j];
      if (t.lineStart && isStatementStart(j))
        break;
      if (is(j, "{") && isRegionBrace(j)) {
        j = parseRegion(j, op);
        continue;
      }
      if (is(j, "(") && is(j + 1, "{")) {
        // Generic form: ({...}, {...})
        size_t close = match[j];
        size_t r = j + 1;
        while (r < close && is(r, "{")) {
          r = parseRegion(r, op);
          if (is(r, ","))
            ++r;
        }
        j = close + 1;
        continue;
      }
      if (isOpener(t)) {
        j = match[j] + 1;
        continue;
      }
      ++j;
    }
    op.end = j;
    return j;
  }

private:
  const std::vector<Token> &toks;
  const std::vector<size_t> &match;
};

} // namespace

Expected<std::unique_ptr<TextFile>> TextFile::parse(StringRef text,
                                                    StringRef fileName) {
  auto file = std::make_unique<TextFile>();
  file->name = fileName.str();
  file->source = text.str();
  if (Error err = tokenize(file->source, fileName, file->toks))
    return std::move(err);
  const std::vector<Token> &toks = file->toks;
  file->match.assign(toks.size(), SIZE_MAX);
  SmallVector<size_t> stack;
  for (size_t i = 0; i < toks.size(); ++i) {
    if (isOpener(toks[i])) {
      stack.push_back(i);
      continue;
    }
    if (!isCloser(toks[i]))
      continue;
    if (stack.empty() || closerFor(toks[stack.back()].text) != toks[i].text[0])
      return makeError(fileName + ":" + Twine(toks[i].line) + ": unbalanced '" +
                       toks[i].text +
                       "'; the file is not valid MLIR text (check brackets)");
    file->match[stack.back()] = i;
    file->match[i] = stack.back();
    stack.pop_back();
  }
  if (!stack.empty())
    return makeError(fileName + ":" + Twine(toks[stack.back()].line) +
                     ": unclosed '" + toks[stack.back()].text +
                     "'; the file is truncated or not valid MLIR text");
  StatementParser parser(toks, file->match);
  file->top = parser.parseBody(0, toks.size());
  return std::move(file);
}

StringRef TextFile::slice(size_t b, size_t e) const {
  if (b >= e || b >= toks.size())
    return {};
  size_t start = toks[b].offset;
  size_t stop = toks[e - 1].offset + toks[e - 1].text.size();
  return StringRef(source).slice(start, stop);
}

bool TextFile::isOwnToken(const OpNode &op, size_t i) const {
  if (i < op.begin || i >= op.end)
    return false;
  for (auto [open, close] : op.regionBraces)
    if (i > open && i < close)
      return false;
  return true;
}

size_t TextFile::matching(size_t i) const { return match[i]; }

std::optional<std::string> TextFile::symbolName(const OpNode &op) const {
  for (size_t i = op.begin; i < op.end; ++i) {
    if (!isOwnToken(op, i))
      continue;
    if (toks[i].kind == TokKind::Symbol) {
      StringRef s = toks[i].text.drop_front();
      if (s.starts_with("\"") && s.ends_with("\""))
        s = s.drop_front().drop_back();
      return s.str();
    }
    // Stop at the first opener: a symbol appears before any operand list.
    if (isOpener(toks[i]))
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::pair<size_t, size_t>>
TextFile::attrValue(const OpNode &op, StringRef key) const {
  for (size_t i = op.begin; i + 2 < op.end; ++i) {
    if (!isOwnToken(op, i))
      continue;
    const Token &t = toks[i];
    bool keyMatch = (t.kind == TokKind::Ident && t.text == key) ||
                    (t.kind == TokKind::String &&
                     t.text.drop_front().drop_back() == key);
    if (!keyMatch || toks[i + 1].kind != TokKind::Punct ||
        toks[i + 1].text != "=")
      continue;
    size_t b = i + 2, e = b;
    while (e < op.end) {
      if (isOpener(toks[e])) {
        e = match[e] + 1;
        continue;
      }
      if (isCloser(toks[e]) ||
          (toks[e].kind == TokKind::Punct && toks[e].text == ","))
        break;
      ++e;
    }
    return std::make_pair(b, e);
  }
  return std::nullopt;
}

bool TextFile::hasAttr(const OpNode &op, StringRef key) const {
  for (size_t i = op.begin + 1; i + 1 < op.end; ++i) {
    if (!isOwnToken(op, i) || toks[i].kind != TokKind::Ident ||
        toks[i].text != key)
      continue;
    const Token &prev = toks[i - 1], &next = toks[i + 1];
    bool prevOk = prev.kind == TokKind::Punct &&
                  (prev.text == "{" || prev.text == ",");
    bool nextOk = next.kind == TokKind::Punct &&
                  (next.text == "=" || next.text == "," || next.text == "}");
    if (prevOk && nextOk)
      return true;
  }
  return false;
}

bool TextFile::hasUnitAttr(const OpNode &op, StringRef key) const {
  return hasAttr(op, key) && !attrValue(op, key);
}

SmallVector<std::pair<size_t, size_t>>
TextFile::splitTopLevel(size_t b, size_t e, StringRef sep) const {
  SmallVector<std::pair<size_t, size_t>> parts;
  size_t start = b;
  for (size_t i = b; i < e;) {
    if (isOpener(toks[i])) {
      i = match[i] + 1;
      continue;
    }
    if (toks[i].kind == TokKind::Punct && toks[i].text == sep) {
      parts.push_back({start, i});
      start = i + 1;
    }
    ++i;
  }
  if (start < e)
    parts.push_back({start, e});
  return parts;
}

std::string TextFile::where(unsigned line) const {
  return name + ":" + std::to_string(line);
}

void walkOps(const std::vector<OpNode> &ops,
             const std::function<void(const OpNode &)> &fn) {
  for (const OpNode &op : ops) {
    fn(op);
    for (const std::vector<OpNode> &region : op.regions)
      walkOps(region, fn);
  }
}

void TextFile::walk(const std::function<void(const OpNode &)> &fn) const {
  walkOps(top, fn);
}

std::vector<std::string> splitInputFile(StringRef text) {
  std::vector<std::string> chunks;
  std::string current;
  unsigned linesBefore = 0, chunkStartLines = 0;
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (StringRef line : lines) {
    if (line.trim().starts_with("// -----")) {
      chunks.push_back(std::string(chunkStartLines, '\n') + current);
      current.clear();
      ++linesBefore;
      chunkStartLines = linesBefore;
      continue;
    }
    current += line.str() + "\n";
    ++linesBefore;
  }
  chunks.push_back(std::string(chunkStartLines, '\n') + current);
  return chunks;
}

} // namespace retune::iree
