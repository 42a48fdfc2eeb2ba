//===- IreeReader.cpp - Reading IREE's dumped dispatch benchmarks ---------===//
#include "stages/backends/iree/IreeReader.h"

#include "stages/backends/iree/IreeIr.h"
#include "stages/backends/iree/MlirText.h"
#include "stages/support/FileUtil.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/Path.h"

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

std::string printType(mlir::Type type) {
  std::string s;
  raw_string_ostream os(s);
  type.print(os);
  return s;
}

std::string printMap(mlir::AffineMap map) {
  std::string s;
  raw_string_ostream os(s);
  mlir::AffineMapAttr::get(map).print(os);
  return s;
}

/// Collects an error diagnostic's text while parsing snippets.
struct DiagnosticCapture {
  explicit DiagnosticCapture(mlir::MLIRContext &context)
      : handler(&context, [this](mlir::Diagnostic &diag) {
          if (message.empty())
            message = diag.str();
          return mlir::success();
        }) {}
  std::string message;
  mlir::ScopedDiagnosticHandler handler;
};

std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::linalg::LinalgDialect>();
  auto context = std::make_unique<mlir::MLIRContext>(
      registry, mlir::MLIRContext::Threading::DISABLED);
  context->allowUnregisteredDialects(true);
  context->loadAllAvailableDialects();
  return context;
}

