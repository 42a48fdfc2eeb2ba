//===- IreeConstraints.cpp - IREE's own statement of its GPU space --------===//
#include "stages/backends/iree/IreeConstraints.h"

#include "stages/search/solver/Model.h"
#include "stages/support/FileUtil.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/SMT/IR/SMTDialect.h"
#include "mlir/Dialect/SMT/IR/SMTOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace retune::iree {
namespace {

constexpr StringRef kConstraintsOp = "iree_codegen.smt.constraints";
/// Knobs are tile sizes, counts and indices: bounded far above any of them.
constexpr int64_t kKnobBound = int64_t(1) << 24;
constexpr int64_t kHelperBound = int64_t(1) << 40;

/// The region of one constraints op as a solver::Model: knobs are the key
/// variables; dims, declared helpers, lookups and if-then-else values are
/// non-key variables the constraints pin down.
class RegionTranslator {
public:
  RegionTranslator(solver::Model &model, StringRef fileName)
      : model(model), fileName(fileName) {}

  Error translate(mlir::Block &block) {
    for (mlir::BlockArgument arg : block.getArguments())
      values[arg] = model.addVar(formatv("dim_{0}", arg.getArgNumber()).str(),
                                 0, kHelperBound, /*key=*/false);
    for (mlir::Operation &op : block)
      if (Error err = translate(op))
        return err;
    return Error::success();
  }

  /// Knob names in key-variable order, and their variables.
  std::vector<std::string> knobs;
  std::vector<solver::Expr> knobExprs;

private:
  solver::Expr in(mlir::Operation &op, unsigned i) { return values.lookup(op.getOperand(i)); }

  /// `a == b` for every adjacent pair of the op's operands (or, with
  /// `distinct`, every pair differs).
  solver::Expr pairwise(mlir::Operation &op, bool distinct) {
    solver::Expr all = truth(true);
    unsigned n = op.getNumOperands();
    for (unsigned i = 0; i + 1 < n; ++i)
      for (unsigned j = i + 1; j < (distinct ? n : i + 2); ++j)
        all = model.land(all, distinct ? model.ne(in(op, i), in(op, j))
                                       : model.eq(in(op, i), in(op, j)));
    return all;
  }

  /// The model has no boolean constants: `0 == 0` and `0 != 0`.
  solver::Expr truth(bool value) {
    return value ? model.eq(model.c(0), model.c(0)) : model.ne(model.c(0), model.c(0));
  }

  solver::Expr fold(mlir::Operation &op, solver::Expr (solver::Model::*combine)(solver::Expr,
                                                                               solver::Expr)) {
    solver::Expr result = in(op, 0);
    for (unsigned i = 1; i < op.getNumOperands(); ++i)
      result = (model.*combine)(result, in(op, i));
    return result;
  }

  /// A fresh non-key variable `v` with `(c and v == a) or (not c and v == b)`.
  solver::Expr select(solver::Expr c, solver::Expr a, solver::Expr b) {
    solver::Expr v = model.addVar(formatv("sel_{0}", selects++).str(), -kHelperBound,
                                  kHelperBound, /*key=*/false);
    model.require(model.lor(model.land(c, model.eq(v, a)),
                            model.land(model.lnot(c), model.eq(v, b))),
                  "if-then-else");
    return v;
  }

