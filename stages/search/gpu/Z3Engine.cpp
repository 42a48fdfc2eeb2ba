//===- Z3Engine.cpp - The Z3 engines for Model (the one throwing TU) ------===//
//
// z3++.h reports every error by throwing z3::exception. This file is compiled
// with -fexceptions and is the only one that includes it: each entry point
// catches and turns the exception into an llvm::Error.
//
//===----------------------------------------------------------------------===//
#include "stages/search/gpu/Model.h"

#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <z3++.h>

namespace retune::gpu {
namespace {

using Solutions = std::vector<SmallVector<int64_t>>;

/// Lowers a Model into one Z3 solver; the engines below differ only in how
/// they walk the solution space.
class Z3Model {
public:
  explicit Z3Model(const Model &model) : model(model), solver(ctx), vars(ctx) {
    z3::params params(ctx);
    // Solutions are enumerated in bulk; the default incremental tactic is the
    // fastest for many small checks.
    solver.set(params);
    for (const Model::Var &var : model.vars())
      vars.push_back(ctx.int_const(var.name.c_str()));
    for (auto [index, var] : llvm::enumerate(model.vars()))
      solver.add(domain(index));
    for (const Model::Constraint &constraint : model.constraints()) {
      lowered.push_back(lowerConstraint(constraint.expr));
      solver.add(lowered.back());
    }
  }

  /// Most constraints go to Z3 as they are. One that divides by a
  /// variable (e.g. the promoted-load rule, LoadDistribution.h) is
  /// nonlinear, and Z3 takes minutes on a few of them; when its variables
  /// have a small joint domain it goes to Z3 as the table of the tuples
  /// that satisfy it, evaluated in C++ (the same semantics as the lattice
  /// engine: a division by zero makes a tuple fail).
  z3::expr lowerConstraint(Expr e) {
    SmallVector<unsigned> used;
    collectVars(e, used);
    llvm::sort(used);
    used.erase(std::unique(used.begin(), used.end()), used.end());
    if (!dividesByVariable(e) || used.empty() || jointDomainSize(used) > kMaxTableRows)
      return lower(e);
    SmallVector<int64_t> values(model.vars().size(), 0);
    z3::expr_vector rows(ctx);
    tabulate(e, used, 0, values, rows);
    return rows.empty() ? ctx.bool_val(false) : z3::mk_or(rows);
  }

  static constexpr uint64_t kMaxTableRows = 1 << 14;

  void collectVars(Expr e, SmallVector<unsigned> &out) const {
    const Model::Node &n = model.nodes()[e.id];
    if (n.op == Model::Op::Var) {
      out.push_back(static_cast<unsigned>(n.value));
      return;
    }
    if (n.lhs >= 0)
      collectVars(Expr{n.lhs}, out);
    if (n.rhs >= 0)
      collectVars(Expr{n.rhs}, out);
  }

  bool dividesByVariable(Expr e) const {
    const Model::Node &n = model.nodes()[e.id];
    if ((n.op == Model::Op::Div || n.op == Model::Op::Mod) &&
        model.lastVar(Expr{n.rhs}) >= 0)
      return true;
    return (n.lhs >= 0 && dividesByVariable(Expr{n.lhs})) ||
           (n.rhs >= 0 && dividesByVariable(Expr{n.rhs}));
  }

  SmallVector<int64_t> domainOf(unsigned index) const {
    const Model::Var &var = model.vars()[index];
    if (!var.values.empty())
      return var.values;
    SmallVector<int64_t> out;
    for (int64_t v = var.lo; v <= var.hi; ++v)
      out.push_back(v);
    return out;
  }

  uint64_t jointDomainSize(ArrayRef<unsigned> used) const {
    uint64_t size = 1;
    for (unsigned index : used) {
      const Model::Var &var = model.vars()[index];
      uint64_t count = var.values.empty() ? static_cast<uint64_t>(var.hi - var.lo + 1)
                                          : var.values.size();
      size *= std::max<uint64_t>(count, 1);
      if (size > kMaxTableRows)
        return size;
    }
    return size;
  }

