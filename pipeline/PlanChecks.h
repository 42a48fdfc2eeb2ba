//===- PlanChecks.h - What `retune plan` checks beyond the TOML -*- C++ -*-===//
//
// A mistake that can be seen before tuning starts must stop the plan, not a
// step at the end of a long run: the model must be a readable file, the
// cache directory a directory, and the backend checks what it can see of
// the model (its entry function, its inputs).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_PIPELINE_PLANCHECKS_H
#define RETUNE_PIPELINE_PLANCHECKS_H

#include "pipeline/Config.h"

namespace retune::pipeline {

/// Checks `config` against the file system and the model. Errors name
/// tune.toml's line of the key at fault and what to do.
Error checkPlanInputs(const TuneConfig &config);

} // namespace retune::pipeline

#endif // RETUNE_PIPELINE_PLANCHECKS_H