  Error translate(mlir::Operation &op) {
    std::optional<solver::Expr> result;
    StringRef name = op.getName().getStringRef();
    if (auto c = dyn_cast<mlir::smt::IntConstantOp>(op)) {
      result = model.c(c.getValue().getSExtValue());
    } else if (auto c = dyn_cast<mlir::smt::BoolConstantOp>(op)) {
      result = truth(c.getValue());
    } else if (isa<mlir::smt::EqOp>(op)) {
      result = pairwise(op, /*distinct=*/false);
    } else if (isa<mlir::smt::DistinctOp>(op)) {
      result = pairwise(op, /*distinct=*/true);
    } else if (auto cmp = dyn_cast<mlir::smt::IntCmpOp>(op)) {
      solver::Expr a = in(op, 0), b = in(op, 1);
      switch (cmp.getPred()) {
      case mlir::smt::IntPredicate::lt: result = model.lt(a, b); break;
      case mlir::smt::IntPredicate::le: result = model.le(a, b); break;
      case mlir::smt::IntPredicate::gt: result = model.lt(b, a); break;
      case mlir::smt::IntPredicate::ge: result = model.le(b, a); break;
      }
    } else if (isa<mlir::smt::IntAddOp>(op)) {
      result = fold(op, &solver::Model::add);
    } else if (isa<mlir::smt::IntMulOp>(op)) {
      result = fold(op, &solver::Model::mul);
    } else if (isa<mlir::smt::IntSubOp>(op)) {
      result = model.sub(in(op, 0), in(op, 1));
    } else if (isa<mlir::smt::IntDivOp>(op)) {
      result = model.div(in(op, 0), in(op, 1));
    } else if (isa<mlir::smt::IntModOp>(op)) {
      result = model.mod(in(op, 0), in(op, 1));
    } else if (isa<mlir::smt::AndOp>(op)) {
      result = fold(op, &solver::Model::land);
    } else if (isa<mlir::smt::OrOp>(op)) {
      result = fold(op, &solver::Model::lor);
    } else if (isa<mlir::smt::NotOp>(op)) {
      result = model.lnot(in(op, 0));
    } else if (isa<mlir::smt::ImpliesOp>(op)) {
      result = model.lor(model.lnot(in(op, 0)), in(op, 1));
    } else if (isa<mlir::smt::IteOp>(op)) {
      result = select(in(op, 0), in(op, 1), in(op, 2));
    } else if (auto fun = dyn_cast<mlir::smt::DeclareFunOp>(op)) {
      if (!isa<mlir::smt::IntType>(fun.getType()))
        return unsupported(op, "a declared function that is not an integer");
      result = model.addVar(fun.getNamePrefix().value_or("fun").str() + "#", -kHelperBound,
                            kHelperBound, /*key=*/false);
    } else if (name == "iree_codegen.smt.knob") {
      auto knob = op.getAttrOfType<mlir::StringAttr>("name");
      if (!knob)
        return unsupported(op, "a knob without a name");
      result = model.addVar(knob.getValue(), 0, kKnobBound, /*key=*/true);
      knobs.push_back(knob.getValue().str());
      knobExprs.push_back(*result);
    } else if (name == "iree_codegen.smt.lookup") {
      auto keys = op.getAttrOfType<mlir::DenseI64ArrayAttr>("keys");
      auto vals = op.getAttrOfType<mlir::DenseI64ArrayAttr>("values");
      if (!keys || !vals || keys.size() != vals.size())
        return unsupported(op, "a lookup without keys and values of one length");
      solver::Expr v = model.addVar(formatv("lookup_{0}", selects++).str(), -kHelperBound,
                                    kHelperBound, /*key=*/false);
      solver::Expr any = truth(false);
      for (auto [k, x] : zip(keys.asArrayRef(), vals.asArrayRef()))
        any = model.lor(any, model.land(model.eq(in(op, 0), model.c(k)), model.eq(v, model.c(x))));
      model.require(any, "lookup");
      result = v;
    } else if (name == "iree_codegen.smt.assert") {
      auto message = op.getAttrOfType<mlir::StringAttr>("msg");
      model.require(in(op, 0), message ? message.getValue() : "assert");
    } else {
      return unsupported(op, "an op the translation does not know");
    }
    if (result && op.getNumResults() == 1)
      values[op.getResult(0)] = *result;
    return Error::success();
  }

  Error unsupported(mlir::Operation &op, StringRef what) {
    return makeError(fileName + ": " + what + " in IREE's constraints: " +
                     op.getName().getStringRef());
  }

