//===- CandidatesStage.cpp - One dispatch's space -> IREE specs -------===//
//
// One dispatch -> candidate tuning specs in IREE's format: the GPU search
// spaces (stages/gpu) for ROCm targets, the CPU knob space (stages/cpu, the
// mlir-cpu backend's) rendered as #iree_cpu.lowering_config for llvm-cpu,
// beside IREE's own config varied (IreeDefaultConfig.h).
// Also writes baseline.spec.mlir, the empty spec the baseline is
// compiled with. Every spec is verified before it is written; unchanged specs
// keep their mtime and specs beyond --count are removed.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/iree/CandidatesStage.h"

#include "stages/backends/iree/IreeConstraints.h"
#include "stages/backends/iree/IreeDefaultConfig.h"
#include "stages/backends/iree/IreeIr.h"
#include "stages/backends/iree/IreeReader.h"
#include "stages/backends/iree/IreeSpec.h"
#include "stages/core/Selection.h"
#include "stages/core/Subprocess.h"
#include "stages/search/cpu/CpuDefaults.h"
#include "stages/search/cpu/CpuSpace.h"
#include "stages/search/gpu/Candidates.h"
#include "stages/search/gpu/Ordering.h"
#include "stages/support/FileUtil.h"
#include "stages/support/HashedFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <chrono>
#include <cmath>

using namespace llvm;
using namespace retune;
using namespace retune::iree;

