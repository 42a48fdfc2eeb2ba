//===- Booster.h - Gradient-boosted trees (XGBoost) -------------*- C++ -*-===//
//
// The one interface to XGBoost's C API (Booster.cpp is its only includer):
// train a pairwise ranking model on groups of rows, predict scores, and
// save or load the model as XGBoost's JSON text. XGBoost's error codes
// become llvm::Error with XGBoost's own message.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SEARCH_RANKER_BOOSTER_H
#define RETUNE_SEARCH_RANKER_BOOSTER_H

#include "stages/support/LLVM.h"

#include <string>
#include <vector>

namespace retune::ranker {

/// Rows of features, row-major, with a label per row; `groups` are the
/// sizes of consecutive runs of rows ranked against each other (one
/// dispatch's candidates).
struct TrainingRows {
  unsigned columns = 0;
  std::vector<float> features;
  /// Higher is better (the ranker ranks by it).
  std::vector<float> labels;
  std::vector<unsigned> groups;
};

class Booster {
public:
  /// Trains `rounds` trees with a pairwise ranking objective; deterministic
  /// (one thread, fixed seed).
  static Expected<Booster> train(const TrainingRows &rows, unsigned rounds);
  /// A model saved by save().
  static Expected<Booster> load(StringRef json);

  /// XGBoost's JSON model text.
  Expected<std::string> save() const;
  /// One score per row of `features` (row-major, `columns` wide); higher
  /// ranks first.
  Expected<std::vector<float>> predict(ArrayRef<float> features,
                                       unsigned columns) const;

  Booster(Booster &&other) noexcept;
  Booster &operator=(Booster &&other) noexcept;
  Booster(const Booster &) = delete;
  Booster &operator=(const Booster &) = delete;
  ~Booster();

private:
  Booster() = default;
  /// XGBoost's BoosterHandle.
  void *handle = nullptr;
};

} // namespace retune::ranker

#endif // RETUNE_SEARCH_RANKER_BOOSTER_H