  solver::Model &model;
  StringRef fileName;
  DenseMap<mlir::Value, solver::Expr> values;
  unsigned selects = 0;
};

/// `smt.int_knob<"name">` or `smt.one_of_knob<"name", [...]>`: the name.
std::optional<std::string> knobName(mlir::Attribute attr, StringRef kind) {
  auto opaque = dyn_cast<mlir::OpaqueAttr>(attr);
  if (!opaque || opaque.getDialectNamespace() != "iree_codegen")
    return std::nullopt;
  StringRef data = opaque.getAttrData();
  if (!data.consume_front(kind) || !data.consume_front("<\""))
    return std::nullopt;
  return data.take_until([](char c) { return c == '"'; }).str();
}

/// `#dialect.name<INNER>` → INNER.
std::string innerOf(mlir::Attribute attr) {
  auto opaque = dyn_cast_or_null<mlir::OpaqueAttr>(attr);
  if (!opaque)
    return "";
  StringRef data = opaque.getAttrData();
  return data.drop_until([](char c) { return c == '<'; })
      .drop_front()
      .take_until([](char c) { return c == '>'; })
      .str();
}

/// Reads the knobs dictionary into slots: where each field of the config
/// is fixed and where a knob fills it.
class TemplateReader {
public:
  TemplateReader(mlir::MLIRContext &ctx, IreeConstraintSystem &system)
      : ctx(ctx), system(system) {}

  void read(mlir::DictionaryAttr knobs) {
    for (StringRef field : {"workgroup", "reduction", "subgroup", "workgroup_size"})
      list(field, knobs.get(field));
    if (auto basis = dyn_cast_or_null<mlir::ArrayAttr>(knobs.get("subgroup_basis")))
      if (!basis.empty())
        list("subgroup_basis", basis[0]);
    scalar("subgroup_size", knobs.get("subgroup_size"));
    oneOf("mma_kind", knobs.get("mma_kind"));
    if (auto options = dyn_cast_or_null<mlir::DictionaryAttr>(knobs.get("gpu_pipeline_options"))) {
      scalar("prefetch_num_stages", options.get("prefetch_num_stages"));
      oneOf("use_igemm_convolution", options.get("use_igemm_convolution"));
    }
  }

private:
  void scalar(StringRef field, mlir::Attribute attr, int index = -1) {
    if (!attr)
      return;
    IreeKnobSlot slot{field.str(), index, "", 0, {}};
    if (auto i = dyn_cast<mlir::IntegerAttr>(attr))
      slot.fixed = i.getInt();
    else if (std::optional<std::string> name = knobName(attr, "smt.int_knob"))
      slot.knob = *name;
    else
      return;
    system.slots.push_back(std::move(slot));
  }

  void list(StringRef field, mlir::Attribute attr) {
    if (auto array = dyn_cast_or_null<mlir::ArrayAttr>(attr))
      for (auto [i, element] : enumerate(array))
        scalar(field, element, static_cast<int>(i));
  }

  /// A one_of_knob's options (intrinsic names, or "false"/"true"), or the
  /// one fixed value.
  void oneOf(StringRef field, mlir::Attribute attr) {
    if (!attr)
      return;
    IreeKnobSlot slot{field.str(), -1, "", 0, {}};
    auto spell = [](mlir::Attribute option) {
      if (auto b = dyn_cast<mlir::BoolAttr>(option))
        return std::string(b.getValue() ? "true" : "false");
      return innerOf(option);
    };
    if (std::optional<std::string> name = knobName(attr, "smt.one_of_knob")) {
      slot.knob = *name;
      StringRef data = cast<mlir::OpaqueAttr>(attr).getAttrData();
      StringRef options = data.drop_front(data.find('[')).drop_back(); // `[...]` of `...>`
      if (auto parsed = dyn_cast_or_null<mlir::ArrayAttr>(mlir::parseAttribute(options, &ctx)))
        for (mlir::Attribute option : parsed)
          slot.options.push_back(spell(option));
    } else {
      slot.options.push_back(spell(attr));
    }
    system.slots.push_back(std::move(slot));
  }

  mlir::MLIRContext &ctx;
  IreeConstraintSystem &system;
};

SmallVector<int64_t> &listField(IreeConstrainedConfig &config, StringRef field) {
  if (field == "workgroup")
    return config.workgroup;
  if (field == "reduction")
    return config.reduction;
  if (field == "subgroup")
    return config.subgroup;
  if (field == "subgroup_basis")
    return config.subgroupBasis;
  return config.workgroupSize;
}

Expected<IreeConstraintSystem> readSystem(mlir::Operation *op, StringRef where) {
  IreeConstraintSystem system;
  system.pipeline = innerOf(op->getAttr("pipeline"));
  auto knobs = op->getAttrOfType<mlir::DictionaryAttr>("knobs");
  if (op->getNumRegions() != 1 || op->getRegion(0).empty() || !knobs)
    return makeError(where + ": " + kConstraintsOp + " without knobs or a region");
  RegionTranslator translator(system.model, where);
  if (Error err = translator.translate(op->getRegion(0).front()))
    return std::move(err);
  system.knobs = translator.knobs;
  system.knobExprs = translator.knobExprs;
  TemplateReader(*op->getContext(), system).read(knobs);
  return system;
}

} // namespace