  void tabulate(Expr e, ArrayRef<unsigned> used, size_t pos, SmallVector<int64_t> &values,
                z3::expr_vector &rows) {
    if (pos == used.size()) {
      bool poisoned = false;
      if (!model.eval(e, values, poisoned) || poisoned)
        return;
      z3::expr row = ctx.bool_val(true);
      for (unsigned index : used)
        row = row && vars[index] == ctx.int_val(values[index]);
      rows.push_back(row);
      return;
    }
    for (int64_t value : domainOf(used[pos])) {
      values[used[pos]] = value;
      tabulate(e, used, pos + 1, values, rows);
    }
  }

  z3::expr domain(unsigned index) {
    const Model::Var &var = model.vars()[index];
    z3::expr v = vars[index];
    if (var.values.empty())
      return v >= ctx.int_val(var.lo) && v <= ctx.int_val(var.hi);
    z3::expr_vector options(ctx);
    for (int64_t value : var.values)
      options.push_back(v == ctx.int_val(value));
    return z3::mk_or(options);
  }

  z3::expr lower(Expr e) {
    const Model::Node &n = model.nodes()[e.id];
    using Op = Model::Op;
    switch (n.op) {
    case Op::Const:
      return ctx.int_val(n.value);
    case Op::Var:
      return vars[static_cast<int>(n.value)];
    case Op::Not:
      return !lower(Expr{n.lhs});
    default:
      break;
    }
    z3::expr a = lower(Expr{n.lhs});
    z3::expr b = lower(Expr{n.rhs});
    switch (n.op) {
    case Op::Add:
      return a + b;
    case Op::Sub:
      return a - b;
    case Op::Mul:
      return a * b;
    case Op::Div:
      return a / b;
    case Op::Mod:
      return z3::mod(a, b);
    case Op::Le:
      return a <= b;
    case Op::Lt:
      return a < b;
    case Op::Eq:
      return a == b;
    case Op::Ne:
      return a != b;
    case Op::And:
      return a && b;
    case Op::Or:
      return a || b;
    default:
      llvm_unreachable("handled above");
    }
  }

  SmallVector<int64_t> read(const z3::model &m) {
    SmallVector<int64_t> values;
    for (unsigned i = 0; i < vars.size(); ++i)
      values.push_back(m.eval(vars[i], true).get_numeral_int64());
    return values;
  }

  /// Blocking-clause loop over the variables `keys` (whose values the current
  /// scope does not fix); appends every solution.
  void enumerateBlocking(ArrayRef<unsigned> keys, Solutions &out, size_t limit) {
    enumerateBlocking(solver, keys, out, limit);
  }

  void enumerateBlocking(z3::solver &solver, ArrayRef<unsigned> keys, Solutions &out,
                         size_t limit) {
    while (!limit || out.size() < limit) {
      if (solver.check() != z3::sat)
        return;
      SmallVector<int64_t> values = read(solver.get_model());
      z3::expr_vector differs(ctx);
      for (unsigned key : keys)
        differs.push_back(vars[key] != ctx.int_val(values[key]));
      out.push_back(std::move(values));
      if (differs.empty())
        return;
      solver.add(z3::mk_or(differs));
    }
  }

  /// Splits on keys[level]: finds a value, fixes it in a new scope, recurses,
  /// then excludes it with a unit clause in the outer scope.
  void enumerateSplitting(ArrayRef<unsigned> keys, size_t level, Solutions &out,
                          size_t limit) {
    if (level == keys.size()) {
      if (solver.check() == z3::sat)
        out.push_back(read(solver.get_model()));
      return;
    }
    solver.push();
    while (!limit || out.size() < limit) {
      if (solver.check() != z3::sat)
        break;
      int64_t value = solver.get_model().eval(vars[keys[level]], true).get_numeral_int64();
      solver.push();
      solver.add(vars[keys[level]] == ctx.int_val(value));
      enumerateSplitting(keys, level + 1, out, limit);
      solver.pop();
      solver.add(vars[keys[level]] != ctx.int_val(value));
    }
    solver.pop();
  }

