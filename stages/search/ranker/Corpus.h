//===- Corpus.h - Measured candidates from tunes, and trials ----*- C++ -*-===//
//
// What `retune-ranker` works on: the candidates a tune measured (its build
// directory's candidates/ and results/ records), and the search efficiency
// of an order over them: how many candidates one measures, in that order,
// before one within 5% of the dispatch's best.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SEARCH_RANKER_CORPUS_H
#define RETUNE_SEARCH_RANKER_CORPUS_H

#include "stages/search/ranker/Ranker.h"

#include "llvm/Support/raw_ostream.h"

namespace retune::ranker {

/// Every dispatch of the tune in `buildDir` that has CPU candidates, with
/// each candidate's bench ratio (none: it failed), in the heuristic's order
/// (ascending estimated cost). Dispatches already in `into` (by id) are not
/// added again, so that a dispatch tuned in two builds counts once.
Error readTuneBuild(StringRef buildDir, std::vector<MeasuredDispatch> &into);

/// 1-based position of the first candidate within `within` of the best
/// measured one, measuring in `order` (indices into d.candidates); 0 when
/// nothing was measured.
unsigned trialsToNearBest(const MeasuredDispatch &d, ArrayRef<size_t> order,
                          double within);
/// The same expected over every order equally likely: (N + 1) / (G + 1)
/// for N candidates of which G are within reach.
double randomTrialsToNearBest(const MeasuredDispatch &d, double within);

/// One dispatch's row of the search-efficiency table.
struct DispatchTrials {
  std::string id, name;
  unsigned candidates = 0, nearBest = 0;
  double random = 0;
  unsigned heuristic = 0, learned = 0;
  /// The order used for `learned`: "learned" or "heuristic" (thin data).
  std::string order, why;
};

/// For each dispatch with a measured candidate: trials of random order,
/// the heuristic's and a model trained on every other dispatch
/// (leave-one-dispatch-out).
Expected<std::vector<DispatchTrials>>
evaluateLeaveOneOut(ArrayRef<MeasuredDispatch> corpus, const cpu::CpuHost &host,
                    double within = 0.05);

/// The table, ending with the line
/// `trials to 5% of best (geomean): random R, heuristic H, learned L`.
void printTrials(ArrayRef<DispatchTrials> rows, llvm::raw_ostream &os);

} // namespace retune::ranker

#endif // RETUNE_SEARCH_RANKER_CORPUS_H
