//===- Features.h - Numbers a learned ranker sees of a candidate -*- C++
//-*-===//
//
// One row of numeric features per (problem, CPU configuration, host). The
// names and their order are the feature set; kFeatureVersion changes with
// them, so that a model trained on another set is refused (Ranker.h) rather
// than fed columns that mean something else.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SEARCH_RANKER_FEATURES_H
#define RETUNE_SEARCH_RANKER_FEATURES_H

#include "stages/core/Problem.h"
#include "stages/search/cpu/CpuConfig.h"
#include "stages/search/cpu/CpuHost.h"

#include <string>
#include <vector>

namespace retune::ranker {

/// Bump with any change to what a feature means, its name or its order.
inline constexpr unsigned kFeatureVersion = 2;

/// The feature names, in column order.
const std::vector<std::string> &featureNames();

/// The features of `config` for `problem` on `host`: featureNames().size()
/// finite numbers (logarithms of sizes and ratios, flags as 0/1).
std::vector<float> extractFeatures(const Problem &problem,
                                   const cpu::CpuConfig &config,
                                   const cpu::CpuHost &host);

/// The features of each of `configs`, one dispatch's candidates, row after
/// row. Beside extractFeatures' columns, the estimated cost is given
/// relative to the group's cheapest (log2_estimated_cost_over_best): a
/// ranker compares candidates within a dispatch, and a relative cost means
/// the same on dispatches of any size.
std::vector<float> extractGroupFeatures(const Problem &problem,
                                        ArrayRef<cpu::CpuConfig> configs,
                                        const cpu::CpuHost &host);

} // namespace retune::ranker

#endif // RETUNE_SEARCH_RANKER_FEATURES_H
