//===- IreeTextReader.cpp - IREE's files read as text ---------------------===//
#include "stages/backends/iree/IreeTextReader.h"

#include "stages/backends/iree/MlirText.h"
#include "stages/backends/iree/RootOpProblem.h"
#include "stages/support/FileUtil.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace llvm;

namespace retune::iree {

namespace {

std::string unquote(StringRef s) {
  s = s.trim();
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"')
    return s.drop_front().drop_back().str();
  return s.str();
}

/// Value text of attribute `key` in `op`, or "".
std::string attrText(const TextFile &file, const OpNode &op, StringRef key) {
  if (auto range = file.attrValue(op, key))
    return file.slice(range->first, range->second).str();
  return {};
}

/// Index of the own token `word` followed by `(`, or SIZE_MAX.
size_t findGroup(const TextFile &file, const OpNode &op, StringRef word) {
  const std::vector<Token> &toks = file.tokens();
  for (size_t i = op.begin; i + 1 < op.end; ++i)
    if (file.isOwnToken(op, i) && toks[i].kind == TokKind::Ident &&
        toks[i].text == word && toks[i + 1].text == "(")
      return i + 1;
  return SIZE_MAX;
}

struct OperandGroup {
  SmallVector<std::string> operands, types;
  size_t open = 0, close = 0;
};

std::optional<OperandGroup> readGroup(const TextFile &file, size_t open) {
  OperandGroup group;
  group.open = open;
  group.close = file.matching(open);
  SmallVector<std::pair<size_t, size_t>> halves =
      file.splitTopLevel(open + 1, group.close, ":");
  if (halves.size() != 2)
    return std::nullopt;
  for (auto [b, e] : file.splitTopLevel(halves[0].first, halves[0].second))
    group.operands.push_back(file.slice(b, e).str());
  for (auto [b, e] : file.splitTopLevel(halves[1].first, halves[1].second))
    group.types.push_back(file.slice(b, e).str());
  if (group.operands.size() != group.types.size())
    return std::nullopt;
  return group;
}

/// Whether the op's body only yields one of its inputs' elements
/// (`^bb0(%in: f32, %out: f32): linalg.yield %in : f32`): a transpose, copy
/// or broadcast, which moves data and computes nothing.
bool onlyMovesData(const TextFile &file, const OpNode &op, unsigned numInputs) {
  if (op.regions.size() != 1 || op.regions[0].size() != 1 ||
      op.regions[0][0].name != "linalg.yield")
    return false;
  const std::vector<Token> &toks = file.tokens();
  const OpNode &yield = op.regions[0][0];
  SmallVector<StringRef> blockArgs;
  for (size_t i = op.regionBraces[0].first + 1; i < yield.begin; ++i)
    if (toks[i].kind == TokKind::Value)
      blockArgs.push_back(toks[i].text);
  SmallVector<StringRef> yielded;
  for (size_t i = yield.begin; i < yield.end; ++i)
    if (toks[i].kind == TokKind::Value)
      yielded.push_back(toks[i].text);
  if (yielded.size() != 1 || blockArgs.size() <= numInputs)
    return false;
  return llvm::is_contained(ArrayRef(blockArgs).take_front(numInputs),
                            yielded.front());
}

Expected<Problem> problemFromOp(const TextFile &file, const OpNode &op,
                                StringRef aliases, StringRef target) {
  std::string where = file.where(op.line);
  size_t insOpen = findGroup(file, op, "ins");
  size_t outsOpen = findGroup(file, op, "outs");
  if (insOpen == SIZE_MAX || outsOpen == SIZE_MAX)
    return makeError(where + ": root op '" + op.name +
                     "' has no ins(...)/outs(...); only linalg ops and "
                     "iree_linalg_ext.attention are tuned");
  std::optional<OperandGroup> ins = readGroup(file, insOpen);
  std::optional<OperandGroup> outs = readGroup(file, outsOpen);
  if (!ins || !outs)
    return makeError(where + ": cannot read the operands of '" + op.name +
                     "' (expected 'ins(%a, %b : T, T) outs(%c : T)')");
  std::unique_ptr<mlir::MLIRContext> context = makeReaderContext();
  DiagnosticCapture diagnostics(*context);

  Problem problem;
  problem.opName = op.name;
  problem.target = target.str();
  problem.numInputs = ins->types.size();
  SmallVector<mlir::Type> operandTypes;
  for (const std::string &text :
       llvm::concat<std::string>(ins->types, outs->types))
    if (Error err = addOperandType(problem, operandTypes, text, *context,
                                   diagnostics, where))
      return std::move(err);

  SmallVector<mlir::AffineMap> maps;
  if (op.name == "iree_linalg_ext.attention") {
    std::string mapsText = attrText(file, op, "indexing_maps");
    auto array = dyn_cast_if_present<mlir::ArrayAttr>(
        mlir::parseAttribute(mapsText, context.get()));
    if (!array)
      return makeError(where + ": attention without readable indexing_maps: " +
                       diagnostics.message);
    for (mlir::Attribute attr : array) {
      auto map = dyn_cast<mlir::AffineMapAttr>(attr);
      if (!map)
        return makeError(where + ": indexing_maps must hold affine maps");
      maps.push_back(map.getValue());
    }
    if (maps.size() != operandTypes.size())
      return makeError(where + ": attention has " + Twine(maps.size()) +
                       " maps for " + Twine(operandTypes.size()) + " operands");
    problem.loopRanges = loopRangesFromShapes(maps, operandTypes);
    if (Error err = classifyAttention(problem, maps, where))
      return std::move(err);
  } else if (StringRef(op.name).starts_with("linalg.")) {
    // Rebuild the op with fresh operands (and, for ops with a region, a
    // trivial body) so that upstream MLIR can parse it in isolation.
    const std::vector<Token> &toks = file.tokens();
    size_t nameTok = op.begin;
    while (nameTok < op.end && toks[nameTok].text != op.name)
      ++nameTok;
    std::string args, groupIns = "(", groupOuts = "(";
    size_t n = 0;
    auto addGroup = [&](const OperandGroup &g, std::string &text) {
      SmallVector<std::string> names;
      for (const std::string &type : g.types) {
        std::string name = "%a" + std::to_string(n++);
        args += (args.empty() ? "" : ", ") + name + ": " + type;
        names.push_back(name);
      }
      text += join(names, ", ") + " : " + join(g.types, ", ") + ")";
    };
    addGroup(*ins, groupIns);
    addGroup(*outs, groupOuts);
    std::string body = "{\n^bb0(";
    for (auto [i, type] : llvm::enumerate(problem.elementTypes))
      body += (i ? ", %e" : "%e") + std::to_string(i) + ": " + type;
    body += "):\n  linalg.yield ";
    SmallVector<std::string> yielded, yieldedTypes;
    for (size_t i = problem.numInputs; i < problem.elementTypes.size(); ++i) {
      yielded.push_back("%e" + std::to_string(i));
      yieldedTypes.push_back(problem.elementTypes[i]);
    }
    body += join(yielded, ", ") + " : " + join(yieldedTypes, ", ") + "\n}";
    std::string rootText;
    StringRef src = file.text();
    size_t pos = toks[nameTok].offset;
    size_t i = nameTok;
    while (i < op.end) {
      std::string replacement;
      size_t skipTo = 0;
      if (i == ins->open || i == outs->open) {
        replacement = i == ins->open ? groupIns : groupOuts;
        skipTo = file.matching(i) + 1;
      } else {
        for (auto [open, close] : op.regionBraces)
          if (i == open) {
            replacement = body;
            skipTo = close + 1;
          }
      }
      if (!skipTo) {
        ++i;
        continue;
      }
      rootText += src.slice(pos, toks[i].offset).str() + replacement;
      i = skipTo;
      pos = i < toks.size() ? toks[i - 1].offset + toks[i - 1].text.size()
                            : src.size();
    }
    rootText += src.slice(pos, toks[op.end - 1].offset +
                                   toks[op.end - 1].text.size())
                .str();
    std::string module = aliases.str() + "func.func @retune_root(" + args +
                         ") {\n  " + rootText + "\n  return\n}\n";
    mlir::OwningOpRef<mlir::ModuleOp> parsed =
        mlir::parseSourceString<mlir::ModuleOp>(module, context.get());
    if (!parsed)
      return makeError(where + ": MLIR could not read root op '" + op.name +
                       "': " + diagnostics.message);
    mlir::linalg::LinalgOp linalgOp;
    parsed->walk([&](mlir::linalg::LinalgOp found) { linalgOp = found; });
    if (!linalgOp)
      return makeError(where + ": '" + op.name + "' is not a linalg op");
    maps = linalgOp.getIndexingMapsArray();
    for (int64_t range : linalgOp.getStaticLoopRanges())
      problem.loopRanges.push_back(range);
    for (mlir::utils::IteratorType it : linalgOp.getIteratorTypesArray())
      problem.iteratorTypes.push_back(
          mlir::utils::stringifyIteratorType(it).str());
    // A computing body is matched by its DAG, which needs IREE's library.
    if (Error err = classifyLinalgOp(
            problem, maps, onlyMovesData(file, op, problem.numInputs),
            /*matchesBody=*/false, where))
      return std::move(err);
  } else {
    return makeError(where + ": root op '" + op.name +
                     "' is not a linalg op or iree_linalg_ext.attention; it "
                     "is not tuned");
  }
  return sealProblem(std::move(problem), maps, where);
}

/// Top-level `#alias = ...` / `!alias = ...` definitions, as text.
std::string aliasDefinitions(const TextFile &file) {
  std::string out;
  for (const OpNode &op : file.ops())
    if (!op.name.empty() && (op.name[0] == '#' || op.name[0] == '!'))
      out += file.opText(op).str() + "\n";
  return out;
}

std::string resolveAlias(const TextFile &file, StringRef text) {
  text = text.trim();
  if (!(text.starts_with("#") && !text.contains('<')))
    return text.str();
  for (const OpNode &op : file.ops())
    if (op.name == text) {
      StringRef def = file.opText(op);
      return def.split('=').second.trim().str();
    }
  return text.str();
}

} // namespace

Expected<IreeTarget> readIreeTarget(StringRef text, StringRef where) {
  IreeTarget target;
  target.text = text.trim().str();
  Expected<std::unique_ptr<TextFile>> parsed = TextFile::parse(text, where);
  if (!parsed)
    return parsed.takeError();
  const TextFile &file = **parsed;
  const std::vector<Token> &toks = file.tokens();
  SmallVector<std::string> strings;
  // The first two strings at the target's own nesting level.
  int depth = 0;
  for (const Token &t : toks) {
    if (t.kind == TokKind::Punct && (t.text == "<" || t.text == "{" ||
                                     t.text == "(" || t.text == "["))
      ++depth;
    else if (t.kind == TokKind::Punct && (t.text == ">" || t.text == "}" ||
                                          t.text == ")" || t.text == "]"))
      --depth;
    else if (t.kind == TokKind::String && depth == 1 && strings.size() < 2)
      strings.push_back(unquote(t.text));
  }
  if (strings.size() < 2)
    return makeError(where + ": not an executable target (expected "
                             "'#hal.executable.target<\"backend\", "
                             "\"format\", {...}>'): " +
                     text.trim().take_front(120));
  target.backend = strings[0];
  target.format = strings[1];
  if (file.ops().empty())
    return target;
  const OpNode &op = file.ops().front();
  target.gpuTargetInfo = attrText(file, op, "iree_codegen.target_info");
  if (!target.gpuTargetInfo.empty()) {
    target.arch = unquote(attrText(file, op, "arch"));
    target.sku = unquote(attrText(file, op, "sku"));
  } else {
    target.arch = unquote(attrText(file, op, "cpu"));
    target.cpuFeatures = unquote(attrText(file, op, "cpu_features"));
    target.triple = unquote(attrText(file, op, "target_triple"));
  }
  return target;
}

Expected<std::vector<IreeTarget>> readTargetsAsText(StringRef text,
                                                    StringRef fileName) {
  Expected<std::unique_ptr<TextFile>> parsed = TextFile::parse(text, fileName);
  if (!parsed)
    return parsed.takeError();
  const TextFile &file = **parsed;
  std::vector<IreeTarget> targets;
  Error error = Error::success();
  file.walk([&](const OpNode &op) {
    if (op.name != "hal.executable.variant" || error)
      return;
    size_t open = findGroup(file, op, "target");
    if (open == SIZE_MAX)
      return;
    std::string targetText =
        resolveAlias(file, file.slice(open + 1, file.matching(open)));
    Expected<IreeTarget> target =
        readIreeTarget(targetText, file.where(op.line));
    if (!target) {
      error = target.takeError();
      return;
    }
    targets.push_back(std::move(*target));
  });
  if (error)
    return std::move(error);
  return targets;
}

Expected<Problem> problemFromRootOp(StringRef opText, StringRef target,
                                    StringRef where) {
  Expected<std::unique_ptr<TextFile>> parsed = TextFile::parse(opText, where);
  if (!parsed)
    return parsed.takeError();
  if ((*parsed)->ops().empty())
    return makeError(where + ": no operation in root op text");
  return problemFromOp(**parsed, (*parsed)->ops().front(), "", target);
}

Expected<IreeDispatch> readDispatchAsText(StringRef text, StringRef fileName) {
  Expected<std::unique_ptr<TextFile>> parsed = TextFile::parse(text, fileName);
  if (!parsed)
    return parsed.takeError();
  const TextFile &file = **parsed;
  IreeDispatch dispatch;
  const OpNode *variant = nullptr;
  file.walk([&](const OpNode &op) {
    if (op.name == "hal.executable" && dispatch.executable.empty())
      dispatch.executable = file.symbolName(op).value_or("");
    if (op.name == "hal.executable.variant" && !variant)
      variant = &op;
    if (op.name == "util.func" && dispatch.benchmarkFunction.empty() &&
        file.opText(op).contains("iree.benchmark = \"dispatch\""))
      dispatch.benchmarkFunction = file.symbolName(op).value_or("");
  });
  if (!variant)
    return makeError(fileName + kNotABenchmark);
  dispatch.variant = file.symbolName(*variant).value_or("");
  size_t open = findGroup(file, *variant, "target");
  if (open == SIZE_MAX)
    return makeError(file.where(variant->line) +
                     ": executable variant without target(...)");
  Expected<IreeTarget> target = readIreeTarget(
      resolveAlias(file, file.slice(open + 1, file.matching(open))),
      file.where(variant->line));
  if (!target)
    return target.takeError();
  dispatch.target = std::move(*target);

  SmallVector<std::pair<const OpNode *, std::string>> roots;
  std::string currentFunc;
  std::function<void(const std::vector<OpNode> &, const std::string &)> visit =
      [&](const std::vector<OpNode> &ops, const std::string &func) {
        for (const OpNode &op : ops) {
          if (op.name == "hal.executable.export" && dispatch.exportName.empty())
            dispatch.exportName = file.symbolName(op).value_or("");
          std::string inner = func;
          if (op.name == "func.func")
            inner = file.symbolName(op).value_or("");
          if (file.hasAttr(op, "root_op"))
            roots.push_back({&op, func});
          for (const std::vector<OpNode> &region : op.regions)
            visit(region, inner);
        }
      };
  for (const std::vector<OpNode> &region : variant->regions)
    visit(region, "");
  if (roots.empty())
    return makeError(fileName + kNoRootOp);
  if (roots.size() > 1)
    return makeError(file.where(roots[1].first->line) +
                     ": multiple root ops in one dispatch; only one is "
                     "supported (as in amdsharktuner)");
  const OpNode &root = *roots.front().first;
  dispatch.funcName = roots.front().second;
  dispatch.rootOpText = file.opText(root).str();
  Expected<Problem> problem = problemFromOp(file, root, aliasDefinitions(file),
                                            dispatch.target.problemTarget());
  if (!problem)
    return problem.takeError();
  dispatch.problem = std::move(*problem);
  return dispatch;
}

namespace {
/// Deletes the attribute `name` (`name` or `name = <value>`) from every op's
/// attribute dictionary, with its separator; an emptied dictionary goes too.
Expected<std::string> dropAttribute(StringRef text, StringRef fileName,
                                    StringRef name) {
  Expected<std::unique_ptr<TextFile>> parsed = TextFile::parse(text, fileName);
  if (!parsed)
    return parsed.takeError();
  const TextFile &file = **parsed;
  const std::vector<Token> &toks = file.tokens();
  // Byte ranges to delete.
  SmallVector<std::pair<size_t, size_t>> cuts;
  auto endOf = [&](size_t i) { return toks[i].offset + toks[i].text.size(); };
  file.walk([&](const OpNode &op) {
    if (!file.hasAttr(op, name))
      return;
    for (size_t i = op.begin + 1; i + 1 < op.end; ++i) {
      if (!file.isOwnToken(op, i) || toks[i].text != name ||
          !(toks[i - 1].text == "{" || toks[i - 1].text == ","))
        continue;
      size_t last = i;
      if (toks[i + 1].text == "=") {
        auto range = file.attrValue(op, name);
        last = range->second - 1;
      }
      size_t next = last + 1;
      bool onlyEntry = toks[i - 1].text == "{" && toks[next].text == "}";
      if (onlyEntry) {
        size_t open = i - 1, first = open;
        if (open >= 2 && toks[open - 1].text == "=" &&
            toks[open - 2].text == "attrs")
          first = open - 2;
        cuts.push_back({endOf(first - 1), endOf(next)});
      } else if (toks[next].text == ",") {
        cuts.push_back({toks[i].offset, toks[next + 1].offset});
      } else {
        cuts.push_back({endOf(i - 2), endOf(last)});
      }
      return;
    }
  });
  std::string out = text.str();
  std::sort(cuts.begin(), cuts.end());
  for (auto it = cuts.rbegin(); it != cuts.rend(); ++it)
    out.erase(it->first, it->second - it->first);
  return out;
}
} // namespace

Expected<std::string> dropRootOp(StringRef text, StringRef fileName) {
  return dropAttribute(text, fileName, "root_op");
}

Expected<std::string> dropLoweringConfigs(StringRef text, StringRef fileName) {
  return dropAttribute(text, fileName, "lowering_config");
}

} // namespace retune::iree