namespace retune::iree {

namespace {

/// A configured candidate before it becomes a spec file.
struct Planned {
  SpecEntry spec;
  json::Object config;
  double cost = 0;
};

/// IREE's llvm-cpu pipeline rejects any vector larger than this
/// ("One or more operations with large vector sizes (32768 bytes) were
/// found", measured with IREE 3.13).
constexpr int64_t kMaxVectorBytes = 32768;

/// Bytes of one element of operand `i` (f32 where the problem does not
/// say).
int64_t operandElementBytes(const Problem &problem, size_t i) {
  StringRef type = i < problem.elementTypes.size()
                       ? StringRef(problem.elementTypes[i])
                       : StringRef("f32");
  return std::max(1u, cpu::elementBits(type) / 8);
}

/// Bytes of the result tile one workgroup owns: distribution tiles, with 0
/// (not distributed) meaning the whole loop.
int64_t distributedResultBytes(const Problem &problem,
                               ArrayRef<int64_t> distribution) {
  int64_t elements = 1;
  for (auto [i, type] : enumerate(problem.iteratorTypes))
    if (type != "reduction") {
      int64_t tile = i < distribution.size() ? distribution[i] : 0;
      elements *= tile > 0 ? tile : problem.loopRanges[i];
    }
  size_t result = problem.elementTypes.empty() ? 0
                                               : problem.elementTypes.size() - 1;
  return elements * operandElementBytes(problem, result);
}

/// The CPU config as IREE's tiling levels: outer tiles distribute, the
/// reduction tiles are the cache level, register tiles split into the
/// parallel and reduction vector levels.
///
/// With a cache_reduction level, IREE 3.13 vectorises the fill and the fused
/// elementwise ops of the dispatch at the whole distribution tile; beyond
/// 32 KB that is rejected. Such configs drop the cache level (and then
/// compile, and ran 1.3-2x faster in isolation than with it).
CpuTileSizes tilesOf(const Problem &problem, const cpu::CpuConfig &config) {
  CpuTileSizes tiles;
  for (auto [i, type] : enumerate(problem.iteratorTypes)) {
    bool reduction = type == "reduction";
    auto at = [&](ArrayRef<int64_t> v) { return i < v.size() ? v[i] : 0; };
    tiles.distribution.push_back(reduction ? 0 : at(config.outerTiles));
    tiles.cacheReduction.push_back(reduction ? at(config.reductionTiles) : 0);
    tiles.vectorCommonParallel.push_back(reduction ? 0
                                                   : at(config.registerTiles));
    tiles.vectorReduction.push_back(reduction ? at(config.registerTiles) : 0);
  }
  if (distributedResultBytes(problem, tiles.distribution) > kMaxVectorBytes)
    std::fill(tiles.cacheReduction.begin(), tiles.cacheReduction.end(), 0);
  return tiles;
}

/// Data-tiled matmuls (`linalg.mmt4d`, loops M1 N1 K1 M0 N0 K0, and
/// `linalg.batch_mmt4d`, the same behind a batch loop B): IREE picks the
/// inner tiles (M0 N0 K0) for the target's registers and runs them with
/// Mmt4dTilingExpert; what is left to tune is how many outer tiles a
/// workgroup takes (distribution of M1 and N1; one batch at a time, as
/// IREE's own config). Configs of the DoubleTilingExpert space ran 30-67x
/// slower on mmt4d and 14-26x on MiniLM's batch_mmt4d (measured, IREE 3.13).
bool isDataTiledMatmul(const Problem &problem) {
  return (problem.opName == "linalg.mmt4d" &&
          problem.loopRanges.size() == 6) ||
         (problem.opName == "linalg.batch_mmt4d" &&
          problem.loopRanges.size() == 7);
}

/// The dispatch as iree-compile configures it (IREE's own lowering config
/// and translation_info on every op), written to `configured`.
Expected<std::string> configureDispatch(const CandidatesOptions &options,
                                        ProcessRunner &runner,
                                        const std::string &configured) {
  Expected<IreeTools> ireeTools =
      toolsFrom(options.iree, options.outputDir, runner);
  if (!ireeTools)
    return ireeTools.takeError();
  std::string log = options.outputDir + "/iree-config.log";
  ChildOutcome outcome =
      ireeTools->runTool(ireeTools->compile,
                         {options.dispatchPath,
                          "--compile-to=executable-configurations", "-o",
                          configured},
                         /*timeoutSeconds=*/300, 0, log);
  if (outcome.status != Status::Ok)
    return makeError("iree-compile --compile-to=executable-configurations failed (" +
                     outcome.message + "; log: " + log + ")");
  return readFile(configured);
}

/// How many times a workgroup grid of `m1` x `n1` outer tiles streams the
/// data-tiled RHS (N1 K1 N0 K0) from memory. IREE numbers workgroups with
/// N1 fastest, so every row of M1 tiles sweeps the whole RHS: when it does
/// not fit in the last-level cache it comes from memory ceil(M1 / m1)
/// times. The LHS tile of a row is reused across the sweep. Measured on the
/// ViT's decoder (IREE 3.13, 1 thread, inputs in written memory): mmt4d
/// 8x2048x2048 (134 MB RHS) 105-145 ms with IREE's [1, 2] and 63-84 ms with
/// [8, 2]; 16x512x4096 (67 MB) 117 ms with [1, 1], 70-76 ms with [16, 1] or
/// [16, 2].
double rhsSweeps(ArrayRef<int64_t> r, int64_t m1, int64_t elementBytes,
                 int64_t cacheBytes) {
  int64_t rhsBytes = r[1] * r[2] * r[4] * r[5] * elementBytes;
  if (rhsBytes <= cacheBytes)
    return 1;
  return double(llvm::divideCeil(r[0], m1));
}

/// Bytes of both operands a workgroup grid of `m1` x `n1` outer tiles of a
/// data-tiled matmul (loops M1 N1 K1 M0 N0 K0) brings into a core's L2.
/// Workgroups run N1 fastest, and inside one the M1 tiles outermost: a
/// row of workgroups sweeps the whole RHS, which comes again for every row
/// unless it fits in the L2 beside a row's LHS; a workgroup's LHS rows, with
/// the RHS panels it pairs them with, stay there across the sweep when they
/// fit. On the Intel AVX-512 machine (2 MB of L2; IREE 3.13, microkernels,
/// 1 thread, dispatch benchmark, written inputs): the MLP's mmt4d 16x64x1024 ran
/// 3.93 ms with IREE's [1, 2], which streams its 4 MB RHS sixteen times,
/// and 3.53-3.56 ms with [16, 1] or [16, 2], which stream it once; in the
/// model, both mmt4d so, 11.9 -> 11.0 ms at 1 thread, 7.45 -> 6.52 ms at
/// two (docs/iree-backend.md).
int64_t bytesIntoL2(ArrayRef<int64_t> r, int64_t m1, int64_t n1,
                    int64_t lhsElementBytes, int64_t rhsElementBytes,
                    int64_t l2Bytes) {
  int64_t panel = r[2] * r[4] * r[5] * rhsElementBytes;
  int64_t rhs = r[1] * panel;
  int64_t lhsRow = r[2] * r[3] * r[5] * lhsElementBytes;
  // Inside a workgroup each of its M1 tiles sweeps its N1 panels.
  int64_t rhsReads = rhs + m1 * lhsRow <= l2Bytes
                         ? 1
                         : llvm::divideCeil(r[0], m1) *
                               (n1 * panel + lhsRow <= l2Bytes ? 1 : m1);
  int64_t lhsReads =
      m1 * lhsRow + n1 * panel <= l2Bytes ? 1 : llvm::divideCeil(r[1], n1);
  return rhs * rhsReads + r[0] * lhsRow * lhsReads;
}

/// `planned` (in cost order) cut to `count`, the last place going to the
/// grid that brings the fewest bytes into the L2 (bytesIntoL2; the cheapest
/// of those, among grids that keep `workers` busy enough) where none of the
/// first does: the cost order stays near IREE's own workgroups, which on
/// the Zen 4 ran faster than workgroups of whole M1 rows on the ViT's mmt4d
/// 33x192x384, and on the Intel machine a grid that streams the RHS once
/// ran 0.90x IREE's time (above).
void keepFewestBytesIntoL2(std::vector<Planned> &planned, size_t count,
                           unsigned workers) {
  if (planned.size() <= count || count == 0)
    return;
  auto bytes = [](const Planned &p) {
    return p.config.getInteger("bytes_into_l2").value_or(0);
  };
  auto busy = [&](const Planned &p) {
    return workers <= 1 ||
           workerBalance(p.config.getInteger("workgroups").value_or(1),
                         workers) >= kBusyEnough;
  };
  auto fewest = planned.end();
  for (auto it = planned.begin(); it != planned.end(); ++it)
    if (busy(*it) && (fewest == planned.end() || bytes(*it) < bytes(*fewest)))
      fewest = it;
  bool kept = fewest == planned.end() ||
              llvm::any_of(ArrayRef<Planned>(planned).take_front(count),
                           [&](const Planned &p) {
                             return bytes(p) <= bytes(*fewest);
                           });
  if (!kept)
    std::swap(planned[count - 1], *fewest);
  planned.resize(count);
}

/// IREE's own workgroup tile of M1 and N1 for a data-tiled matmul, from its
/// configuring compile; none when that fails (a note says why).
std::optional<std::pair<int64_t, int64_t>>
ireeOuterTiles(const CandidatesOptions &options, ProcessRunner &runner,
               const Problem &problem) {
  bool batched = problem.loopRanges.size() == 7;
  std::string configured = options.outputDir + "/iree-config.mlir";
  Expected<std::string> text = configureDispatch(options, runner, configured);
  Expected<IreeRootConfig> config =
      text ? readRootConfig(*text, configured)
           : Expected<IreeRootConfig>(text.takeError());
  if (!config || config->distribution.size() != problem.loopRanges.size()) {
    errs() << "retune-iree-candidates: note: workgroups of about eight outer "
              "tiles first: IREE's own cannot be read: "
           << (config ? "its distribution has another rank"
                      : toString(config.takeError()))
           << "\n";
    return std::nullopt;
  }
  auto whole = [&](size_t loop) {
    int64_t tile = config->distribution[loop];
    return tile > 0 ? tile : problem.loopRanges[loop];
  };
  return std::make_pair(whole(batched), whole(batched + 1));
}

std::vector<Planned> mmt4dCandidates(const CandidatesOptions &options,
                                     ProcessRunner &runner,
                                     const Problem &problem,
                                     const IreeSyntax &syntax,
                                     const cpu::CpuHost &host,
                                     unsigned workers, uint64_t &total) {
  bool batched = problem.loopRanges.size() == 7;
  int64_t lhsElementBytes = operandElementBytes(problem, 0);
  int64_t rhsElementBytes = operandElementBytes(problem, 1);
  // M1 N1 K1 M0 N0 K0, after the batch loop when there is one.
  ArrayRef<int64_t> r = ArrayRef<int64_t>(problem.loopRanges).drop_front(batched);
  auto divisors = [](int64_t n) {
    SmallVector<int64_t> d;
    for (int64_t k = 1; k <= n && k <= 64; ++k)
      if (n % k == 0)
        d.push_back(k);
    return d;
  };
  auto withBatch = [&](SmallVector<int64_t> tiles, int64_t batchTile) {
    if (batched)
      tiles.insert(tiles.begin(), batchTile);
    return tiles;
  };
  std::optional<std::pair<int64_t, int64_t>> own =
      ireeOuterTiles(options, runner, problem);
  // What IREE's own grid brings into the L2, beside each candidate's: the
  // model step tries a grid that brings far fewer in the model even where
  // it did not win alone (readInModelOptions).
  std::optional<int64_t> ownBytes;
  if (own)
    ownBytes = bytesIntoL2(r, own->first, own->second, lhsElementBytes,
                           rhsElementBytes, host.l2Bytes);
  std::vector<Planned> planned;
  for (int64_t m1 : divisors(r[0]))
    for (int64_t n1 : divisors(r[1])) {
      if (own && own->first == m1 && own->second == n1)
        continue; // IREE's own config is the baseline
      CpuTileSizes tiles;
      tiles.distribution = withBatch({m1, n1, 0, 0, 0, 0}, 1);
      tiles.vectorCommonParallel = withBatch({1, 1, 0, r[3], r[4], 0}, 1);
      tiles.vectorReduction = withBatch({0, 0, 1, 0, 0, r[5]}, 0);
      // Heuristic order: near IREE's own workgroups (on the ViT's mmt4d
      // 33x192x384 every candidate of about eight outer tiles, [11, 1] to
      // [33, 2], ran 1.25-1.40x IREE's [11, 8]; without IREE's, workgroups
      // of about eight outer tiles), and an RHS beyond the last-level cache
      // streamed as few times as the tiles allow.
      double distance =
          own ? std::abs(std::log2(double(m1) / double(own->first))) +
                    std::abs(std::log2(double(n1) / double(own->second)))
              : std::abs(std::log2(double(m1 * n1)) - 3.0) +
                    0.1 * std::abs(std::log2(double(m1) / double(n1)));
      // On several workers, workgroups that leave some idle come later: a
      // quarter of the workers' time idle weighs as much as tiles 3.3
      // doublings from IREE's (on the CRNN's mmt4d 2x25x4096, 2 workers,
      // IREE's [1, 1]: [2, 1] ran 1.35x its time, [1, 25] 1.02x).
      int64_t workgroups = workgroupCount(problem, tiles.distribution);
      double cost =
          distance +
          2 * std::log2(rhsSweeps(r, m1, rhsElementBytes, host.l3Bytes)) -
          8 * std::log2(workerBalance(workgroups, workers));
      json::Object config{{"pipeline", "Mmt4dTilingExpert"},
                          {"distribution_m1", m1},
                          {"distribution_n1", n1},
                          {"workgroups", workgroups},
                          {"bytes_into_l2",
                           bytesIntoL2(r, m1, n1, lhsElementBytes,
                                       rhsElementBytes, host.l2Bytes)}};
      if (ownBytes)
        config["iree_bytes_into_l2"] = *ownBytes;
      planned.push_back(
          {SpecEntry{problem,
                     cpuCompilationInfo(
                         tiles, syntax.pipeline("cpu", "Mmt4dTilingExpert")),
                     ""},
           std::move(config), cost});
    }
  total = planned.size();
  llvm::stable_sort(planned, [](const Planned &a, const Planned &b) {
    return a.cost < b.cost;
  });
  keepFewestBytesIntoL2(planned, options.candidateCount, workers);
  return planned;
}

/// What IREE says of a GPU dispatch: its own config and, where it emits
/// them (`--iree-codegen-emit-pipeline-constraints`, IreeConstraints.h), the
/// configs its pipelines accept. One configuring compile gives both; where
/// emitting them fails (3.13 crashes on a batch matmul), a plain one gives
/// the config and Retune's own space stands alone.
struct IreeView {
  std::optional<gpu::CompilerChoice> choice;
  std::vector<IreeConstraintSystem> constraints;
};

void note(const Twine &text) { errs() << "retune-iree-candidates: note: " << text << "\n"; }

std::vector<IreeConstraintSystem>
readConstraints(const CandidatesOptions &options, const IreeTools &tools,
                const std::string &configured) {
  std::string generic = options.outputDir + "/iree-constraints.generic.mlir";
  std::string log = options.outputDir + "/iree-constraints.log";
  ChildOutcome printed =
      tools.runTool(tools.opt,
                    {configured, "--mlir-print-op-generic", "-o", generic},
                    /*timeoutSeconds=*/300, 0, log);
  Expected<std::string> text = printed.status == Status::Ok
                                   ? readFile(generic)
                                   : Expected<std::string>(makeError(
                                         "iree-opt --mlir-print-op-generic failed (" +
                                         printed.message + "; log: " + log + ")"));
  Expected<std::vector<IreeConstraintSystem>> systems =
      text ? readIreeConstraints(*text, generic)
           : Expected<std::vector<IreeConstraintSystem>>(text.takeError());
  if (!systems) {
    note("Retune's own space alone; IREE's constraints: " + toString(systems.takeError()));
    return {};
  }
  return std::move(*systems);
}

/// Constraints that refuse the config IREE itself picked (and compiles) for
/// the dispatch disagree with the compiler; they are dropped with a note.
/// 3.13 says `prefetch_num_stages == 0 (use_igemm_convolution=true)` and
/// picks an IGEMM convolution with 2 stages.
void dropInconsistent(IreeView &view) {
  if (!view.choice)
    return;
  IreeConstrainedConfig own = constrainedConfigOf(*view.choice);
  llvm::erase_if(view.constraints, [&](const IreeConstraintSystem &system) {
    if (system.pipeline != view.choice->pipeline)
      return false;
    std::optional<StringMap<int64_t>> values = knobValuesOf(system, own);
    if (!values || fillKnobs(system, *values).workgroup.size() != own.workgroup.size())
      return false;
    Expected<bool> admitted = admits(system, *values);
    if (admitted && *admitted)
      return false;
    if (!admitted)
      consumeError(admitted.takeError());
    note("IREE's " + system.pipeline + " constraints for " + Twine(own.workgroup.size()) +
         " loops refuse IREE's own config for this dispatch; Retune's own space stands "
         "alone there");
    return true;
  });
}

IreeView viewOfDispatch(const CandidatesOptions &options,
                        ProcessRunner &runner) {
  IreeView view;
  Expected<IreeTools> ireeTools =
      toolsFrom(options.iree, options.outputDir, runner);
  if (!ireeTools) {
    note("IREE's own config and constraints unknown: " + toString(ireeTools.takeError()));
    return view;
  }
  std::string configured = options.outputDir + "/iree-constraints.mlir";
  std::string log = options.outputDir + "/iree-constraints.log";
  ChildOutcome emitted = ireeTools->runTool(
      ireeTools->compile,
      {options.dispatchPath, "--iree-codegen-emit-pipeline-constraints",
       "--compile-to=executable-configurations", "-o", configured},
      /*timeoutSeconds=*/300, 0, log);
  auto configuredText = [&]() -> Expected<std::string> {
    if (emitted.status == Status::Ok) {
      view.constraints = readConstraints(options, *ireeTools, configured);
      return readFile(configured);
    }
    note("Retune's own space alone; iree-compile --iree-codegen-emit-pipeline-constraints "
         "failed (" + emitted.message + "; log: " + log + ")");
    configured = options.outputDir + "/iree-config.mlir";
    return configureDispatch(options, runner, configured);
  };
  Expected<std::string> text = configuredText();
  Expected<gpu::CompilerChoice> choice =
      text ? readGpuCompilerChoice(*text, configured)
           : Expected<gpu::CompilerChoice>(text.takeError());
  if (choice)
    view.choice = std::move(*choice);
  else
    note("IREE's own config is unknown (the NVIDIA ordering falls back to the reference "
         "heuristic): " + toString(choice.takeError()));
  dropInconsistent(view);
  return view;
}

/// Whether IREE's constraints for the candidate's pipeline and loops accept
/// it; nullopt when IREE stated none for them.
std::optional<bool> ireeAdmits(ArrayRef<IreeConstraintSystem> systems,
                               const gpu::Candidate &candidate) {
  const gpu::GpuConfig &g = candidate.config;
  IreeConstrainedConfig config = constrainedConfigOf(candidate);
  for (const IreeConstraintSystem &system : systems) {
    if (system.pipeline != gpu::toString(g.pipeline))
      continue;
    std::optional<StringMap<int64_t>> values = knobValuesOf(system, config);
    if (!values || fillKnobs(system, *values).workgroup.size() != g.workgroup.size())
      continue;
    Expected<bool> admitted = admits(system, *values);
    if (!admitted) {
      consumeError(admitted.takeError());
      return std::nullopt;
    }
    return *admitted;
  }
  return std::nullopt;
}

/// Dispatches outside the CPU knob space: IREE's own config for the root
/// op, read from iree-compile at the executable-configurations phase, with
/// its workgroup tiles varied (IreeDefaultConfig.h). `outside` says why the
/// space does not cover it; it stays in the note when this fails too.
Expected<std::vector<Planned>>
ireeConfigCandidates(const CandidatesOptions &options, ProcessRunner &runner,
                     const Problem &problem, StringRef outside,
                     unsigned workers, uint64_t &total) {
  auto fail = [&](const Twine &why) {
    return makeError(outside +
                     "; and IREE's own config cannot be varied: " + why);
  };
  std::string configured = options.outputDir + "/iree-config.mlir";
  Expected<std::string> text = configureDispatch(options, runner, configured);
  if (!text)
    return fail(toString(text.takeError()));
  Expected<IreeRootConfig> config = readRootConfig(*text, configured);
  if (!config)
    return fail(toString(config.takeError()));
  std::vector<DistributionVariant> variants =
      distributionVariants(*config, problem, std::numeric_limits<unsigned>::max(),
                           kMaxVectorBytes, workers);
  total = variants.size();
  if (variants.empty())
    return fail("no other workgroup tile fits (IREE's: " +
                join(map_range(config->distribution,
                               [](int64_t v) { return std::to_string(v); }),
                     "x") +
                ")");
  std::vector<Planned> planned;
  for (const DistributionVariant &v : variants) {
    if (planned.size() == options.candidateCount)
      break;
    json::Object described{{"pipeline", "IREE's own config"},
                           {"translation_info", config->translationInfo},
                           {"distribution", json::Array(v.distribution)},
                           {"workgroups", workgroupCount(problem, v.distribution)}};
    if (!v.vectorParallel.empty())
      described["vector_common_parallel"] = json::Array(v.vectorParallel);
    if (v.peel)
      described["enable_loop_peeling"] = true;
    planned.push_back({SpecEntry{problem, compilationInfoWith(*config, v), ""},
                       std::move(described), v.cost});
  }
  return planned;
}

/// Whether IREE lowers the CPU space's config well: a contraction's
/// (DoubleTilingExpert's) register tiles must be powers of two, IREE 3.13's
/// llvm-cpu lowering runs others many times slower. On
/// MiniLM's batch matmul 128x1536x384 (1 thread, this Zen 4, workgroups [0,
/// 64, 768, 0]) [1, 8, 32] ran 1.8 ms, [1, 8, 64] and [1, 16, 32] 1.5 ms,
/// [1, 6, 64] 2.6 ms, [1, 12, 32] 5.9 ms, [1, 8, 48], [1, 4, 48] and [1, 4,
/// 96] 28-32 ms; the CPU space's cost model ranked [1, 8, 48] first. (A
/// convolution's output-width tile of 10 or 15 ran well: the rule is not
/// theirs.)
bool lowersWell(const Problem &problem, const CpuTileSizes &tiles) {
  return problem.kind != OpKind::Contraction ||
         llvm::all_of(tiles.vectorCommonParallel, [](int64_t tile) {
           return tile == 0 || llvm::isPowerOf2_64(tile);
         });
}

/// `first` and `second` taken in turn, at most `count`: two spaces, each
/// best first, share the candidates.
std::vector<Planned> alternate(std::vector<Planned> first,
                               std::vector<Planned> second, size_t count) {
  std::vector<Planned> out;
  for (size_t i = 0; out.size() < count &&
                     (i < first.size() || i < second.size());
       ++i)
    for (std::vector<Planned> *from : {&first, &second})
      if (i < from->size() && out.size() < count)
        out.push_back(std::move((*from)[i]));
  return out;
}

/// The CPU space's configs in the order to try them on `workers` workers:
/// the space's cost (one thread's time) over the fraction of the workers
/// its workgroups keep busy (workerBalance). The space's outer tiles are
/// IREE's workgroups, and a config with fewer of them than workers, or a
/// count that does not divide, leaves workers idle: on MiniLM's batch
/// matmul 128x1536x384 at 2 workers (IREE 3.13, this Zen 4) the space's
/// cheapest config, one workgroup, ran 1.61x IREE's time, one of three
/// workgroups 1.18x, one of four 0.94x.
std::vector<cpu::RankedConfig>
balancedOrder(const Problem &problem, std::vector<cpu::RankedConfig> ranked,
              unsigned workers) {
  if (workers <= 1)
    return ranked;
  for (cpu::RankedConfig &r : ranked)
    r.cost /= workerBalance(
        workgroupCount(problem, tilesOf(problem, r.config).distribution),
        workers);
  llvm::stable_sort(ranked, [](const cpu::RankedConfig &a,
                               const cpu::RankedConfig &b) {
    return a.cost < b.cost;
  });
  return ranked;
}

/// The first `count` of the CPU space's configs (`ranked`, cheapest first)
/// on `workers` workers, as IREE lowering configs.
std::vector<Planned> spaceCandidates(const Problem &problem,
                                     std::vector<cpu::RankedConfig> ranked,
                                     const IreeSyntax &syntax, unsigned workers,
                                     size_t count) {
  std::string pipeline = syntax.pipeline(
      "cpu", problem.kind == OpKind::Convolution ? "ConvTileAndDecomposeExpert"
                                                 : "DoubleTilingExpert");
  std::vector<Planned> planned;
  // Configs that differ only in knobs IREE's lowering config cannot express
  // (k_unroll, packing) render to the same spec: one candidate each.
  StringSet<> rendered;
  for (const cpu::RankedConfig &r :
       balancedOrder(problem, std::move(ranked), workers)) {
    if (planned.size() == count)
      break;
    CpuTileSizes tiles = tilesOf(problem, r.config);
    if (!lowersWell(problem, tiles))
      continue;
    std::string info = cpuCompilationInfo(tiles, pipeline);
    if (!rendered.insert(info).second)
      continue;
    json::Object described = cpu::toJson(r.config);
    described["workgroups"] = workgroupCount(problem, tiles.distribution);
    planned.push_back({SpecEntry{problem, info, ""}, std::move(described),
                       r.cost});
  }
  return planned;
}

/// A llvm-cpu dispatch's candidates: data-tiled matmuls their own tiles;
/// contractions and convolutions the CPU space's configs in turn with
/// IREE's own config varied (each space's best first: on MiniLM's batch
/// matmuls at 2 workers, default flags, the best of each ran 0.885x and
/// 0.914x, 0.708x and 0.697x, 0.944x and 0.949x IREE's time); others IREE's
/// own config varied alone.
Expected<std::vector<Planned>> cpuCandidates(const CandidatesOptions &options,
                                             ProcessRunner &runner,
                                             const Problem &problem,
                                             const IreeTarget &target,
                                             const IreeSyntax &syntax,
                                             uint64_t &total) {
  // The workers every bench of the dispatch runs on ([tune] threads).
  unsigned workers = std::max(1u, deviceWorkers(options.iree.deviceFlags));
  if (isDataTiledMatmul(problem))
    return mmt4dCandidates(options, runner, problem, syntax, target.cpuHost(),
                           workers, total);
  // A transpose, copy or broadcast: nothing for the contraction space to
  // tile, but IREE's register tile matters (IreeDefaultConfig.h).
  if (problem.kind == OpKind::Elementwise)
    return ireeConfigCandidates(options, runner, problem,
                                "the CPU space tiles contractions and "
                                "convolutions, not data movement",
                                workers, total);
  Expected<cpu::CpuSpaceResult> space =
      cpu::enumerateCpuSpace(problem, target.cpuHost(), {});
  if (!space)
    return ireeConfigCandidates(options, runner, problem,
                                toString(space.takeError()), workers, total);
  total = space->totalSolutions;
  std::vector<Planned> planned =
      spaceCandidates(problem, std::move(space->ranked), syntax, workers,
                      options.candidateCount);
  uint64_t nearTotal = 0;
  Expected<std::vector<Planned>> near =
      ireeConfigCandidates(options, runner, problem,
                           "the CPU space's configs alone", workers, nearTotal);
  if (!near) {
    note(toString(near.takeError()));
    return planned;
  }
  total += nearTotal;
  return alternate(std::move(planned), std::move(*near), options.candidateCount);
}

Expected<std::vector<Planned>> gpuCandidates(const CandidatesOptions &options,
                                             ProcessRunner &runner,
                                             const Problem &problem,
                                             StringRef dispatchText,
                                             const IreeSyntax &syntax,
                                             uint64_t &total) {
  std::string optionsText;
  if (!options.gpuOptionsPath.empty()) {
    Expected<std::string> text = readFile(options.gpuOptionsPath);
    if (!text)
      return text.takeError();
    optionsText = std::move(*text);
  }
  Expected<gpu::GpuSearchOptions> search =
      gpu::parseGpuOptionsText(optionsText, options.gpuOptionsPath);
  if (!search)
    return search.takeError();
  Expected<gpu::GpuTarget> target =
      gpu::resolveTarget(dispatchText, problem.target);
  if (!target)
    return target.takeError();
  IreeView iree = viewOfDispatch(options, runner);
  Expected<gpu::CandidateSet> set = gpu::generateCandidates(
      problem, *target, *search, iree.choice ? &*iree.choice : nullptr);
  if (!set)
    return set.takeError();
  total = set->configurations;
  const std::vector<IreeConstraintSystem> &constraints = iree.constraints;
  std::vector<Planned> planned;
  size_t refused = 0;
  for (auto [n, c] : enumerate(set->candidates)) {
    if (planned.size() == options.candidateCount)
      break;
    // IREE's constraints are the authority where it states them: a config
    // they refuse is not emitted (IreeConstraints.h; docs/gpu-search.md).
    std::optional<bool> admitted = ireeAdmits(constraints, c);
    if (admitted == false) {
      ++refused;
      continue;
    }
    std::string info = syntax.respell(c.compilationInfo);
    planned.push_back(
        {SpecEntry{problem, info, "", c.decompositionConfig},
         json::Object{{"pipeline", gpu::toString(c.config.pipeline)},
                      {"compilation_info", info},
                      {"iree_constraints", admitted ? "admitted" : "none stated"}},
         static_cast<double>(n)});
  }
  if (refused)
    errs() << "retune-iree-candidates: note: IREE's own constraints refused " << refused
           << " of Retune's configurations; the next ones in order took their place\n";
  return planned;
}

Expected<std::vector<Planned>> planCandidates(const CandidatesOptions &options,
                                              ProcessRunner &runner,
                                              const Problem &problem,
                                              uint64_t &total) {
  Expected<IreeSyntax> syntax = syntaxFrom(options.iree);
  if (!syntax)
    return syntax.takeError();
  Expected<std::string> text = readFile(options.dispatchPath);
  if (!text)
    return text.takeError();
  // The file's root op is no longer marked: only its target is read here.
  Expected<std::vector<IreeTarget>> targets =
      readIreeTargets(*text, options.dispatchPath,
                      IreeIrLibrary::forTool(options.iree.compile));
  if (!targets)
    return targets.takeError();
  if (targets->empty())
    return makeError(options.dispatchPath +
                     ": no #hal.executable.target; re-run "
                     "the dump");
  if (targets->front().isGpu())
    return gpuCandidates(options, runner, problem, *text, *syntax, total);
  return cpuCandidates(options, runner, problem, targets->front(), *syntax,
                       total);
}

Error run(const CandidatesOptions &options, ProcessRunner &runner) {
  if (isDamagedInput(options.problemPath, "retune-iree-candidates") ||
      isDamagedInput(options.dispatchPath, "retune-iree-candidates"))
    return Error::success();
  Expected<DispatchEntry> dispatch = readDispatchProblem(options.problemPath);
  if (!dispatch)
    return dispatch.takeError();
  const DispatchEntry &entry = *dispatch;
  // IREE's own verifier where its library is installed (IreeIr.h).
  const IreeIrLibrary *iree = IreeIrLibrary::forTool(options.iree.compile);
  if (Error err = writeTuningSpec(options.outputDir + "/baseline.spec.mlir",
                                  emitEmptySpec(), iree))
    return err;
  CandidateIndex index;
  index.dispatch = entry.id;
  index.startedAt = unixSeconds();
  std::vector<Planned> planned;
  Expected<bool> kept =
      options.skipReason.empty()
          ? select::keepVerifiedWinner(options.verifiedPath, options.outputDir,
                                       index)
          : false;
  if (!kept)
    return kept.takeError();
  if (*kept) {
    removeNumberedFiles(options.outputDir, ".spec.mlir", 1);
    return writeHashedJsonFile(options.outputDir + "/index.json", toJson(index));
  }
  if (!options.skipReason.empty()) {
    index.note = options.skipReason;
  } else {
    auto start = std::chrono::steady_clock::now();
    Expected<std::vector<Planned>> found =
        planCandidates(options, runner, entry.problem, index.totalSolutions);
    index.enumerationSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    // Outside every search space: the dispatch keeps IREE's default and the
    // report says why.
    if (!found)
      index.note = toString(found.takeError());
    else
      planned = std::move(*found);
  }
  unsigned rejected = 0;
  for (Planned &p : planned) {
    unsigned n = index.candidates.size();
    std::string file = formatv("{0}.spec.mlir", n).str();
    // A candidate IREE refuses is data: it is noted and left out.
    if (Error err = writeTuningSpec(options.outputDir + "/" + file,
                                    emitTuningSpec({p.spec}), iree)) {
      errs() << "retune-iree-candidates: note: " << entry.id
             << ": a candidate IREE refuses is left out: "
             << toString(std::move(err)) << "\n";
      ++rejected;
      continue;
    }
    index.candidates.push_back(
        CandidateEntry{n, file, std::move(p.config), p.cost});
  }
  if (rejected)
    index.note += formatv("{0}{1} candidate(s) refused by IREE's verifier",
                          index.note.empty() ? "" : "; ", rejected)
                      .str();
  removeNumberedFiles(options.outputDir, ".spec.mlir", index.candidates.size());
  return writeHashedJsonFile(options.outputDir + "/index.json", toJson(index));
}

} // namespace

Error runCandidatesStage(const CandidatesOptions &options,
                         ProcessRunner &runner) {
  return run(options, runner);
}

} // namespace retune::iree