IreeConstrainedConfig constrainedConfigOf(const gpu::CompilerChoice &choice) {
  IreeConstrainedConfig config;
  config.workgroup = choice.workgroup;
  config.reduction = choice.reduction;
  config.subgroup = choice.subgroup;
  config.workgroupSize = choice.workgroupSize;
  config.subgroupSize = choice.subgroupSize;
  config.prefetchStages = choice.prefetchStages;
  config.mma = choice.mma;
  config.useIgemm = choice.useIgemm;
  return config;
}

IreeConstrainedConfig constrainedConfigOf(const gpu::Candidate &candidate) {
  const gpu::GpuConfig &g = candidate.config;
  IreeConstrainedConfig config;
  config.workgroup = g.workgroup;
  config.reduction = g.reduction;
  config.subgroup = g.subgroup;
  config.subgroupBasis = g.basisCounts;
  config.workgroupSize.assign(g.workgroupSize.begin(), g.workgroupSize.end());
  config.subgroupSize = g.subgroupSize;
  config.prefetchStages = candidate.prefetchStages;
  config.mma = g.mma ? g.mma->name : "";
  config.useIgemm = g.useIgemm;
  return config;
}

IreeConstrainedConfig fillKnobs(const IreeConstraintSystem &system,
                                const StringMap<int64_t> &values) {
  IreeConstrainedConfig config;
  for (const IreeKnobSlot &slot : system.slots) {
    int64_t value = slot.knob.empty() ? slot.fixed : values.lookup(slot.knob);
    if (!slot.options.empty() || slot.field == "mma_kind" ||
        slot.field == "use_igemm_convolution") {
      int64_t index = slot.knob.empty() ? 0 : value;
      if (index < 0 || index >= static_cast<int64_t>(slot.options.size()))
        continue;
      if (slot.field == "mma_kind")
        config.mma = slot.options[index];
      else
        config.useIgemm = slot.options[index] == "true";
    } else if (slot.field == "subgroup_size") {
      config.subgroupSize = value;
    } else if (slot.field == "prefetch_num_stages") {
      config.prefetchStages = value;
    } else {
      SmallVector<int64_t> &list = listField(config, slot.field);
      if (static_cast<int>(list.size()) <= slot.index)
        list.resize(slot.index + 1, 0);
      list[slot.index] = value;
    }
  }
  return config;
}

std::optional<StringMap<int64_t>> knobValuesOf(const IreeConstraintSystem &system,
                                               const IreeConstrainedConfig &config) {
  StringMap<int64_t> values;
  IreeConstrainedConfig copy = config;
  for (const IreeKnobSlot &slot : system.slots) {
    if (slot.knob.empty())
      continue;
    std::optional<int64_t> value;
    if (slot.field == "mma_kind") {
      auto it = llvm::find(slot.options, config.mma);
      if (it != slot.options.end())
        value = it - slot.options.begin();
    } else if (slot.field == "use_igemm_convolution") {
      auto it = llvm::find(slot.options, config.useIgemm.value_or(false) ? "true" : "false");
      if (it != slot.options.end())
        value = it - slot.options.begin();
    } else if (slot.field == "subgroup_size") {
      value = config.subgroupSize;
    } else if (slot.field == "prefetch_num_stages") {
      value = config.prefetchStages;
    } else {
      SmallVector<int64_t> &list = listField(copy, slot.field);
      if (slot.index < static_cast<int>(list.size()))
        value = list[slot.index];
    }
    if (!value)
      return std::nullopt;
    values[slot.knob] = *value;
  }
  return values;
}

Expected<bool> admits(const IreeConstraintSystem &system, const StringMap<int64_t> &values) {
  solver::Model model = system.model;
  for (auto [name, expr] : zip(system.knobs, system.knobExprs)) {
    auto it = values.find(name);
    if (it == values.end())
      return false;
    model.require(model.eq(expr, model.c(it->second)), name);
  }
  Expected<std::vector<SmallVector<int64_t>>> one =
      solver::solveAll(model, solver::Engine::Z3Blocking, 1);
  if (!one)
    return one.takeError();
  return !one->empty();
}

