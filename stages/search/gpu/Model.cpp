//===- Model.cpp - Finite integer constraint systems, C++ engines ---------===//
#include "stages/search/gpu/Model.h"

#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

namespace retune::gpu {

StringRef toString(Engine engine) {
  switch (engine) {
  case Engine::Z3Blocking:
    return "z3-blocking";
  case Engine::Z3Incremental:
    return "z3-incremental";
  case Engine::LatticeZ3:
    return "lattice-z3";
  case Engine::Lattice:
    return "lattice";
  }
  llvm_unreachable("unknown engine");
}

std::optional<Engine> parseEngine(StringRef text) {
  for (Engine e : {Engine::Z3Blocking, Engine::Z3Incremental, Engine::LatticeZ3,
                   Engine::Lattice})
    if (text == toString(e))
      return e;
  return std::nullopt;
}

Expr Model::node(Op op, Expr a, Expr b) {
  pool.push_back(Node{op, a.id, b.id, 0});
  return Expr{static_cast<int>(pool.size() - 1)};
}

Expr Model::c(int64_t value) {
  pool.push_back(Node{Op::Const, -1, -1, value});
  return Expr{static_cast<int>(pool.size() - 1)};
}

Expr Model::addVar(StringRef name, int64_t lo, int64_t hi, bool key) {
  Var var;
  var.name = name.str();
  var.lo = lo;
  var.hi = hi;
  var.key = key;
  varList.push_back(std::move(var));
  pool.push_back(Node{Op::Var, -1, -1, static_cast<int64_t>(varList.size() - 1)});
  return Expr{static_cast<int>(pool.size() - 1)};
}

Expr Model::addVarIn(StringRef name, ArrayRef<int64_t> values, bool key) {
  Expr e = addVar(name, 0, 0, key);
  Var &var = varList.back();
  var.values.assign(values.begin(), values.end());
  llvm::sort(var.values);
  var.values.erase(std::unique(var.values.begin(), var.values.end()), var.values.end());
  return e;
}

void Model::define(Expr var, Expr value) {
  assert(pool[var.id].op == Op::Var && "define() needs a variable");
  varList[pool[var.id].value].definedBy = value;
}

void Model::require(Expr condition, StringRef why) {
  constraintList.push_back(Constraint{condition, why.str()});
}

Expr Model::product(ArrayRef<Expr> factors) {
  if (factors.empty())
    return c(1);
  Expr result = factors.front();
  for (Expr f : factors.drop_front())
    result = mul(result, f);
  return result;
}

int64_t Model::eval(Expr e, ArrayRef<int64_t> values, bool &poisoned) const {
  const Node &n = pool[e.id];
  switch (n.op) {
  case Op::Const:
    return n.value;
  case Op::Var:
    return values[n.value];
  case Op::Not:
    return !eval(Expr{n.lhs}, values, poisoned);
  default:
    break;
  }
  int64_t a = eval(Expr{n.lhs}, values, poisoned);
  // Short-circuit the connectives so that a poisoned branch that does not
  // matter (e.g. behind a false guard) stays harmless, as in Z3.
  if (n.op == Op::And && !a)
    return 0;
  if (n.op == Op::Or && a)
    return 1;
  int64_t b = eval(Expr{n.rhs}, values, poisoned);
  switch (n.op) {
  case Op::Add:
    return a + b;
  case Op::Sub:
    return a - b;
  case Op::Mul:
    return a * b;
  case Op::Div:
  case Op::Mod:
    if (b <= 0 || a < 0) {
      // Every model keeps its operands positive; anything else is invalid.
      poisoned = true;
      return 0;
    }
    return n.op == Op::Div ? a / b : a % b;
  case Op::Le:
    return a <= b;
  case Op::Lt:
    return a < b;
  case Op::Eq:
    return a == b;
  case Op::Ne:
    return a != b;
  case Op::And:
  case Op::Or:
    return b != 0;
  default:
    llvm_unreachable("handled above");
  }
}

bool Model::inDomain(int var, int64_t value) const {
  const Var &v = varList[var];
  if (!v.values.empty())
    return std::binary_search(v.values.begin(), v.values.end(), value);
  return value >= v.lo && value <= v.hi;
}

bool Model::satisfies(ArrayRef<int64_t> values, std::string *why) const {
  for (auto [index, var] : llvm::enumerate(varList)) {
    if (!inDomain(index, values[index])) {
      if (why)
        *why = "domain of " + var.name;
      return false;
    }
  }
  for (const Constraint &constraint : constraintList) {
    bool poisoned = false;
    if (!eval(constraint.expr, values, poisoned) || poisoned) {
      if (why)
        *why = constraint.why;
      return false;
    }
  }
  return true;
}

int Model::lastVar(Expr e) const {
  const Node &n = pool[e.id];
  if (n.op == Op::Const)
    return -1;
  if (n.op == Op::Var)
    return static_cast<int>(n.value);
  int last = lastVar(Expr{n.lhs});
  if (n.rhs >= 0)
    last = std::max(last, lastVar(Expr{n.rhs}));
  return last;
}

bool Model::usesOnly(Expr e, const std::vector<bool> &allowed) const {
  const Node &n = pool[e.id];
  if (n.op == Op::Const)
    return true;
  if (n.op == Op::Var)
    return allowed[n.value];
  return usesOnly(Expr{n.lhs}, allowed) && (n.rhs < 0 || usesOnly(Expr{n.rhs}, allowed));
}

int Model::indexOf(StringRef name) const {
  for (auto [index, var] : llvm::enumerate(varList))
    if (var.name == name)
      return index;
  return -1;
}

namespace {

/// Backtracking in variable order. A constraint is checked as soon as the
/// last variable it mentions is bound, so whole subtrees are cut early.
class LatticeSearch {
public:
  LatticeSearch(const Model &model, size_t limit) : model(model), limit(limit) {
    const auto &vars = model.vars();
    checksAt.resize(vars.size());
    for (auto [index, constraint] : llvm::enumerate(model.constraints())) {
      int last = model.lastVar(constraint.expr);
      checksAt[std::max(last, 0)].push_back(index);
    }
    values.assign(vars.size(), 0);
  }

