//===- RankerTesting.h - Synthetic measurements for ranker tests -*- C++
//-*-===//
//
// Only for *Test.cpp files: matmul dispatches whose measured time depends
// on one knob, so that a test knows the order a model should learn.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SEARCH_RANKER_RANKERTESTING_H
#define RETUNE_SEARCH_RANKER_RANKERTESTING_H

#include "stages/core/Testing.h"
#include "stages/search/ranker/Ranker.h"

#include <cmath>

namespace retune::test {

inline cpu::CpuConfig registerTiled(int64_t rows, int64_t cols,
                                    unsigned unroll) {
  cpu::CpuConfig c;
  c.outerTiles = {0, 0, 0};
  c.reductionTiles = {0, 0, 0};
  c.registerTiles = {rows, cols, 1};
  c.kUnroll = unroll;
  return c;
}

/// The time of a candidate of the synthetic corpus: fastest at 5 register
/// rows, 10% slower per row away from it.
inline double syntheticTime(const cpu::CpuConfig &c) {
  return 1 + 0.1 * std::abs(c.registerTiles[0] - 5);
}

/// A matmul whose candidates' time is syntheticTime. The candidates are
/// listed worst-first, so keeping their order finds the best last.
inline ranker::MeasuredDispatch syntheticDispatch(int64_t size, unsigned salt) {
  ranker::MeasuredDispatch d;
  d.problem = matmulProblem(size, size + 16 * salt, 64 + 8 * salt);
  d.id = d.problem.stableId();
  for (int64_t rows : {8, 1, 7, 2, 6, 3, 4, 5})
    for (unsigned unroll : {1u, 2u, 4u}) {
      cpu::CpuConfig c = registerTiled(rows, 16, unroll);
      d.candidates.push_back({c, syntheticTime(c)});
    }
  return d;
}

inline std::vector<ranker::MeasuredDispatch> syntheticCorpus(unsigned n) {
  std::vector<ranker::MeasuredDispatch> corpus;
  for (unsigned i = 0; i < n; ++i)
    corpus.push_back(syntheticDispatch(64 + 32 * i, i));
  return corpus;
}

} // namespace retune::test

#endif // RETUNE_SEARCH_RANKER_RANKERTESTING_H
