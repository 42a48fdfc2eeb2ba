//===- Candidates.cpp - Enumeration, knob product and attribute text ------===//
#include "stages/search/gpu/Candidates.h"

#include "stages/search/gpu/Ordering.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <chrono>

namespace retune::gpu {

StringRef toString(Pipeline pipeline) {
  return pipeline == Pipeline::VectorDistribute ? "VectorDistribute" : "TileAndFuse";
}

Expected<std::vector<GpuConfig>> enumerateConfigs(const Problem &problem,
                                                  const GpuTarget &target, Pipeline pipeline,
                                                  const GpuSearchOptions &options,
                                                  std::vector<SpaceStats> *stats) {
  Expected<std::vector<Space>> spaces = buildSpaces(problem, target, pipeline, options);
  if (!spaces)
    return spaces.takeError();
  std::vector<GpuConfig> configs;
  for (const Space &space : *spaces) {
    auto start = std::chrono::steady_clock::now();
    auto solutions = solveAll(space.model, options.engine);
    if (!solutions)
      return solutions.takeError();
    for (const auto &solution : *solutions)
      configs.push_back(space.decode(solution));
    if (stats)
      stats->push_back({space.label, solutions->size(),
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                            .count()});
  }
  return configs;
}

std::vector<Candidate> expandKnobs(ArrayRef<GpuConfig> configs, const GpuSearchOptions &options) {
  std::vector<Candidate> result;
  SmallVector<std::optional<bool>> bankOptions;
  for (bool b : options.noReduceBankConflicts)
    bankOptions.push_back(b);
  if (bankOptions.empty())
    bankOptions.push_back(std::nullopt);
  for (const GpuConfig &config : configs) {
    bool attention = config.kind == OpKind::Attention;
    // Attention: the reference forces prefetch (2 when the QK output feeds
    // PV directly, else 0), and denormal flushing applies only there.
    SmallVector<int64_t> prefetch(options.prefetchStages);
    if (attention)
      prefetch = {config.reuseQkOutput ? 2 : 0};
    SmallVector<bool> denormal(options.denormalFlushing);
    if (!attention || denormal.empty())
      denormal = {false};
    for (int64_t stages : prefetch)
      for (std::optional<bool> bank : bankOptions)
        for (int64_t waves : options.wavesPerEu)
          for (bool flush : denormal) {
            Candidate c;
            c.config = config;
            c.prefetchStages = stages;
            c.noReduceBankConflicts = bank;
            c.wavesPerEu = waves;
            c.denormalFlushing = flush;
            result.push_back(std::move(c));
          }
  }
  return result;
}

Expected<CandidateSet> generateCandidates(const Problem &problem, const GpuTarget &target,
                                          const GpuSearchOptions &options,
                                          const CompilerChoice *compiler) {
  CandidateSet set;
  std::vector<GpuConfig> configs;
  for (Pipeline pipeline : options.pipelines) {
    auto some = enumerateConfigs(problem, target, pipeline, options, &set.stats);
    if (!some)
      return some.takeError();
    llvm::append_range(configs, *some);
  }
  set.configurations = configs.size();
  // Waves per EU is an AMDGPU function attribute: nothing to vary elsewhere.
  GpuSearchOptions knobs = options;
  if (target.isNvidia())
    knobs.wavesPerEu = {0};
  set.candidates = expandKnobs(configs, knobs);
  set.ordering = resolveOrdering(options.ordering, target, compiler);
  orderCandidates(set.candidates, target, set.ordering, options.seed, compiler);
  if (compiler && compiler->convertAccGemm)
    for (Candidate &c : set.candidates)
      c.convertAccGemm = c.config.pipeline == Pipeline::TileAndFuse &&
                         c.config.kind != OpKind::Attention;
  if (options.maxCandidates && set.candidates.size() > options.maxCandidates)
    set.candidates.resize(options.maxCandidates);
  for (Candidate &c : set.candidates) {
    c.compilationInfo = emitCompilationInfo(c);
    c.decompositionConfig = emitDecompositionConfig(c);
  }
  return set;
}

//===----------------------------------------------------------------------===//
// Attribute text.
//===----------------------------------------------------------------------===//

static std::string list(ArrayRef<int64_t> values) {
  return "[" + llvm::join(llvm::map_range(values, [](int64_t v) { return std::to_string(v); }), ", ") +
         "]";
}

static std::string mmaAttr(const Intrinsic &mma, bool colMajor) {
  std::string text = mma.isVirtual ? "#iree_gpu.virtual_mma_layout<" : "#iree_gpu.mma_layout<";
  text += mma.name;
  if (colMajor)
    text += ", col_major = true";
  return text + ">";
}

/// `#iree_gpu.lowering_config<{...}>` with the entries sorted by key, as
/// MLIR prints a dictionary.
/// Entries with an empty value are unit attributes.
static std::string loweringConfig(SmallVector<std::pair<std::string, std::string>> entries) {
  llvm::sort(entries);
  return "#iree_gpu.lowering_config<{" +
         llvm::join(llvm::map_range(entries,
                                    [](const auto &e) {
                                      return e.second.empty() ? e.first
                                                              : e.first + " = " + e.second;
                                    }),
                    ", ") +
         "}>";
}

std::string emitCompilationInfo(const Candidate &candidate) {
  const GpuConfig &g = candidate.config;
  bool attention = g.kind == OpKind::Attention;
  SmallVector<std::pair<std::string, std::string>> lc;
  lc.push_back({"workgroup", list(g.workgroup)});
  lc.push_back({"reduction", list(g.reduction)});
  lc.push_back({"promote_operands", list(g.promoteOperands)});
  if (!attention)
    lc.push_back({"mma_kind", mmaAttr(*g.mma, false)});
  if (g.pipeline == Pipeline::VectorDistribute)
    lc.push_back({"subgroup_basis", "[" + list(g.basisCounts) + ", " + list(g.basisMapping) + "]"});
  else
    lc.push_back({"subgroup", list(g.subgroup)});
  if (!g.padding.empty())
    lc.push_back({"padding", list(g.padding)});
  if (!g.paddingConv.empty())
    lc.push_back({"padding_conv", list(g.paddingConv)});
  if (candidate.convertAccGemm)
    lc.push_back({"convert_acc_gemm", ""});

  SmallVector<std::string> pipelineOptions;
  pipelineOptions.push_back("prefetch_num_stages = " + std::to_string(candidate.prefetchStages));
  if (candidate.noReduceBankConflicts)
    pipelineOptions.push_back(std::string("no_reduce_shared_memory_bank_conflicts = ") +
                              (*candidate.noReduceBankConflicts ? "true" : "false"));
  if (g.useIgemm)
    pipelineOptions.push_back(std::string("use_igemm_convolution = ") +
                              (*g.useIgemm ? "true" : "false"));
  SmallVector<std::string> dict;
  dict.push_back("gpu_pipeline_options = #iree_gpu.pipeline_options<" +
                 llvm::join(pipelineOptions, ", ") + ">");
  if (candidate.denormalFlushing)
    dict.push_back("iree_codegen.denormal_fp_math_f32 = "
                   "#iree_codegen.denormal_fp_math<\"preserve-sign\">");
  if (candidate.wavesPerEu > 0)
    dict.push_back("llvm_func_attrs = {\"amdgpu-waves-per-eu\" = \"" +
                   std::to_string(candidate.wavesPerEu) + "\"}");

  return "#iree_codegen.compilation_info<lowering_config = " + loweringConfig(lc) +
         ", translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<" +
         toString(g.pipeline).str() + "> workgroup_size = " + list(g.workgroupSize) +
         " subgroup_size = " + std::to_string(g.subgroupSize) + ", {" + llvm::join(dict, ", ") +
         "}>>";
}

std::string emitDecompositionConfig(const Candidate &candidate) {
  const GpuConfig &g = candidate.config;
  if (g.kind != OpKind::Attention)
    return "";
  std::string qk = loweringConfig({{"mma_kind", mmaAttr(*g.mma, g.colMajor)},
                                   {"subgroup_basis", "[" + list(g.basisCounts) + ", " +
                                                          list(g.qkMapping) + "]"},
                                   {"promote_operands", "[0, 1]"}});
  std::string pv = loweringConfig({{"mma_kind", mmaAttr(*g.pvMma, g.colMajor)},
                                   {"subgroup_basis", "[" + list(g.basisCounts) + ", " +
                                                          list(g.pvMapping) + "]"},
                                   {"promote_operands", "[1]"}});
  return "{pv_attrs = {lowering_config = " + pv + "}, qk_attrs = {lowering_config = " + qk + "}}";
}

} // namespace retune::gpu
