//===- Model.h - Finite integer constraint systems and their solvers -*- C++ -*-===//
//
// A Model is a small integer constraint system: named variables with finite
// domains (an explicit value list, the "divisor lattice", or an interval) and
// boolean constraints over a tiny expression language. The same model is
// solved by several engines so that they can be measured against each other
// and cross-checked:
//
//   Z3Blocking     Z3 alone; after each model, a clause blocks it (the
//                  reference tuner's approach).
//   Z3Incremental  Z3 alone; splits on one key variable at a time with
//                  push/pop, so every blocking clause is a unit disequality.
//   LatticeZ3      C++ enumerates the variables with explicit domains and
//                  prunes with the constraints over them; Z3 solves the rest
//                  for every surviving lattice point (push/pop).
//   Lattice        C++ only: backtracking over every domain, computing
//                  variables that have a defining expression.
//
// All engines return the same solution set (tests check it); only the order
// may differ, and the ordering stage sorts anyway.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_GPU_MODEL_H
#define RETUNE_GPU_MODEL_H

#include "stages/support/LLVM.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace retune::gpu {

enum class Engine { Z3Blocking, Z3Incremental, LatticeZ3, Lattice };

StringRef toString(Engine engine);
std::optional<Engine> parseEngine(StringRef text);

/// An index into a Model's expression pool.
struct Expr {
  int id = -1;
};

class Model {
public:
  enum class Op { Const, Var, Add, Sub, Mul, Div, Mod, Le, Lt, Eq, Ne, And, Or, Not };

  struct Node {
    Op op;
    int lhs = -1, rhs = -1;
    int64_t value = 0; // constant value or variable index
  };

  struct Var {
    std::string name;
    /// Explicit domain; when empty the domain is [lo, hi].
    SmallVector<int64_t> values;
    int64_t lo = 0, hi = 0;
    /// Blocking clauses mention only key variables; the others must be
    /// functions of the key variables.
    bool key = true;
    /// When set, the C++ engines compute the value instead of trying the
    /// whole domain (the constraints still decide whether it is valid).
    std::optional<Expr> definedBy;
  };

  struct Constraint {
    Expr expr;
    std::string why;
  };

  Expr addVar(StringRef name, int64_t lo, int64_t hi, bool key = true);
  Expr addVarIn(StringRef name, ArrayRef<int64_t> values, bool key = true);
  void define(Expr var, Expr value);
  void require(Expr condition, StringRef why);

  Expr c(int64_t value);
  Expr add(Expr a, Expr b) { return node(Op::Add, a, b); }
  Expr sub(Expr a, Expr b) { return node(Op::Sub, a, b); }
  Expr mul(Expr a, Expr b) { return node(Op::Mul, a, b); }
  Expr div(Expr a, Expr b) { return node(Op::Div, a, b); }
  Expr mod(Expr a, Expr b) { return node(Op::Mod, a, b); }
  Expr le(Expr a, Expr b) { return node(Op::Le, a, b); }
  Expr lt(Expr a, Expr b) { return node(Op::Lt, a, b); }
  Expr eq(Expr a, Expr b) { return node(Op::Eq, a, b); }
  Expr ne(Expr a, Expr b) { return node(Op::Ne, a, b); }
  Expr land(Expr a, Expr b) { return node(Op::And, a, b); }
  Expr lor(Expr a, Expr b) { return node(Op::Or, a, b); }
  Expr lnot(Expr a) { return node(Op::Not, a, Expr{}); }
  /// Product of a list (1 when empty).
  Expr product(ArrayRef<Expr> factors);
  /// `a % b == 0`.
  Expr divides(Expr b, Expr a) { return eq(mod(a, b), c(0)); }

  /// Evaluates with every variable bound; division by zero makes the whole
  /// evaluation "poisoned", which constraints treat as false.
  int64_t eval(Expr e, ArrayRef<int64_t> values, bool &poisoned) const;
  /// Whether `values` satisfies every domain and constraint; names the first
  /// violated one in `why` otherwise.
  bool satisfies(ArrayRef<int64_t> values, std::string *why = nullptr) const;

  /// The highest variable index `e` mentions (-1 for constants).
  int lastVar(Expr e) const;
  /// Whether `e` mentions only variables for which `allowed[v]` is true.
  bool usesOnly(Expr e, const std::vector<bool> &allowed) const;
  bool inDomain(int var, int64_t value) const;

  const std::vector<Var> &vars() const { return varList; }
  const std::vector<Node> &nodes() const { return pool; }
  const std::vector<Constraint> &constraints() const { return constraintList; }
  int indexOf(StringRef name) const;

private:
  Expr node(Op op, Expr a, Expr b);

  std::vector<Var> varList;
  std::vector<Node> pool;
  std::vector<Constraint> constraintList;
};

/// Every solution of `model` (values of all variables, in variable order).
/// `limit` stops early (0 = all). Z3 errors come back as llvm::Error.
Expected<std::vector<SmallVector<int64_t>>> solveAll(const Model &model, Engine engine,
                                                     size_t limit = 0);

/// The Z3 engines, implemented in Z3Engine.cpp (the one file built with
/// exceptions).
Expected<std::vector<SmallVector<int64_t>>> solveWithZ3(const Model &model, Engine engine,
                                                        size_t limit);

} // namespace retune::gpu

#endif // RETUNE_GPU_MODEL_H
