//===- Corpus.cpp - Measured candidates from tunes, and trials ------------===//
#include "stages/search/ranker/Corpus.h"

#include "stages/core/Records.h"
#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

using namespace llvm;

namespace retune::ranker {

/// The candidates of one dispatch in `buildDir`, cheapest estimate first;
/// empty when it has none or they are not CPU configurations (an iree
/// dispatch outside the CPU space).
static Expected<std::vector<MeasuredCandidate>>
readCandidates(StringRef buildDir, StringRef id) {
  std::string dir = (buildDir + "/candidates/" + id).str();
  std::vector<MeasuredCandidate> out;
  if (!sys::fs::exists(dir + "/index.json"))
    return out;
  Expected<CandidateIndex> index = readRecord<CandidateIndex>(
      dir + "/index.json", schema::kCandidates, candidateIndexFromJson);
  if (!index)
    return index.takeError();
  std::vector<CandidateEntry> entries = index->candidates;
  llvm::stable_sort(entries,
                    [](const CandidateEntry &a, const CandidateEntry &b) {
                      return a.cost < b.cost;
                    });
  for (const CandidateEntry &entry : entries) {
    Expected<cpu::CpuConfig> config = cpu::cpuConfigFromJson(entry.config);
    if (!config) {
      consumeError(config.takeError());
      return std::vector<MeasuredCandidate>();
    }
    MeasuredCandidate candidate{*config, std::nullopt};
    std::string result =
        formatv("{0}/results/{1}/{2}.json", buildDir, id, entry.index).str();
    if (sys::fs::exists(result)) {
      Expected<BenchRecord> bench = readBenchRecord(result);
      if (!bench)
        return bench.takeError();
      if (bench->status == Status::Ok && bench->ratio > 0)
        candidate.time = bench->ratio;
    }
    out.push_back(std::move(candidate));
  }
  return out;
}

Error readTuneBuild(StringRef buildDir, std::vector<MeasuredDispatch> &into) {
  Expected<DispatchIndex> index =
      readRecord<DispatchIndex>((buildDir + "/dispatches/index.json").str(),
                                schema::kDispatches, dispatchIndexFromJson);
  if (!index)
    return index.takeError();
  std::set<std::string> known;
  for (const MeasuredDispatch &d : into)
    known.insert(d.id);
  for (const DispatchEntry &entry : index->dispatches) {
    if (known.count(entry.id))
      continue;
    Expected<std::vector<MeasuredCandidate>> candidates =
        readCandidates(buildDir, entry.id);
    if (!candidates)
      return candidates.takeError();
    if (candidates->empty())
      continue;
    known.insert(entry.id);
    into.push_back({entry.id, entry.problem, std::move(*candidates)});
  }
  return Error::success();
}

/// The best measured time of `d`, if any.
static std::optional<double> bestTime(const MeasuredDispatch &d) {
  std::optional<double> best;
  for (const MeasuredCandidate &c : d.candidates)
    if (c.time && (!best || *c.time < *best))
      best = c.time;
  return best;
}

static bool nearBest(const MeasuredCandidate &c, double best, double within) {
  return c.time && *c.time <= best * (1 + within);
}

unsigned trialsToNearBest(const MeasuredDispatch &d, ArrayRef<size_t> order,
                          double within) {
  std::optional<double> best = bestTime(d);
  if (!best)
    return 0;
  for (auto [trial, n] : llvm::enumerate(order))
    if (nearBest(d.candidates[n], *best, within))
      return trial + 1;
  return 0;
}

double randomTrialsToNearBest(const MeasuredDispatch &d, double within) {
  std::optional<double> best = bestTime(d);
  if (!best)
    return 0;
  double good = llvm::count_if(d.candidates, [&](const MeasuredCandidate &c) {
    return nearBest(c, *best, within);
  });
  return (d.candidates.size() + 1) / (good + 1);
}

/// The row of `corpus[held]`, ordered by a model of every other dispatch.
static Expected<DispatchTrials> evaluateOne(ArrayRef<MeasuredDispatch> corpus,
                                            size_t held,
                                            const cpu::CpuHost &host,
                                            double within) {
  const MeasuredDispatch &d = corpus[held];
  std::vector<MeasuredDispatch> others;
  for (size_t i = 0; i < corpus.size(); ++i)
    if (i != held)
      others.push_back(corpus[i]);
  Expected<RankerModel> model = trainRanker(others, host);
  if (!model)
    return model.takeError();
  std::vector<cpu::CpuConfig> configs;
  for (const MeasuredCandidate &c : d.candidates)
    configs.push_back(c.config);
  Expected<RankedOrder> learned =
      rankConfigs(&*model, d.problem, host, configs);
  if (!learned)
    return learned.takeError();
  std::vector<size_t> heuristic(configs.size());
  std::iota(heuristic.begin(), heuristic.end(), 0);
  std::optional<double> best = bestTime(d);
  DispatchTrials row;
  row.id = d.id;
  row.name = d.problem.readableName();
  row.candidates = d.candidates.size();
  row.nearBest = llvm::count_if(d.candidates, [&](const MeasuredCandidate &c) {
    return nearBest(c, *best, within);
  });
  row.random = randomTrialsToNearBest(d, within);
  row.heuristic = trialsToNearBest(d, heuristic, within);
  row.learned = trialsToNearBest(d, learned->permutation, within);
  row.order = learned->order;
  row.why = learned->why;
  return row;
}

Expected<std::vector<DispatchTrials>>
evaluateLeaveOneOut(ArrayRef<MeasuredDispatch> corpus, const cpu::CpuHost &host,
                    double within) {
  std::vector<DispatchTrials> rows;
  for (size_t held = 0; held < corpus.size(); ++held) {
    if (!bestTime(corpus[held]))
      continue;
    Expected<DispatchTrials> row = evaluateOne(corpus, held, host, within);
    if (!row)
      return row.takeError();
    rows.push_back(std::move(*row));
  }
  return rows;
}

static double geomean(ArrayRef<double> values) {
  double logs = 0;
  for (double v : values)
    logs += std::log(v);
  return values.empty() ? 0 : std::exp(logs / values.size());
}

void printTrials(ArrayRef<DispatchTrials> rows, raw_ostream &os) {
  os << formatv("{0,-44} {1,5} {2,5} {3,7} {4,9} {5,7}  {6}\n", "dispatch",
                "cands", "near", "random", "heuristic", "learned", "order");
  std::vector<double> random, heuristic, learned;
  for (const DispatchTrials &r : rows) {
    os << formatv("{0,-44} {1,5} {2,5} {3,7:f2} {4,9} {5,7}  {6}\n", r.name,
                  r.candidates, r.nearBest, r.random, r.heuristic, r.learned,
                  r.order == "learned" ? r.order
                                       : r.order + " (" + r.why + ")");
    random.push_back(r.random);
    heuristic.push_back(r.heuristic);
    learned.push_back(r.learned);
  }
  os << formatv("trials to 5% of best (geomean): random {0:f2}, heuristic "
                "{1:f2}, learned {2:f2}\n",
                geomean(random), geomean(heuristic), geomean(learned));
}

} // namespace retune::ranker