Expected<IreeConstraintSpace> solveSystem(const IreeConstraintSystem &system, size_t limit) {
  IreeConstraintSpace space;
  space.pipeline = system.pipeline;
  // One more than the limit says whether it was reached.
  Expected<std::vector<SmallVector<int64_t>>> solutions =
      solver::solveAll(system.model, solver::Engine::Z3Blocking, limit ? limit + 1 : 0);
  if (!solutions)
    return solutions.takeError();
  if (limit && solutions->size() > limit) {
    solutions->resize(limit);
    space.truncated = true;
  }
  for (const SmallVector<int64_t> &solution : *solutions) {
    StringMap<int64_t> values;
    for (const std::string &name : system.knobs)
      values[name] = solution[system.model.indexOf(name)];
    space.configs.push_back(fillKnobs(system, values));
  }
  return space;
}

namespace {
} // namespace

/// Each constraints op of the generic text, cut out with its operand list
/// emptied: the rest of IREE's module cannot be parsed without IREE's
/// dialects (a memref's `#hal.descriptor_type` memory space is an error to
/// MLIR's builtin memref type), and the op's region reads only its own block
/// arguments. Strings are skipped when counting brackets.
static std::vector<std::pair<std::string, size_t>> isolateConstraintOps(StringRef text) {
  std::vector<std::pair<std::string, size_t>> ops;
  std::string marker = ("\"" + kConstraintsOp + "\"").str();
  for (size_t at = text.find(marker); at != StringRef::npos; at = text.find(marker, at + 1)) {
    size_t line = text.take_front(at).count('\n') + 1;
    int depth = 0;
    bool inString = false, sawRegion = false;
    size_t operandsEnd = StringRef::npos, typeStart = StringRef::npos;
    for (size_t i = at + marker.size(); i < text.size(); ++i) {
      char c = text[i];
      if (inString) {
        if (c == '\\')
          ++i;
        else if (c == '"')
          inString = false;
        continue;
      }
      if (c == '"') {
        inString = true;
      } else if (c == '(' || c == '[' || c == '{') {
        sawRegion |= depth == 0 && c == '(' && operandsEnd != StringRef::npos &&
                     text.substr(i, 2) == "({";
        ++depth;
      } else if (c == ')' || c == ']' || c == '}') {
        if (--depth == 0 && operandsEnd == StringRef::npos)
          operandsEnd = i + 1;
      } else if (depth == 0 && sawRegion && c == ':' && typeStart == StringRef::npos) {
        typeStart = i;
      } else if (depth == 0 && c == '\n' && typeStart != StringRef::npos) {
        break;
      }
    }
    if (operandsEnd == StringRef::npos || typeStart == StringRef::npos)
      continue;
    ops.push_back({(marker + "()" + text.slice(operandsEnd, typeStart) + ": () -> ()").str(),
                   line});
  }
  return ops;
}

Expected<std::vector<IreeConstraintSystem>> readIreeConstraints(StringRef genericText,
                                                                StringRef fileName) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::smt::SMTDialect>();
  mlir::MLIRContext ctx(registry);
  ctx.allowUnregisteredDialects();
  ctx.loadAllAvailableDialects();
  std::vector<IreeConstraintSystem> systems;
  for (auto [opText, line] : isolateConstraintOps(genericText)) {
    std::string where = formatv("{0}:{1}", fileName, line).str();
    std::string diagnostics;
    mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &diag) {
      raw_string_ostream os(diagnostics);
      os << diag << "\n";
      return mlir::success();
    });
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(opText, &ctx, fileName);
    if (!module)
      return makeError(where + ": cannot read IREE's constraints (the generic form "
                               "iree-opt --mlir-print-op-generic prints): " +
                       StringRef(diagnostics).trim());
    Expected<IreeConstraintSystem> system = readSystem(&module->getBody()->front(), where);
    if (!system)
      return system.takeError();
    systems.push_back(std::move(*system));
  }
  return systems;
}

} // namespace retune::iree