/// Classifies loops from the maps (inputs then inits) and iterator types.
Expected<std::pair<OpKind, std::string>>
classify(ArrayRef<mlir::AffineMap> maps, ArrayRef<std::string> iterators,
         unsigned numInputs, bool attention, const Twine &where) {
  unsigned numDims = maps.front().getNumDims();
  std::string roles(numDims, '?');
  auto uses = [&](mlir::AffineMap map, unsigned d) {
    return map.isFunctionOfDim(d);
  };
  auto plainUse = [&](mlir::AffineMap map, unsigned d) {
    for (mlir::AffineExpr e : map.getResults())
      if (auto dim = dyn_cast<mlir::AffineDimExpr>(e))
        if (dim.getPosition() == d)
          return true;
    return false;
  };
  if (attention) {
    if (maps.size() < 4)
      return makeError(where + ": attention needs query, key, value and "
                               "output maps");
    mlir::AffineMap q = maps[0], k = maps[1], v = maps[2], o = maps.back();
    for (unsigned d = 0; d < numDims; ++d) {
      bool inQ = uses(q, d), inK = uses(k, d), inV = uses(v, d),
           inO = uses(o, d);
      if (inQ && inK && inV && inO)
        roles[d] = 'b';
      else if (inQ && inO && !inK)
        roles[d] = 'm';
      else if (inQ && inK && !inO)
        roles[d] = 'k';
      else if (inK && inV && !inQ)
        roles[d] = 'l';
      else if (inV && inO && !inQ)
        roles[d] = 'n';
      else
        return makeError(where + ": attention loop d" + Twine(d) +
                         " has no batch/m/k1/k2/n role");
    }
    return std::make_pair(OpKind::Attention, roles);
  }
  if (numInputs != 2 || maps.size() != 3)
    return makeError(where + ": not a contraction or convolution (" +
                     Twine(numInputs) + " inputs, " + Twine(maps.size()) +
                     " maps); only those, attention and ops that only move data "
                     "(transposes, copies) are tuned");
  bool hasReduction = llvm::is_contained(iterators, "reduction");
  if (!hasReduction)
    return makeError(where + ": no reduction loop; elementwise ops that "
                             "compute are not tuned");
  mlir::AffineMap in = maps[0], filter = maps[1], out = maps[2];
  bool conv = !in.isProjectedPermutation() || !filter.isProjectedPermutation();
  for (unsigned d = 0; d < numDims; ++d) {
    bool parallel = iterators[d] == "parallel";
    bool inIn = uses(in, d), inF = uses(filter, d), inO = uses(out, d);
    if (!conv) {
      if (parallel && inIn && inF && inO)
        roles[d] = 'b';
      else if (parallel && inIn && inO && !inF)
        roles[d] = 'm';
      else if (parallel && inF && inO && !inIn)
        roles[d] = 'n';
      else if (!parallel && inIn && inF && !inO)
        roles[d] = 'k';
      else
        return makeError(where + ": loop d" + Twine(d) +
                         " is not a batch, M, N or K dimension; this "
                         "contraction shape is not tuned");
      continue;
    }
    bool compound = inIn && !plainUse(in, d);
    if (parallel && inO && inF && !inIn)
      roles[d] = 'f';
    else if (parallel && inO && compound)
      roles[d] = 'o';
    else if (parallel && inO && inIn && !inF)
      roles[d] = 'b';
    else if (parallel && inO && inIn && inF)
      roles[d] = 'd';
    else if (!parallel && inF && compound)
      roles[d] = 'r';
    else if (!parallel && inF && inIn)
      roles[d] = 'c';
    else
      return makeError(where + ": convolution loop d" + Twine(d) +
                       " has no batch/image/channel/filter role");
  }
  if (!conv && roles.find('k') == std::string::npos)
    return makeError(where + ": contraction without a K dimension");
  return std::make_pair(conv ? OpKind::Convolution : OpKind::Contraction,
                        roles);
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

/// A one-input op of parallel loops that only moves data is tuned, on CPU
/// targets, as an elementwise problem whose candidates vary IREE's own
/// config (a 24x410881 transpose of the PP-OCRv4 detector: 27 ms with
/// IREE's 16x16 register tile, 5.6 ms with 8x8 on the dispatch benchmark;
/// 1.23x in the model, docs/iree-backend.md). Roles as the mlir-cpu backend
/// gives them: 'v' on the innermost dim of the input and of the output (two
/// dims for a transpose), 'p' elsewhere.
std::optional<std::string> dataMovementRoles(bool yieldsAnInput,
                                             ArrayRef<mlir::AffineMap> maps,
                                             const Problem &problem) {
  // The GPU spaces tile contractions, convolutions and attention only.
  if (!StringRef(problem.target).starts_with("cpu:") ||
      problem.numInputs != 1 || maps.size() != 2 ||
      llvm::is_contained(problem.iteratorTypes, "reduction") || !yieldsAnInput)
    return std::nullopt;
  std::string roles(problem.loopRanges.size(), 'p');
  for (mlir::AffineMap map : maps) {
    if (!map.isProjectedPermutation())
      return std::nullopt;
    if (map.getNumResults() > 0)
      roles[map.getDimPosition(map.getNumResults() - 1)] = 'v';
  }
  return roles;
}

/// Sets the kind and roles of a linalg op's problem (its loops, iterator
/// types and inputs already read).
Error classifyLinalgOp(Problem &problem, ArrayRef<mlir::AffineMap> maps,
                       bool yieldsAnInput, const Twine &where) {
  if (std::optional<std::string> roles =
          dataMovementRoles(yieldsAnInput, maps, problem)) {
    problem.kind = OpKind::Elementwise;
    problem.dimRoles = std::move(*roles);
    return Error::success();
  }
  Expected<std::pair<OpKind, std::string>> kind =
      classify(maps, problem.iteratorTypes, problem.numInputs,
               /*attention=*/false, where);
  if (!kind)
    return kind.takeError();
  problem.kind = kind->first;
  problem.dimRoles = kind->second;
  return Error::success();
}

/// Sets the kind, roles and iterator types of an attention problem.
Error classifyAttention(Problem &problem, ArrayRef<mlir::AffineMap> maps,
                        const Twine &where) {
  Expected<std::pair<OpKind, std::string>> kind =
      classify(maps, {}, problem.numInputs, /*attention=*/true, where);
  if (!kind)
    return kind.takeError();
  problem.kind = kind->first;
  problem.dimRoles = kind->second;
  for (char role : problem.dimRoles)
    problem.iteratorTypes.push_back(
        role == 'k' || role == 'l' ? "reduction" : "parallel");
  return Error::success();
}

/// The loop ranges of an op from its maps and its operands' static shapes:
/// each loop takes the size of the first operand dim it indexes alone.
SmallVector<int64_t> loopRangesFromShapes(ArrayRef<mlir::AffineMap> maps,
                                          ArrayRef<mlir::Type> operandTypes) {
  SmallVector<int64_t> ranges(maps.front().getNumDims(),
                              mlir::ShapedType::kDynamic);
  for (auto [map, type] : llvm::zip(maps, operandTypes)) {
    auto shaped = dyn_cast<mlir::ShapedType>(type);
    if (!shaped)
      continue;
    for (auto [i, expr] : llvm::enumerate(map.getResults()))
      if (auto dim = dyn_cast<mlir::AffineDimExpr>(expr))
        if (ranges[dim.getPosition()] == mlir::ShapedType::kDynamic)
          ranges[dim.getPosition()] = shaped.getDimSize(i);
  }
  return ranges;
}

/// Parses an operand's type and records its element type.
Error addOperandType(Problem &problem, SmallVectorImpl<mlir::Type> &types,
                     StringRef text, mlir::MLIRContext &context,
                     const DiagnosticCapture &diagnostics, const Twine &where) {
  mlir::Type type = mlir::parseType(text, &context);
  if (!type)
    return makeError(where + ": cannot parse operand type '" + text +
                     "': " + diagnostics.message);
  types.push_back(type);
  mlir::Type element = type;
  if (auto shaped = dyn_cast<mlir::ShapedType>(type))
    element = shaped.getElementType();
  problem.elementTypes.push_back(printType(element));
  return Error::success();
}

/// Refuses dynamic loops and records the maps as text.
Expected<Problem> sealProblem(Problem problem, ArrayRef<mlir::AffineMap> maps,
                              const Twine &where) {
  for (int64_t range : problem.loopRanges)
    if (range == mlir::ShapedType::kDynamic || range < 0)
      return makeError(where + ": dynamic loop range in '" + problem.opName +
                       "'; only static shapes are tuned");
  for (mlir::AffineMap map : maps)
    problem.indexingMaps.push_back(printMap(map));
  return problem;
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
  std::unique_ptr<mlir::MLIRContext> context = makeContext();
  DiagnosticCapture diagnostics(*context);

  Problem problem;
  problem.opName = op.name;
  problem.target = target.str();
  problem.numInputs = ins->types.size();
  SmallVector<mlir::Type> operandTypes;
  for (const std::string &text : llvm::concat<std::string>(ins->types, outs->types))
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
    rootText += src.slice(pos, toks[op.end - 1].offset + toks[op.end - 1].text.size())
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
    if (Error err = classifyLinalgOp(
            problem, maps, onlyMovesData(file, op, problem.numInputs), where))
      return std::move(err);
  } else {
    return makeError(where + ": root op '" + op.name +
                     "' is not a linalg op or iree_linalg_ext.attention; it "
                     "is not tuned");
  }
  return sealProblem(std::move(problem), maps, where);
}

