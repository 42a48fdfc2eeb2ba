//===- Planner.h - tune.toml + what exists so far -> build.ninja -*- C++ -*-===//
//
// The graph grows in phases, each re-plan adding what the previous phase
// discovered (Ninja rebuilds and reloads build.ninja before anything else):
//   1. plan + dump (dispatches/index.json is an input of build.ninja);
//   2. one candidates edge per dispatch (their indexes are inputs too);
//   3. per candidate one compile and one bench edge, then select, link,
//      model and report.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_PIPELINE_PLANNER_H
#define RETUNE_PIPELINE_PLANNER_H

#include "pipeline/Backend.h"

#include <string>

namespace retune::pipeline {

/// The build.ninja text for `config`, given the records already in the
/// build directory. A damaged record, or one whose files do not match it,
/// is removed so that its step runs again; a dispatch index that lists
/// nothing is an error (nothing to tune), for every backend.
Expected<std::string> planManifest(const TuneConfig &config,
                                   const PlannerPaths &paths,
                                   const Backend &backend);
/// planManifest with the backend `config` names.
Expected<std::string> planManifest(const TuneConfig &config,
                                   const PlannerPaths &paths);

/// Asks the backend to prepare (find its tools, write its files), then
/// writes compiler.id and build.ninja (each only when changed).
Error writePlan(const TuneConfig &config, const PlannerPaths &paths);

} // namespace retune::pipeline

#endif // RETUNE_PIPELINE_PLANNER_H
