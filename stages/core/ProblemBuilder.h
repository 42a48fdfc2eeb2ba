//===- ProblemBuilder.h - Problems from loops, roles and operands -*- C++ -*-===//
//
// A Problem holds facts that must agree: the loops' roles and iterator
// types, each operand's indexing map over those loops, its element type.
// ProblemBuilder derives what follows from what is given (iterator types
// from the roles, printed maps from the loops each operand reads) and
// checks the rest, so a Problem made by a test, a bench or the corpus is
// one a reader of real IR could have made. The common shapes below are
// built with it.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CORE_PROBLEMBUILDER_H
#define RETUNE_CORE_PROBLEMBUILDER_H

#include "stages/core/Problem.h"

#include <string>
#include <vector>

namespace retune {

class ProblemBuilder {
public:
  ProblemBuilder(OpKind kind, StringRef opName);

  /// One loop per letter of `roles` (Problem::dimRoles) with its range; a
  /// loop is a reduction where its role is one for the op kind
  /// (contraction k; convolution r, c; attention k, l).
  ProblemBuilder &loops(StringRef roles, ArrayRef<int64_t> ranges);
  /// An input reading `results` (loop names `d<i>`, or sums such as
  /// `d1 + d4`), in operand order; then the inits.
  ProblemBuilder &input(ArrayRef<std::string> results, StringRef type);
  ProblemBuilder &init(ArrayRef<std::string> results, StringRef type);
  ProblemBuilder &target(StringRef target);

  /// The Problem; aborts on an operand whose map does not parse over the
  /// loops (a builder is called with constants: a mistake is a bug).
  Problem build() const;

private:
  Problem problem;
  unsigned inits = 0;
  void addOperand(ArrayRef<std::string> results, StringRef type, bool isInit);
};

/// Options of the common shapes.
struct ShapeOptions {
  std::string inType = "f32";
  std::string accType = "f32";
  std::string target = "cpu:test";
};

/// linalg.matmul C[m,n] += A[m,k] * B[k,n], or B[n,k] with `transposedB`.
Problem matmulProblem(int64_t m, int64_t n, int64_t k, bool transposedB = false,
                      const ShapeOptions &options = {});
/// linalg.batch_matmul C[b,m,n] += A[b,m,k] * B[b,k,n].
Problem batchMatmulProblem(int64_t b, int64_t m, int64_t n, int64_t k,
                           const ShapeOptions &options = {});
/// linalg.conv_2d_nhwc_hwcf with unit strides: output n x oh x ow x f,
/// filter kh x kw x c.
Problem convNhwcHwcfProblem(int64_t n, int64_t oh, int64_t ow, int64_t f,
                            int64_t kh, int64_t kw, int64_t c,
                            const ShapeOptions &options = {});
/// iree_linalg_ext.attention over loops `batches` x (M, N, K1, K2):
/// Q[b...,m,k1], K[b...,k2,k1], V[b...,k2,n] (V[b...,n,k2] with
/// `transposedV`, as IREE's ROCm examples hold it), a scale, O[b...,m,n];
/// all of `options.inType`.
Problem attentionProblem(ArrayRef<int64_t> batches, int64_t m, int64_t n,
                         int64_t k1, int64_t k2, bool transposedV = false,
                         const ShapeOptions &options = {});

} // namespace retune

#endif // RETUNE_CORE_PROBLEMBUILDER_H