  std::vector<SmallVector<int64_t>> run() {
    if (!model.vars().empty())
      visit(0);
    return std::move(solutions);
  }

private:
  bool consistent(size_t var) {
    for (int index : checksAt[var]) {
      bool poisoned = false;
      if (!model.eval(model.constraints()[index].expr, values, poisoned) || poisoned)
        return false;
    }
    return true;
  }

  void visit(size_t var) {
    if (limit && solutions.size() >= limit)
      return;
    const Model::Var &v = model.vars()[var];
    auto tryValue = [&](int64_t value) {
      values[var] = value;
      if (!consistent(var))
        return;
      if (var + 1 == model.vars().size())
        solutions.emplace_back(values.begin(), values.end());
      else
        visit(var + 1);
    };
    if (v.definedBy) {
      bool poisoned = false;
      int64_t value = model.eval(*v.definedBy, values, poisoned);
      if (!poisoned && model.inDomain(var, value))
        tryValue(value);
      return;
    }
    if (!v.values.empty()) {
      for (int64_t value : v.values)
        tryValue(value);
      return;
    }
    for (int64_t value = v.lo; value <= v.hi; ++value)
      tryValue(value);
  }

  const Model &model;
  size_t limit;
  std::vector<std::vector<int>> checksAt;
  SmallVector<int64_t> values;
  std::vector<SmallVector<int64_t>> solutions;
};

} // namespace

Expected<std::vector<SmallVector<int64_t>>> solveAll(const Model &model, Engine engine,
                                                     size_t limit) {
  for (const Model::Var &var : model.vars())
    if (var.definedBy && model.lastVar(*var.definedBy) >= model.indexOf(var.name))
      return makeError("variable '" + var.name +
                       "' is defined by a later variable; reorder the model");
  if (engine == Engine::Lattice)
    return LatticeSearch(model, limit).run();
  return solveWithZ3(model, engine, limit);
}

} // namespace retune::gpu
