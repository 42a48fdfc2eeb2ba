//===- TransformText.cpp - Reading transform-dialect statements as text ---===//
#include "stages/backends/iree/TransformText.h"

using namespace llvm;

namespace retune::iree {

namespace {
bool isPunct(const Token &t, StringRef text) {
  return t.kind == TokKind::Punct && t.text == text;
}

/// Types of a parenthesized list starting at `open`, or one bare type.
SmallVector<std::string> readTypes(const TextFile &file, size_t b, size_t e) {
  SmallVector<std::string> types;
  const std::vector<Token> &toks = file.tokens();
  if (b < e && isPunct(toks[b], "(")) {
    size_t close = file.matching(b);
    for (auto [pb, pe] : file.splitTopLevel(b + 1, close))
      types.push_back(file.slice(pb, pe).str());
    return types;
  }
  if (b < e)
    types.push_back(file.slice(b, e).str());
  return types;
}
} // namespace

bool SequenceArg::consumed() const {
  return StringRef(attrs).contains("transform.consumed");
}
bool SequenceArg::readonly() const {
  return StringRef(attrs).contains("transform.readonly");
}

NamedSequence readNamedSequence(const TextFile &file, const OpNode &op) {
  NamedSequence seq;
  seq.hasBody = !op.regions.empty();
  const std::vector<Token> &toks = file.tokens();
  size_t i = op.begin + 1;
  while (i < op.end && toks[i].kind != TokKind::Symbol)
    ++i;
  if (i >= op.end)
    return seq;
  seq.name = toks[i].text.drop_front().str();
  ++i;
  if (i >= op.end || !isPunct(toks[i], "("))
    return seq;
  size_t close = file.matching(i);
  for (auto [pb, pe] : file.splitTopLevel(i + 1, close)) {
    SequenceArg arg;
    size_t k = pb;
    if (k < pe && toks[k].kind == TokKind::Value)
      arg.name = toks[k++].text.str();
    if (k < pe && isPunct(toks[k], ":"))
      ++k;
    size_t typeEnd = pe;
    if (pe > k && isPunct(toks[pe - 1], "}")) {
      typeEnd = file.matching(pe - 1);
      arg.attrs = file.slice(typeEnd, pe).str();
    }
    arg.type = file.slice(k, typeEnd).str();
    seq.args.push_back(std::move(arg));
  }
  i = close + 1;
  if (i < op.end && toks[i].kind == TokKind::Arrow) {
    size_t b = i + 1, e = b;
    if (b < op.end && isPunct(toks[b], "(")) {
      e = file.matching(b) + 1;
    } else {
      while (e < op.end && !(toks[e].kind == TokKind::Ident &&
                             toks[e].text == "attributes") &&
             !isPunct(toks[e], "{"))
        e = (isPunct(toks[e], "<") ? file.matching(e) : e) + 1;
    }
    seq.resultTypes = readTypes(file, b, e);
  }
  return seq;
}

ForeachMatch readForeachMatch(const TextFile &file, const OpNode &op) {
  ForeachMatch fm;
  const std::vector<Token> &toks = file.tokens();
  size_t i = op.begin;
  while (i < op.end && toks[i].text != "transform.foreach_match")
    ++i;
  ++i;
  for (; i < op.end && toks[i].kind == TokKind::Ident; ++i) {
    if (toks[i].text == "restrict_root")
      fm.restrictRoot = true;
    else if (toks[i].text == "flatten_results")
      fm.flattenResults = true;
    else if (toks[i].text == "in") {
      ++i;
      break;
    }
  }
  for (; i < op.end && toks[i].kind != TokKind::Symbol; ++i)
    if (toks[i].kind == TokKind::Value)
      fm.operands.push_back(toks[i].text.str());
  while (i + 2 < op.end && toks[i].kind == TokKind::Symbol &&
         toks[i + 1].kind == TokKind::Arrow &&
         toks[i + 2].kind == TokKind::Symbol) {
    fm.pairs.push_back({toks[i].text.drop_front().str(),
                        toks[i + 2].text.drop_front().str()});
    i += 3;
    if (i < op.end && isPunct(toks[i], ","))
      ++i;
  }
  if (i < op.end && isPunct(toks[i], ":")) {
    ++i;
    if (i < op.end && isPunct(toks[i], "(")) {
      size_t close = file.matching(i);
      fm.operandTypes = readTypes(file, i, close + 1);
      i = close + 1;
    }
    if (i < op.end && toks[i].kind == TokKind::Arrow)
      fm.resultTypes = readTypes(file, i + 1, op.end);
  }
  return fm;
}

} // namespace retune::iree