  const Model &model;
  z3::context ctx;
  z3::solver solver;
  z3::expr_vector vars;
  std::vector<z3::expr> lowered;
};

/// C++ walks the explicit-domain ("lattice") variables, pruning with the
/// constraints that mention only them; Z3 completes each lattice point.
class LatticeThenZ3 {
public:
  LatticeThenZ3(const Model &model, Z3Model &z3, size_t limit)
      : model(model), z3(z3), limit(limit) {
    for (unsigned index = 0; index < model.vars().size(); ++index)
      if (model.vars()[index].values.empty())
        pointSolver.add(z3.domain(index));
    const auto &vars = model.vars();
    isLattice.assign(vars.size(), false);
    for (auto [index, var] : llvm::enumerate(vars))
      if (!var.values.empty())
        isLattice[index] = true;
    for (auto [index, var] : llvm::enumerate(vars)) {
      if (isLattice[index])
        lattice.push_back(index);
      else if (var.key)
        rest.push_back(index);
    }
    checksAt.resize(lattice.size());
    for (auto [index, constraint] : llvm::enumerate(model.constraints())) {
      if (!model.usesOnly(constraint.expr, isLattice))
        continue;
      int last = model.lastVar(constraint.expr);
      size_t pos = 0;
      while (pos + 1 < lattice.size() && static_cast<int>(lattice[pos]) < last)
        ++pos;
      checksAt[pos].push_back(index);
    }
    values.assign(vars.size(), 0);
  }

  void run(Solutions &out) {
    if (lattice.empty()) {
      z3.enumerateBlocking(rest, out, limit);
      return;
    }
    visit(0, out);
  }

private:
  void visit(size_t pos, Solutions &out) {
    for (int64_t value : model.vars()[lattice[pos]].values) {
      if (limit && out.size() >= limit)
        return;
      values[lattice[pos]] = value;
      bool ok = true;
      for (int index : checksAt[pos]) {
        bool poisoned = false;
        if (!model.eval(model.constraints()[index].expr, values, poisoned) || poisoned) {
          ok = false;
          break;
        }
      }
      if (!ok)
        continue;
      if (pos + 1 < lattice.size()) {
        visit(pos + 1, out);
        continue;
      }
      solvePoint(out);
    }
  }

  /// Z3 sees only what is left at this point: the constraints with the
  /// lattice values substituted and simplified (mostly linear, or decided
  /// outright), over the remaining variables. Asserting the values as
  /// equalities instead leaves Z3 the nonlinear terms and is ~100x slower.
  void solvePoint(Solutions &out) {
    z3::expr_vector src(z3.ctx), dst(z3.ctx);
    for (unsigned var : lattice) {
      src.push_back(z3.vars[var]);
      dst.push_back(z3.ctx.int_val(values[var]));
    }
    pointSolver.push();
    for (unsigned var : lattice)
      pointSolver.add(z3.vars[var] == z3.ctx.int_val(values[var]));
    for (auto [index, constraint] : llvm::enumerate(z3.lowered)) {
      if (model.usesOnly(model.constraints()[index].expr, isLattice))
        continue; // Checked in C++ already.
      z3::expr reduced = constraint.substitute(src, dst).simplify();
      if (reduced.is_false()) {
        pointSolver.pop();
        return;
      }
      if (!reduced.is_true())
        pointSolver.add(reduced);
    }
    z3.enumerateBlocking(pointSolver, rest, out, limit);
    pointSolver.pop();
  }

  const Model &model;
  Z3Model &z3;
  z3::solver pointSolver{z3.ctx};
  size_t limit;
  std::vector<bool> isLattice;
  SmallVector<unsigned> lattice, rest;
  std::vector<std::vector<int>> checksAt;
  SmallVector<int64_t> values;
};

} // namespace

Expected<Solutions> solveWithZ3(const Model &model, Engine engine, size_t limit) {
  try {
    Z3Model z3(model);
    SmallVector<unsigned> keys;
    for (auto [index, var] : llvm::enumerate(model.vars()))
      if (var.key)
        keys.push_back(index);
    Solutions out;
    switch (engine) {
    case Engine::Z3Blocking:
      z3.enumerateBlocking(keys, out, limit);
      break;
    case Engine::Z3Incremental:
      z3.enumerateSplitting(keys, 0, out, limit);
      break;
    case Engine::LatticeZ3:
      LatticeThenZ3(model, z3, limit).run(out);
      break;
    case Engine::Lattice:
      return makeError("the lattice engine does not use Z3");
    }
    return out;
  } catch (const z3::exception &e) {
    return makeError(Twine("Z3 failed: ") + e.msg());
  }
}

} // namespace retune::gpu
