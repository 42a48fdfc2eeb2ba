//===- CpuAnalysis.h - What the CPU space knows of a problem -----*- C++ -*-===//
//
// The facts about a contraction or convolution Problem that the CPU knob
// space (CpuSpace.h), its checker (CpuChecker.h) and its cost model
// (CpuCostModel.h) all start from: the loops that carry the register tile
// and the vector, the reduction loop, the loops outer tiles may split, the
// packed operands, and the operand facts the cost model weighs.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CPU_CPUANALYSIS_H
#define RETUNE_CPU_CPUANALYSIS_H

#include "stages/core/Problem.h"
#include "stages/search/cpu/CpuHost.h"

#include <optional>

namespace retune::cpu {

/// Per result of a printed indexing map ("affine_map<(d0, d1) -> (d1)>"),
/// the loop it reads (-1 for an expression such as `d1 + d4`); none when
/// the text is not a map over `numLoops` loops (stages/core/IndexingMap.h
/// reads it).
std::optional<SmallVector<int>> mapResultLoops(StringRef text,
                                               unsigned numLoops);

/// The outer-tile rule of a contraction with packed operands
/// (Problem::prologue): each outer tile transposes the panel of the operand
/// it reads, so the loops whose iterations reuse that panel (the other
/// operand's rows) stay whole, and batch loops go one at a time (a panel
/// holds one batch's rows). Empty without a prologue.
struct PackedLoops {
  SmallVector<unsigned> reused;
  SmallVector<unsigned> batch;
  /// The loops a packed operand reads: its panel spans their outer tiles.
  SmallVector<unsigned> panelLoops;
};
PackedLoops packedLoops(const Problem &problem);

/// What the space and the cost model need to know about a problem.
struct Analysis {
  OpKind kind = OpKind::Contraction;
  SmallVector<int64_t> ranges;
  unsigned inBytes = 4, outBytes = 4;
  /// Elements per vector register of the vectorized loop.
  int64_t width = 1;
  /// Register-tiled rows loop (innermost 'm' / output-image loop); -1: none.
  int mDim = -1;
  /// Vectorized loop (innermost 'n' / output-channel loop).
  unsigned nDim = 0;
  /// Innermost reduction loop: the innermost register loop, reduction tiled.
  unsigned kDim = 0;
  /// Loops that may carry scf.for cache tiles (threads == 1).
  SmallVector<unsigned> cacheDims;
  /// Loops that may carry scf.forall tiles (threads > 1).
  SmallVector<unsigned> threadDims;
  /// Packed operands: loops outer tiles leave whole, and batch loops they
  /// take one at a time (see packedLoops).
  PackedLoops packed;
  /// Whether the operands overflow L2 so cache tiling is worth a loop.
  bool cacheTiling = false;
  /// Register-loop orders: rows loop outer (identity for the usual loop
  /// orders) and, where allowed, vectorized loop outer.
  SmallVector<int64_t> orderRowsOuter, orderColsOuter;
  bool twoOrders = false;
  /// Cost-model facts about the operands: the broadcast operand's rows are
  /// separate streams; the vector operand is strided (transposed) along n;
  /// its rows share L1 sets.
  bool rowStreams = false;
  bool transposedVectorOperand = false;
  bool vectorOperandConflicts = false;

  int64_t rows() const { return mDim < 0 ? 1 : ranges[mDim]; }
  int64_t cols() const { return ranges[nDim]; }
  /// Product of all reduction ranges except kDim.
  int64_t otherReduction = 1;
};

/// The analysis of `problem` on `host`; an error names what the CPU space
/// does not cover.
Expected<Analysis> analyze(const Problem &problem, const CpuHost &host);

} // namespace retune::cpu

#endif // RETUNE_CPU_CPUANALYSIS_H
