//===- ClusterPlan.h - Compile and bench steps on a Slurm cluster -*- C++ -*-===//
//
// With `[cluster] kind = "slurm"` the graph stays the same and every compile,
// bench and model edge is launched through `srun`: the rule files prefix
// those commands with ${compile_launcher}, ${bench_launcher} and
// ${model_launcher}, which are empty (undefined) for a local run, so local
// command lines do not change. Each step is one Slurm job: a failed, killed
// or preempted job is a failed Ninja edge whose (atomically written) output
// is absent, so the next `ninja` reruns exactly that step. The pools bound
// how many jobs Ninja keeps in Slurm: `compile` at the allocation's CPUs,
// `device_cpu` at its GRES units, each bench holding exactly one.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_PIPELINE_CLUSTERPLAN_H
#define RETUNE_PIPELINE_CLUSTERPLAN_H

#include "pipeline/Config.h"
#include "pipeline/NinjaWriter.h"

#include <string>

namespace retune::pipeline {

/// Depth of the `compile` pool: [cluster] cpus on Slurm when given, else
/// [tune] jobs, else this machine's cores.
unsigned compilePoolDepth(const TuneConfig &config);

/// Depth of the pool benches share: one on this machine's CPU, the GRES
/// units the allocation holds on Slurm.
unsigned benchPoolDepth(const TuneConfig &config);

/// The srun command prefix (with a trailing space) of one kind of step:
/// "compile", "bench" or "model".
std::string slurmLauncher(const TuneConfig &config, StringRef step);

/// The launcher variables of a Slurm graph; empty ones for a local graph.
void writeClusterHeader(NinjaWriter &w, const TuneConfig &config);

} // namespace retune::pipeline

#endif // RETUNE_PIPELINE_CLUSTERPLAN_H
