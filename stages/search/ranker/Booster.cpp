//===- Booster.cpp - Gradient-boosted trees (XGBoost) ---------------------===//
//
// The only file that includes XGBoost's C API. Every call's status goes
// through check(), which turns a failure into an llvm::Error carrying
// XGBGetLastError's text.
//
//===----------------------------------------------------------------------===//
#include "stages/search/ranker/Booster.h"

#include "stages/support/FileUtil.h"

#include "llvm/Support/FormatVariadic.h"

#include <xgboost/c_api.h>

#include <cmath>
#include <limits>
#include <memory>

using namespace llvm;

namespace retune::ranker {

namespace {

Error check(int status, StringRef call) {
  if (status == 0)
    return Error::success();
  return makeError("xgboost: " + call + ": " + XGBGetLastError());
}

struct MatrixDeleter {
  void operator()(void *handle) const { XGDMatrixFree(handle); }
};
using Matrix = std::unique_ptr<void, MatrixDeleter>;

Expected<Matrix> makeMatrix(ArrayRef<float> features, unsigned columns) {
  if (columns == 0 || features.size() % columns != 0)
    return makeError(formatv("xgboost: {0} feature values are not rows of {1}",
                             features.size(), columns)
                         .str());
  DMatrixHandle handle = nullptr;
  // NaN marks a missing value; extractFeatures never writes one.
  if (Error err = check(XGDMatrixCreateFromMat(
                            features.data(), features.size() / columns, columns,
                            std::numeric_limits<float>::quiet_NaN(), &handle),
                        "XGDMatrixCreateFromMat"))
    return std::move(err);
  return Matrix(handle);
}

/// Parameters of the ranking model. Pairwise ranking within a dispatch:
/// only the order of one dispatch's candidates matters, never how fast one
/// dispatch is against another (a regression on the times ordered the
/// corpus of bench/search-efficiency.sh worse: 9.1 trials against 5.3).
/// Shallow trees (depth 4 beat 6 there) and subsampling-free,
/// single-threaded training keep the model reproducible bit for bit.
const std::pair<const char *, const char *> kParams[] = {
    {"objective", "rank:pairwise"},
    {"eta", "0.1"},
    {"max_depth", "4"},
    {"min_child_weight", "1"},
    {"nthread", "1"},
    {"seed", "0"},
    {"verbosity", "0"},
};

} // namespace

Expected<Booster> Booster::train(const TrainingRows &rows, unsigned rounds) {
  if (rows.labels.size() * rows.columns != rows.features.size())
    return makeError("xgboost: one label per row is needed");
  Expected<Matrix> matrix = makeMatrix(rows.features, rows.columns);
  if (!matrix)
    return matrix.takeError();
  if (Error err =
          check(XGDMatrixSetFloatInfo(matrix->get(), "label",
                                      rows.labels.data(), rows.labels.size()),
                "XGDMatrixSetFloatInfo"))
    return std::move(err);
  if (Error err =
          check(XGDMatrixSetUIntInfo(matrix->get(), "group", rows.groups.data(),
                                     rows.groups.size()),
                "XGDMatrixSetUIntInfo"))
    return std::move(err);
  Booster booster;
  DMatrixHandle train[] = {matrix->get()};
  if (Error err =
          check(XGBoosterCreate(train, 1, &booster.handle), "XGBoosterCreate"))
    return std::move(err);
  for (auto [name, value] : kParams)
    if (Error err = check(XGBoosterSetParam(booster.handle, name, value),
                          "XGBoosterSetParam"))
      return std::move(err);
  for (unsigned round = 0; round < rounds; ++round)
    if (Error err =
            check(XGBoosterUpdateOneIter(booster.handle, round, matrix->get()),
                  "XGBoosterUpdateOneIter"))
      return std::move(err);
  return std::move(booster);
}

Expected<Booster> Booster::load(StringRef json) {
  Booster booster;
  if (Error err = check(XGBoosterCreate(nullptr, 0, &booster.handle),
                        "XGBoosterCreate"))
    return std::move(err);
  if (Error err = check(XGBoosterLoadModelFromBuffer(booster.handle,
                                                     json.data(), json.size()),
                        "XGBoosterLoadModelFromBuffer"))
    return std::move(err);
  return std::move(booster);
}

Expected<std::string> Booster::save() const {
  bst_ulong length = 0;
  const char *bytes = nullptr;
  if (Error err = check(XGBoosterSaveModelToBuffer(
                            handle, R"({"format": "json"})", &length, &bytes),
                        "XGBoosterSaveModelToBuffer"))
    return std::move(err);
  return std::string(bytes, length);
}

Expected<std::vector<float>> Booster::predict(ArrayRef<float> features,
                                              unsigned columns) const {
  if (features.empty())
    return std::vector<float>();
  Expected<Matrix> matrix = makeMatrix(features, columns);
  if (!matrix)
    return matrix.takeError();
  bst_ulong length = 0;
  const float *scores = nullptr;
  if (Error err = check(
          XGBoosterPredict(handle, matrix->get(), 0, 0, 0, &length, &scores),
          "XGBoosterPredict"))
    return std::move(err);
  return std::vector<float>(scores, scores + length);
}

Booster::Booster(Booster &&other) noexcept
    : handle(std::exchange(other.handle, nullptr)) {}

Booster &Booster::operator=(Booster &&other) noexcept {
  std::swap(handle, other.handle);
  return *this;
}

Booster::~Booster() {
  if (handle)
    XGBoosterFree(handle);
}

} // namespace retune::ranker
