//===- ClusterPlan.cpp - Compile and bench steps on a Slurm cluster --------===//
#include "pipeline/ClusterPlan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Threading.h"

using namespace llvm;

namespace retune::pipeline {
namespace {

/// Whole minutes covering `seconds`, plus one for the step's start and the
/// tool's own timeout handling: the tool's limit fires first and writes a
/// `timeout` record, Slurm's only catches a step that hangs outside it.
unsigned minutesAbove(unsigned seconds) { return (seconds + 59) / 60 + 1; }

unsigned timeLimitOf(const TuneConfig &c, StringRef step) {
  const ClusterConfig &k = c.cluster;
  if (step == "compile")
    return k.compileTimeMin ? k.compileTimeMin : minutesAbove(c.compileTimeout);
  if (step == "bench")
    return k.benchTimeMin ? k.benchTimeMin : minutesAbove(c.benchTimeout);
  // The model step compiles and measures the whole model several times;
  // without a limit of its own it gets the partition's default.
  return k.modelTimeMin;
}

} // namespace

unsigned compilePoolDepth(const TuneConfig &config) {
  if (config.cluster.isSlurm() && config.cluster.cpus)
    return config.cluster.cpus;
  unsigned jobs = config.jobs ? config.jobs
                              : hardware_concurrency().compute_thread_count();
  return std::max(1u, jobs);
}

unsigned benchPoolDepth(const TuneConfig &config) {
  return config.cluster.isSlurm() ? config.cluster.devices : 1;
}

std::string slurmLauncher(const TuneConfig &config, StringRef step) {
  const ClusterConfig &k = config.cluster;
  // --quit-on-interrupt: Ninja's Ctrl-C (one SIGINT) ends the job at once;
  // plain srun would wait for a second one.
  std::vector<std::string> args = {"srun", "--quiet", "--quit-on-interrupt",
                                   "--nodes=1", "--ntasks=1",
                                   shellQuote(("--job-name=retune-" + step).str())};
  if (!k.partition.empty())
    args.push_back(shellQuote("--partition=" + k.partition));
  if (!k.account.empty())
    args.push_back(shellQuote("--account=" + k.account));
  bool measures = step != "compile";
  // A measurement holds one device and the CPUs its code runs on.
  if (measures)
    args.push_back(shellQuote("--gres=" + k.gres + ":1"));
  unsigned cpus = measures ? config.threads : 1;
  args.push_back("--cpus-per-task=" + std::to_string(cpus));
  if (unsigned minutes = timeLimitOf(config, step))
    args.push_back("--time=" + std::to_string(minutes));
  for (const std::string &flag : measures ? k.benchFlags : k.compileFlags)
    args.push_back(shellQuote(flag));
  return join(args, " ") + " ";
}

void writeClusterHeader(NinjaWriter &w, const TuneConfig &config) {
  // Written empty on one machine: every variable a rule uses is bound.
  for (StringRef step : {"compile", "bench", "model"})
    w.variable((step + "_launcher").str(), config.cluster.isSlurm()
                                               ? slurmLauncher(config, step)
                                               : "");
}

} // namespace retune::pipeline