/// The Problem of `op` as IREE's own library reads it: its operands' types,
/// its indexing maps (implicit ones too), its iterator types (named ops:
/// a loop no init indexes is a reduction) and its body.
Expected<Problem> problemFromIreeOp(const IreeIrOp &op, StringRef target,
                                    StringRef fileName) {
  std::string where = (fileName + ":" + Twine(op.line())).str();
  std::string name = op.name().str();
  bool attention = name == "iree_linalg_ext.attention";
  if (!attention && !StringRef(name).starts_with("linalg."))
    return makeError(where + ": root op '" + name +
                     "' is not a linalg op or iree_linalg_ext.attention; it "
                     "is not tuned");
  std::unique_ptr<mlir::MLIRContext> context = makeContext();
  DiagnosticCapture diagnostics(*context);
  Problem problem;
  problem.opName = name;
  problem.target = target.str();
  // Destination-passing style on tensors: one init per result.
  problem.numInputs = op.numOperands() - op.numResults();
  SmallVector<mlir::Type> operandTypes;
  for (unsigned i = 0; i < op.numOperands(); ++i)
    if (Error err = addOperandType(problem, operandTypes, op.operandType(i),
                                   *context, diagnostics, where))
      return std::move(err);
  std::string mapsText = op.linalgIndexingMaps();
  if (mapsText.empty())
    return makeError(where + ": root op '" + name +
                     "' has no indexing maps (not a structured op); it is "
                     "not tuned");
  auto array = dyn_cast_if_present<mlir::ArrayAttr>(
      mlir::parseAttribute(mapsText, context.get()));
  SmallVector<mlir::AffineMap> maps;
  if (array)
    for (mlir::Attribute attr : array)
      if (auto map = dyn_cast<mlir::AffineMapAttr>(attr))
        maps.push_back(map.getValue());
  if (maps.empty() || maps.size() != operandTypes.size())
    return makeError(where + ": '" + name + "' has " + Twine(maps.size()) +
                     " indexing maps for " + Twine(operandTypes.size()) +
                     " operands");
  problem.loopRanges = loopRangesFromShapes(maps, operandTypes);
  if (attention) {
    if (Error err = classifyAttention(problem, maps, where))
      return std::move(err);
    return sealProblem(std::move(problem), maps, where);
  }
  if (std::string iterators = op.attr("iterator_types"); !iterators.empty()) {
    auto types = dyn_cast_if_present<mlir::ArrayAttr>(
        mlir::parseAttribute(iterators, context.get()));
    if (types)
      for (mlir::Attribute attr : types)
        if (auto it = dyn_cast<mlir::linalg::IteratorTypeAttr>(attr))
          problem.iteratorTypes.push_back(
              mlir::utils::stringifyIteratorType(it.getValue()).str());
    if (problem.iteratorTypes.size() != maps.front().getNumDims())
      return makeError(where + ": cannot read the iterator types " +
                       iterators + ": " + diagnostics.message);
  } else {
    for (unsigned d = 0, e = maps.front().getNumDims(); d < e; ++d) {
      bool indexedByInit = llvm::any_of(
          ArrayRef(maps).drop_front(problem.numInputs),
          [&](mlir::AffineMap map) { return map.isFunctionOfDim(d); });
      problem.iteratorTypes.push_back(indexedByInit ? "parallel"
                                                    : "reduction");
    }
  }
  if (Error err = classifyLinalgOp(
          problem, maps, op.onlyYieldsAnInput(problem.numInputs), where))
    return std::move(err);
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

std::string IreeTarget::problemTarget() const {
  if (isGpu())
    return arch.empty() ? backend : arch;
  if (!arch.empty())
    return "cpu:" + arch;
  StringRef fmt(format);
  return "cpu:" + (fmt.contains('-') ? fmt.rsplit('-').second.str() : format);
}

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

Expected<std::vector<IreeTarget>> readIreeTargets(StringRef text,
                                                  StringRef fileName,
                                                  const IreeIrLibrary *library) {
  if (library) {
    Expected<std::unique_ptr<IreeIrModule>> module =
        library->parse(text, fileName);
    if (!module)
      return module.takeError();
    std::vector<IreeTarget> targets;
    Error error = Error::success();
    (*module)->walk([&](IreeIrOp op, ArrayRef<IreeIrOp>) {
      if (op.name() != "hal.executable.variant" || error)
        return;
      Expected<IreeTarget> target = readIreeTarget(
          op.attr("target"), (fileName + ":" + Twine(op.line())).str());
      if (target)
        targets.push_back(std::move(*target));
      else
        error = target.takeError();
    });
    if (error)
      return std::move(error);
    return targets;
  }
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

namespace {
const char *const kNoRootOp =
    ": no op carries 'root_op'; dump with "
    "--iree-codegen-add-tuner-attributes (v3.11+) or "
    "--iree-config-add-tuner-attributes (v3.10 and older)";
const char *const kNotABenchmark =
    ": no hal.executable.variant; is this a file from "
    "--iree-hal-dump-executable-benchmarks-to?";

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

/// The dispatch of a file IREE's library parsed.
Expected<IreeDispatch> readDispatchWithIree(const IreeIrModule &module,
                                            StringRef fileName) {
  IreeDispatch dispatch;
  std::optional<IreeIrOp> variant;
  SmallVector<std::pair<IreeIrOp, std::string>> roots;
  module.walk([&](IreeIrOp op, ArrayRef<IreeIrOp> ancestors) {
    StringRef name = op.name();
    if (name == "hal.executable" && dispatch.executable.empty())
      dispatch.executable = op.symbolName();
    if (name == "hal.executable.variant" && !variant)
      variant = op;
    if (name == "util.func" && dispatch.benchmarkFunction.empty() &&
        StringRef(op.attr("iree.reflection"))
            .contains("iree.benchmark = \"dispatch\""))
      dispatch.benchmarkFunction = op.symbolName();
    bool inVariant = llvm::any_of(ancestors, [](const IreeIrOp &a) {
      return a.name() == "hal.executable.variant";
    });
    if (!inVariant)
      return;
    if (name == "hal.executable.export" && dispatch.exportName.empty())
      dispatch.exportName = op.symbolName();
    if (op.hasAttr("root_op")) {
      std::string func;
      for (const IreeIrOp &a : ancestors)
        if (a.name() == "func.func")
          func = a.symbolName();
      roots.push_back({op, func});
    }
  });
  if (!variant)
    return makeError(fileName + kNotABenchmark);
  dispatch.variant = variant->symbolName();
  std::string where = (fileName + ":" + Twine(variant->line())).str();
  Expected<IreeTarget> target = readIreeTarget(variant->attr("target"), where);
  if (!target)
    return target.takeError();
  dispatch.target = std::move(*target);
  if (roots.empty())
    return makeError(fileName + kNoRootOp);
  if (roots.size() > 1)
    return makeError(fileName + ":" + Twine(roots[1].first.line()) +
                     ": multiple root ops in one dispatch; only one is "
                     "supported (as in amdsharktuner)");
  const IreeIrOp &root = roots.front().first;
  dispatch.funcName = roots.front().second;
  dispatch.rootOpText = root.print();
  Expected<Problem> problem =
      problemFromIreeOp(root, dispatch.target.problemTarget(), fileName);
  if (!problem)
    return problem.takeError();
  dispatch.problem = std::move(*problem);
  return dispatch;
}
} // namespace

Expected<IreeDispatch> readIreeDispatch(StringRef text, StringRef fileName,
                                        const IreeIrLibrary *library) {
  if (!library)
    return readDispatchAsText(text, fileName);
  Expected<std::unique_ptr<IreeIrModule>> module =
      library->parse(text, fileName);
  if (!module)
    return module.takeError();
  return readDispatchWithIree(**module, fileName);
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

std::vector<std::string> dumpArgs(const IreeSyntax &syntax, StringRef model,
                                  ArrayRef<std::string> compileFlags,
                                  StringRef dumpDir) {
  std::vector<std::string> args = {model.str()};
  args.insert(args.end(), compileFlags.begin(), compileFlags.end());
  args.push_back("--iree-hal-dump-executable-benchmarks-to=" + dumpDir.str());
  args.push_back(syntax.tunerAttributesFlag);
  args.push_back("-o");
  args.push_back("/dev/null");
  return args;
}

std::vector<std::string> stripArgs(StringRef input, StringRef output) {
  return {input.str(), "--iree-codegen-strip-compilation-info", "-o",
          output.str()};
}

Expected<std::vector<std::string>>
runDump(const IreeTools &tools, StringRef model,
        ArrayRef<std::string> compileFlags, StringRef dumpDir,
        StringRef logPath, unsigned timeoutSeconds) {
  if (std::error_code ec = sys::fs::create_directories(dumpDir))
    return makeError("cannot create " + dumpDir + ": " + ec.message());
  ChildOutcome outcome =
      tools.runTool(tools.compile,
                    dumpArgs(tools.syntax(), model, compileFlags, dumpDir),
                    timeoutSeconds, 0, logPath);
  if (outcome.status != Status::Ok)
    return makeError(model + ": iree-compile could not dump its dispatches (" +
                     toString(outcome.status) + "): " + outcome.message +
                     "\nfull log: " + logPath +
                     "; check the model and the compile flags in tune.toml");
  std::vector<std::string> files;
  std::error_code ec;
  for (sys::fs::directory_iterator it(dumpDir, ec), end; it != end && !ec;
       it.increment(ec))
    if (StringRef(it->path()).ends_with("_benchmark.mlir"))
      files.push_back(it->path());
  if (ec)
    return makeError("cannot list " + dumpDir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  if (files.empty())
    return makeError(model + ": iree-compile wrote no dispatch benchmarks to " +
                     dumpDir +
                     " (dynamic shapes or several devices prevent them); "
                     "see " +
                     logPath);
  return files;
}

StringMap<unsigned> countDispatchCalls(StringRef flowText) {
  // `flow.dispatch @<executable>::@<export>[...](...)`: one op per call site.
  StringMap<unsigned> calls;
  Regex call("flow\\.dispatch @([A-Za-z0-9_$.-]+)::");
  SmallVector<StringRef> m;
  for (StringRef rest = flowText; call.match(rest, &m);
       rest = rest.drop_front(m[0].data() + m[0].size() - rest.data()))
    ++calls[m[1]];
  return calls;
}

Expected<StringMap<unsigned>>
runDispatchCallCount(const IreeTools &tools, StringRef model,
                     ArrayRef<std::string> compileFlags, StringRef flowPath,
                     StringRef logPath, unsigned timeoutSeconds) {
  std::vector<std::string> args = {model.str()};
  args.insert(args.end(), compileFlags.begin(), compileFlags.end());
  for (StringRef flag : {"--compile-to=flow", "-o"})
    args.push_back(flag.str());
  args.push_back(flowPath.str());
  ChildOutcome outcome =
      tools.runTool(tools.compile, args, timeoutSeconds, 0, logPath);
  if (outcome.status != Status::Ok)
    return makeError(model + ": iree-compile --compile-to=flow failed (" +
                     toString(outcome.status) + "): " + outcome.message +
                     "; full log: " + logPath);
  Expected<std::string> text = readFile(flowPath);
  if (!text)
    return text.takeError();
  return countDispatchCalls(*text);
}

namespace {
/// The dispatch of a stripped benchmark, and the file every candidate is
/// compiled from: the same without `root_op` and without the
/// lowering_config that IREE's strip pass leaves on data tiling's
/// linalg.unpack (with it IREE 3.13 fails to configure the dispatch: "failed
/// to set lowering configuration"). IREE's library edits the IR where it is
/// present; the text reader where not.
Expected<std::pair<IreeDispatch, std::string>>
readAndUnmark(StringRef text, StringRef fileName, const IreeIrLibrary *library) {
  if (library) {
    Expected<std::unique_ptr<IreeIrModule>> module =
        library->parse(text, fileName);
    if (!module)
      return module.takeError();
    Expected<IreeDispatch> dispatch = readDispatchWithIree(**module, fileName);
    if (!dispatch)
      return dispatch.takeError();
    (*module)->removeAttrEverywhere("root_op");
    (*module)->removeAttrEverywhere("lowering_config");
    return std::make_pair(std::move(*dispatch), (*module)->print());
  }
  Expected<IreeDispatch> dispatch = readDispatchAsText(text, fileName);
  if (!dispatch)
    return dispatch.takeError();
  Expected<std::string> unmarked = dropRootOp(text, fileName);
  if (!unmarked)
    return unmarked.takeError();
  Expected<std::string> clean = dropLoweringConfigs(*unmarked, fileName);
  if (!clean)
    return clean.takeError();
  return std::make_pair(std::move(*dispatch), std::move(*clean));
}
} // namespace

Expected<IreeDispatch> prepareDispatch(const IreeTools &tools,
                                       StringRef benchmarkFile,
                                       StringRef outputFile, StringRef logPath,
                                       unsigned timeoutSeconds) {
  std::string stripped = (outputFile + ".stripped.tmp").str();
  if (Error err = createParentDirs(outputFile))
    return std::move(err);
  ChildOutcome outcome =
      tools.runTool(tools.opt, stripArgs(benchmarkFile, stripped),
                    timeoutSeconds, 0, logPath);
  if (outcome.status != Status::Ok)
    return makeError(benchmarkFile + ": iree-opt could not strip its "
                                     "configuration (" +
                     toString(outcome.status) + "): " + outcome.message);
  Expected<std::string> text = readFile(stripped);
  sys::fs::remove(stripped);
  if (!text)
    return text.takeError();
  Expected<std::pair<IreeDispatch, std::string>> read =
      readAndUnmark(*text, benchmarkFile,
                    IreeIrLibrary::forTool(tools.compile));
  if (!read)
    return read.takeError();
  if (Error err = writeFileIfChanged(outputFile, read->second))
    return std::move(err);
  return std::move(read->first);
}

std::string IreeTarget::family() const {
  if (!isGpu())
    return "cpu";
  return backend == "cuda" ? "cuda" : "gpu";
}

std::string targetFamily(StringRef mlirText, StringRef fileName,
                         const IreeIrLibrary *library) {
  Expected<std::vector<IreeTarget>> targets =
      readIreeTargets(mlirText, fileName, library);
  if (!targets) {
    consumeError(targets.takeError());
    return "gpu";
  }
  for (const IreeTarget &target : *targets)
    if (target.isGpu())
      return target.family();
  return targets->empty() ? "gpu" : "cpu";
}


} // namespace retune::iree
