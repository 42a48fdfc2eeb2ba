//===- IreeDefaultConfig.cpp - IREE's own config, read and varied --------===//
#include "stages/backends/iree/IreeDefaultConfig.h"

#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace llvm;

namespace retune::iree {

namespace {

/// The attribute that starts at `start` (`#dialect.name<...>`), up to its
/// matching `>`; empty when unbalanced.
StringRef balancedAttribute(StringRef text, size_t start) {
  int depth = 0;
  for (size_t i = text.find('<', start); i < text.size(); ++i) {
    if (text[i] == '<')
      ++depth;
    else if (text[i] == '>' && --depth == 0)
      return text.slice(start, i + 1);
  }
  return {};
}

/// The integers of `a, b, ...` (a list's inside); nullopt when one is not.
std::optional<SmallVector<int64_t>> integerList(StringRef list) {
  SmallVector<int64_t> values;
  SmallVector<StringRef> fields;
  list.split(fields, ',', -1, /*KeepEmpty=*/false);
  for (StringRef field : fields) {
    int64_t v = 0;
    if (field.trim().getAsInteger(10, v))
      return std::nullopt;
    values.push_back(v);
  }
  return values;
}

/// `key = [a, b, ...]` inside a lowering config; nullopt when absent or not
/// a plain list of integers (scalable tiles are printed `[n]`).
std::optional<SmallVector<int64_t>> levelOf(StringRef config, StringRef key) {
  Regex level(("(^|[<, ])" + key + " = \\[([-0-9, ]*)\\]").str());
  SmallVector<StringRef> m;
  if (!level.match(config, &m))
    return std::nullopt;
  return integerList(m[2]);
}

std::string listText(ArrayRef<int64_t> values) {
  return "[" + join(map_range(values, [](int64_t v) { return std::to_string(v); }),
                    ", ") +
         "]";
}

int64_t elementBytes(const Problem &problem) {
  StringRef type = problem.elementTypes.empty()
                       ? StringRef("f32")
                       : StringRef(problem.elementTypes.back());
  unsigned bits = 0;
  type.drop_while([](char c) { return !isDigit(c); }).getAsInteger(10, bits);
  return std::max<int64_t>(1, bits / 8);
}

} // namespace

/// The `outer_dims_perm` of the dispatch's one `linalg.pack` when it
/// permutes `loops` dims; empty otherwise (no pack, several, an identity).
static SmallVector<unsigned> packedStoreOrder(StringRef configuredText,
                                       size_t loops) {
  Regex pack("linalg\\.pack [^\n]*outer_dims_perm = \\[([0-9, ]*)\\]");
  SmallVector<StringRef> m;
  if (!pack.match(configuredText, &m) ||
      configuredText
          .drop_front(m[0].data() + m[0].size() - configuredText.data())
          .contains("linalg.pack "))
    return {};
  std::optional<SmallVector<int64_t>> dims = integerList(m[1]);
  if (!dims || llvm::any_of(*dims, [&](int64_t d) {
        return d < 0 || size_t(d) >= loops;
      }))
    return {};
  SmallVector<unsigned> order(dims->begin(), dims->end());
  bool identity = llvm::equal(order, llvm::seq<unsigned>(0, order.size()));
  if (order.size() != loops || identity)
    return {};
  return order;
}

/// Per loop of the root, the inner tile of the data-tiled layouts around
/// it: a `linalg.unpack` whose result and a `linalg.pack` whose source have
/// `loops` dims (the root reads the one, writes the other), the least
/// common multiple where both tile a loop; empty when no unpack is read.
static SmallVector<int64_t> dataTilesAround(StringRef configuredText,
                                            size_t loops) {
  Regex op("linalg\\.(un)?pack [^\n]*inner_dims_pos = \\[([0-9, ]*)\\] "
           "inner_tiles = \\[([0-9, ]*)\\][^\n]*: tensor<([^>]*)> -> "
           "tensor<([^>]*)>");
  SmallVector<int64_t> tiles;
  bool readsUnpacked = false;
  SmallVector<StringRef> lines;
  configuredText.split(lines, '\n');
  for (StringRef line : lines) {
    SmallVector<StringRef> m;
    if (!op.match(line, &m))
      continue;
    bool unpack = !m[1].empty();
    StringRef plain = unpack ? m[5] : m[4];
    if (size_t(plain.count('x')) != loops)
      continue;
    std::optional<SmallVector<int64_t>> dims = integerList(m[2]),
                                        sizes = integerList(m[3]);
    if (!dims || !sizes || dims->empty() || dims->size() != sizes->size() ||
        llvm::any_of(*dims, [](int64_t dim) { return dim < 0; }) ||
        llvm::any_of(*sizes, [](int64_t size) { return size <= 0; }))
      continue;
    if (tiles.empty())
      tiles.assign(loops, 1);
    for (auto [dim, size] : zip(*dims, *sizes))
      if (size_t(dim) < loops)
        tiles[dim] = std::lcm(tiles[dim], size);
    readsUnpacked = readsUnpacked || unpack;
  }
  // A pack alone is the store order's (packedStoreOrder).
  if (!readsUnpacked)
    return {};
  return tiles;
}

Expected<IreeRootConfig> readRootConfig(StringRef configuredText,
                                        StringRef fileName) {
  IreeRootConfig config;
  StringRef marker = "#iree_cpu.lowering_config<";
  for (size_t at = configuredText.find(marker); at != StringRef::npos;
       at = configuredText.find(marker, at + 1)) {
    StringRef attr = balancedAttribute(configuredText, at);
    if (!attr.contains("distribution = "))
      continue;
    std::optional<SmallVector<int64_t>> distribution =
        levelOf(attr, "distribution");
    if (!distribution)
      continue;
    config.loweringConfig = attr.str();
    config.distribution = std::move(*distribution);
    config.vectorParallel =
        levelOf(attr, "vector_common_parallel").value_or(SmallVector<int64_t>());
    config.vectorReduction =
        levelOf(attr, "vector_reduction").value_or(SmallVector<int64_t>());
    config.hasCacheLevel =
        attr.contains("cache_parallel") || attr.contains("cache_reduction");
    break;
  }
  if (config.loweringConfig.empty())
    return makeError(fileName + ": IREE set no llvm-cpu lowering_config with "
                                "a distribution level on any op");
  config.storeOrder = packedStoreOrder(configuredText, config.distribution.size());
  config.dataTiles =
      dataTilesAround(configuredText, config.distribution.size());
  size_t info = configuredText.find("#iree_codegen.translation_info<");
  StringRef translation =
      info == StringRef::npos ? StringRef() : balancedAttribute(configuredText, info);
  if (translation.empty())
    return makeError(fileName + ": IREE set no translation_info");
  config.translationInfo = translation.str();
  return config;
}

Expected<gpu::CompilerChoice> readGpuCompilerChoice(StringRef configuredText,
                                                   StringRef fileName) {
  StringRef marker = "#iree_gpu.lowering_config<";
  for (size_t at = configuredText.find(marker); at != StringRef::npos;
       at = configuredText.find(marker, at + 1)) {
    StringRef attr = balancedAttribute(configuredText, at);
    size_t mma = attr.find("mma_kind = ");
    if (mma == StringRef::npos)
      continue;
    gpu::CompilerChoice choice;
    StringRef layout = attr.drop_front(mma);
    layout = layout.drop_front(layout.find('<') + 1);
    choice.mma = layout.take_until([](char c) { return c == '>' || c == ','; }).trim().str();
    choice.workgroup = levelOf(attr, "workgroup").value_or(SmallVector<int64_t>());
    choice.reduction = levelOf(attr, "reduction").value_or(SmallVector<int64_t>());
    choice.subgroup = levelOf(attr, "subgroup").value_or(SmallVector<int64_t>());
    choice.convertAccGemm = attr.contains("convert_acc_gemm");
    if (choice.workgroup.empty())
      continue;
    SmallVector<StringRef> m;
    if (Regex("prefetch_num_stages = ([0-9]+)").match(configuredText, &m))
      m[1].getAsInteger(10, choice.prefetchStages);
    if (Regex("pipeline = #iree_gpu.pipeline<([A-Za-z]+)>").match(configuredText, &m))
      choice.pipeline = m[1].str();
    if (Regex("subgroup_size = ([0-9]+)").match(configuredText, &m))
      m[1].getAsInteger(10, choice.subgroupSize);
    if (Regex("use_igemm_convolution = (true|false)").match(configuredText, &m))
      choice.useIgemm = m[1] == "true";
    choice.workgroupSize = levelOf(configuredText, "workgroup_size").value_or(SmallVector<int64_t>());
    return choice;
  }
  return makeError(fileName + ": IREE set no GPU lowering_config with an "
                              "mma_kind and workgroup tiles on any op");
}

/// Calls `visit` with every choice of one option per loop (`pick[i]`
/// indexes `options[i]`, whose first option is IREE's own), except the
/// choice of IREE's own on every loop.
static void forEachChoice(ArrayRef<SmallVector<int64_t>> options,
                          function_ref<void(ArrayRef<size_t>)> visit) {
  SmallVector<size_t> pick(options.size(), 0);
  while (true) {
    size_t i = 0;
    for (; i < options.size(); ++i) {
      if (++pick[i] < options[i].size())
        break;
      pick[i] = 0;
    }
    if (i == options.size())
      return;
    visit(pick);
  }
}

/// The workgroup-tile variants (see the header); the caller checked that
/// the config has one tile per loop.
static std::vector<DistributionVariant>
workgroupVariants(const IreeRootConfig &config, const Problem &problem,
                  int64_t maxVectorBytes) {
  size_t loops = problem.loopRanges.size();
  // Per loop, the workgroup tiles to try (the first is IREE's own).
  std::vector<SmallVector<int64_t>> options(loops);
  for (size_t i = 0; i < loops; ++i) {
    int64_t own = config.distribution[i];
    int64_t range = problem.loopRanges[i];
    options[i].push_back(own);
    if (problem.iteratorTypes[i] != "parallel" || range <= 1)
      continue;
    int64_t vector = i < config.vectorParallel.size()
                         ? std::max<int64_t>(1, config.vectorParallel[i])
                         : 1;
    int64_t base = own > 0 ? own : range;
    // Half, twice and four times IREE's tile, then a quarter and the whole
    // loop (a reduction's rows on one core).
    for (int64_t tile : {base / 2, base * 2, base * 4, base / 4, range}) {
      int64_t written = tile == range ? 0 : tile;
      if (tile >= vector && tile <= range && tile % vector == 0 &&
          tile != base && !llvm::is_contained(options[i], written))
        options[i].push_back(written);
    }
  }
  std::vector<DistributionVariant> variants;
  forEachChoice(options, [&](ArrayRef<size_t> pick) {
    DistributionVariant v;
    for (size_t i = 0; i < loops; ++i) {
      int64_t tile = options[i][pick[i]];
      v.distribution.push_back(tile);
      int64_t own = config.distribution[i] > 0 ? config.distribution[i]
                                               : problem.loopRanges[i];
      int64_t mine = tile > 0 ? tile : problem.loopRanges[i];
      v.cost += std::abs(std::log2(double(mine) / double(own)));
    }
    int64_t resultBytes = elementBytes(problem);
    for (size_t i = 0; i < loops; ++i)
      if (problem.iteratorTypes[i] == "parallel")
        resultBytes *= v.distribution[i] > 0 ? v.distribution[i]
                                             : problem.loopRanges[i];
    if (!config.hasCacheLevel || resultBytes <= maxVectorBytes)
      variants.push_back(std::move(v));
  });
  return variants;
}

/// Elements of a register tile (the parallel loops' vector tiles).
static int64_t tileElements(ArrayRef<int64_t> vectorParallel,
                            const Problem &problem) {
  int64_t elements = 1;
  for (auto [i, tile] : enumerate(vectorParallel))
    if (problem.iteratorTypes[i] == "parallel" && tile > 0)
      elements *= tile;
  return elements;
}

/// The register-tile variants (see the header).
static std::vector<DistributionVariant>
registerVariants(const IreeRootConfig &config, const Problem &problem) {
  size_t loops = problem.loopRanges.size();
  if (config.vectorParallel.size() != loops)
    return {};
  // Per loop, the register tiles to try (the first is IREE's own).
  std::vector<SmallVector<int64_t>> options(loops);
  for (size_t i = 0; i < loops; ++i) {
    int64_t own = config.vectorParallel[i];
    options[i].push_back(own);
    if (problem.iteratorTypes[i] != "parallel" || own <= 0)
      continue;
    int64_t workgroup = config.distribution[i] > 0 ? config.distribution[i]
                                                   : problem.loopRanges[i];
    for (int64_t tile = std::max<int64_t>(1, (own + 3) / 4);
         tile <= std::min(workgroup, own * 4); ++tile)
      if (tile != own && workgroup % tile == 0)
        options[i].push_back(tile);
  }
  int64_t ownElements = tileElements(config.vectorParallel, problem);
  std::vector<DistributionVariant> variants;
  forEachChoice(options, [&](ArrayRef<size_t> pick) {
    DistributionVariant v;
    v.distribution = config.distribution;
    for (size_t i = 0; i < loops; ++i) {
      int64_t tile = options[i][pick[i]];
      v.vectorParallel.push_back(tile);
      if (pick[i])
        v.cost += std::abs(std::log2(double(tile) / double(options[i][0])));
    }
    int64_t elements = tileElements(v.vectorParallel, problem);
    if (2 * elements >= ownElements && elements <= 2 * ownElements)
      variants.push_back(std::move(v));
  });
  return variants;
}

/// The first store-order workgroup with a register tile that stores one
/// contiguous run: the loops the pack stores innermost (the last of its
/// `outer_dims_perm`) taken whole, innermost first, while the tile stays
/// within 128 elements. An im2col's window loops: with IREE's register
/// tile each vector stores 8 elements. Measured on the detector's im2col
/// (96x3x3x160x160 f32 into [h, w/8, c, kh, kw, 8, 1], the dispatch
/// benchmark, 1 thread): IREE's config 31.4 ms, workgroups [96, 3, 3, 1, 8]
/// 25.2 ms, with the register tile [1, 3, 3, 1, 8] 11.5-17.9 ms.
static std::optional<DistributionVariant>
wholeInnerStores(ArrayRef<DistributionVariant> storeOrdered,
                 const IreeRootConfig &config, const Problem &problem) {
  constexpr int64_t kMaxElements = 128;
  size_t loops = problem.loopRanges.size();
  if (storeOrdered.empty() || config.vectorParallel.size() != loops)
    return std::nullopt;
  DistributionVariant v = storeOrdered.front();
  v.vectorParallel.assign(config.vectorParallel.begin(),
                          config.vectorParallel.end());
  for (int64_t &tile : v.vectorParallel)
    tile = std::max<int64_t>(1, tile);
  int64_t elements = tileElements(v.vectorParallel, problem);
  for (unsigned dim : llvm::reverse(config.storeOrder)) {
    int64_t whole =
        v.distribution[dim] > 0 ? v.distribution[dim] : problem.loopRanges[dim];
    if (whole <= v.vectorParallel[dim])
      continue;
    int64_t grown = elements / v.vectorParallel[dim] * whole;
    if (grown > kMaxElements)
      break;
    v.vectorParallel[dim] = whole;
    elements = grown;
  }
  if (v.vectorParallel == config.vectorParallel)
    return std::nullopt;
  return v;
}

/// Workgroups that each store one contiguous run of a packed result
/// (IreeDefaultConfig.h): the loops the pack stores outermost at one tile,
/// or at the register tile where IREE vectorizes, the others whole; about
/// 64 KB of result a workgroup first.
static std::vector<DistributionVariant>
storeOrderVariants(const IreeRootConfig &config, const Problem &problem) {
  size_t loops = problem.loopRanges.size();
  if (problem.kind != OpKind::Elementwise ||
      config.storeOrder.size() != loops ||
      llvm::is_contained(problem.iteratorTypes, "reduction"))
    return {};
  constexpr double kWorkgroupBytes = 64 * 1024;
  std::vector<DistributionVariant> variants;
  for (size_t outer = 1; outer < loops; ++outer) {
    DistributionVariant v;
    v.distribution.assign(problem.loopRanges.begin(),
                          problem.loopRanges.end());
    for (unsigned dim : ArrayRef(config.storeOrder).take_front(outer)) {
      int64_t vector = dim < config.vectorParallel.size()
                           ? config.vectorParallel[dim]
                           : 1;
      v.distribution[dim] = std::max<int64_t>(1, vector);
    }
    if (v.distribution == config.distribution)
      continue;
    double bytes = elementBytes(problem);
    for (int64_t tile : v.distribution)
      bytes *= tile;
    v.cost = std::abs(std::log2(bytes / kWorkgroupBytes));
    variants.push_back(std::move(v));
  }
  llvm::stable_sort(variants, [](const DistributionVariant &a,
                                 const DistributionVariant &b) {
    return a.cost < b.cost;
  });
  if (std::optional<DistributionVariant> whole =
          wholeInnerStores(variants, config, problem))
    variants.insert(variants.begin(), std::move(*whole));
  return variants;
}

/// Square register tiles on a transpose's two innermost dims (its 'v'
/// loops), one 32-byte register of elements a side, then half that: IREE
/// lowers an 8x8 f32 vector transpose with x86 shuffles, and on the
/// PP-OCRv4 detector a 24x410881 transpose ran in 27 ms with IREE's 16x16
/// register tile and in 5.6 ms with 8x8 on the dispatch benchmark (1
/// thread; in the model 12.3 -> 10.0 ms, docs/iree-backend.md).
static std::vector<DistributionVariant>
transposeVariants(const IreeRootConfig &config, const Problem &problem) {
  SmallVector<unsigned> lanes = problem.dimsWithRole('v');
  size_t loops = problem.loopRanges.size();
  if (problem.kind != OpKind::Elementwise || lanes.size() != 2 ||
      config.vectorParallel.size() != loops)
    return {};
  int64_t side = std::max<int64_t>(1, 32 / elementBytes(problem));
  std::vector<DistributionVariant> variants;
  for (int64_t tile : {side, side / 2}) {
    DistributionVariant v;
    v.distribution = config.distribution;
    v.vectorParallel = config.vectorParallel;
    bool fits = tile > 1;
    for (unsigned dim : lanes) {
      int64_t workgroup = config.distribution[dim] > 0
                              ? config.distribution[dim]
                              : problem.loopRanges[dim];
      fits = fits && workgroup % tile == 0;
      v.vectorParallel[dim] = tile;
    }
    if (fits && v.vectorParallel != config.vectorParallel)
      variants.push_back(std::move(v));
  }
  return variants;
}

/// Register tiles of whole data tiles for an elementwise root between
/// data-tiled layouts (IreeRootConfig::dataTiles): IREE vectorizes such a
/// root at the pack's inner tile ([8, 1] for a matmul's LHS), so the unpack
/// before it reads one column of each 8x8 tile; at the tiles' least common
/// multiple a vector reads and writes whole tiles. First with IREE's
/// workgroups (rounded up to the register tile), then with workgroups of
/// one row of tiles that store one contiguous run of the packed result.
/// The ViT's GELU (257x1536 f32, unpack 8x8, pack 8x1; 1 thread): 3.98 ms
/// alone with IREE's [64, 64] x [8, 1], 1.1-1.6 ms with [64, 64] x [8, 8],
/// 0.75 ms with [8, 1536] x [8, 8]; in the model 47.3 -> 11.5 ms a run.
static std::vector<DistributionVariant>
dataTileVariants(const IreeRootConfig &config, const Problem &problem) {
  size_t loops = problem.loopRanges.size();
  if (problem.kind != OpKind::Elementwise || config.dataTiles.size() != loops ||
      config.vectorParallel.size() != loops ||
      llvm::is_contained(problem.iteratorTypes, "reduction"))
    return {};
  DistributionVariant aligned;
  aligned.distribution = config.distribution;
  std::optional<size_t> outerTiled;
  for (size_t i = 0; i < loops; ++i) {
    int64_t own = std::max<int64_t>(1, config.vectorParallel[i]);
    int64_t tile = std::lcm(own, config.dataTiles[i]);
    if (tile > problem.loopRanges[i])
      tile = own;
    aligned.vectorParallel.push_back(tile);
    if (int64_t &wg = aligned.distribution[i]; wg > 0)
      wg = std::min(problem.loopRanges[i], (wg + tile - 1) / tile * tile);
    if (config.dataTiles[i] > 1 && !outerTiled)
      outerTiled = i;
  }
  if (!outerTiled)
    return {};
  std::vector<DistributionVariant> variants;
  if (aligned.vectorParallel != config.vectorParallel)
    variants.push_back(aligned);
  DistributionVariant rowOfTiles = aligned;
  for (size_t i = 0; i < loops; ++i)
    rowOfTiles.distribution[i] =
        i < *outerTiled ? 1
        : i == *outerTiled ? aligned.vectorParallel[i]
                           : 0;
  if (rowOfTiles.distribution != config.distribution ||
      rowOfTiles.vectorParallel != config.vectorParallel)
    variants.push_back(std::move(rowOfTiles));
  return variants;
}

/// Register tiles for a `linalg.pack` root that read its source a whole
/// register at a time: where the source's innermost dim is no multiple of
/// its vector, IREE vectorizes the pack one inner tile at a time (257: [1,
/// 1, 1]; 64: [1, 1, 16]), so into 8x1 tiles each vector gathers 8
/// elements from 8 rows. With a 32-byte
/// register of elements on the loop that walks the source's innermost dim
/// (Problem::dimRoles 'v'), each row is read by vectors and the tiles are
/// transposed in registers. First with workgroups of whole rows (that loop
/// and the ones inside it whole, the ones outside at one tile), then with
/// IREE's workgroups, that loop rounded up to the register tile, then whole.
/// The ViT's attention probabilities (6x257x257 f32 packed into
/// 6x33x257x8x1; dispatch benchmark, 1 thread): IREE's [2, 33, 1] x
/// [1, 1, 1] 273-305 us, [1, 1, 257] x [1, 1, 8] 70-78 us, [2, 33, 8] x
/// [1, 1, 8] 112-120 us.
/// With 16x1 tiles (AVX-512 and microkernels) IREE asks for the register
/// tile [1, 1, 16] but gives that loop workgroups of one, and a register
/// tile never exceeds its workgroup's: 6x257x257 into 6x17x257x16x1 (Zen 4,
/// 1 thread), IREE's [2, 17, 1] x [1, 1, 16] 408 us, [1, 1, 0] x [1, 1, 16]
/// 48 us, [2, 17, 16] 62 us. IREE's register tile stays where it is wider.
static std::vector<DistributionVariant>
packVariants(const IreeRootConfig &config, const Problem &problem) {
  SmallVector<unsigned> lanes = problem.dimsWithRole('v');
  size_t loops = problem.loopRanges.size();
  if (problem.opName != "linalg.pack" || lanes.size() != 1 ||
      config.vectorParallel.size() != loops ||
      config.distribution.size() != loops)
    return {};
  unsigned lane = lanes.front();
  int64_t side = std::max<int64_t>(1, 32 / elementBytes(problem));
  int64_t wanted = std::min(side, problem.loopRanges[lane]);
  int64_t own = config.vectorParallel[lane];
  int64_t ownWorkgroup = config.distribution[lane];
  int64_t effective = ownWorkgroup > 0 ? std::min(own, ownWorkgroup) : own;
  if (wanted <= effective)
    return {};
  int64_t tile = std::max(wanted, own);
  DistributionVariant rows;
  rows.vectorParallel = config.vectorParallel;
  rows.vectorParallel[lane] = tile;
  for (size_t i = 0; i < loops; ++i)
    rows.distribution.push_back(
        i < lane ? std::max<int64_t>(1, config.vectorParallel[i]) : 0);
  DistributionVariant rounded = rows, whole = rows;
  rounded.distribution = whole.distribution = config.distribution;
  if (int64_t &roundedUp = rounded.distribution[lane]; roundedUp > 0)
    roundedUp =
        std::min(problem.loopRanges[lane], (roundedUp + tile - 1) / tile * tile);
  whole.distribution[lane] = 0;
  std::vector<DistributionVariant> variants;
  for (DistributionVariant *v : {&rows, &rounded, &whole})
    if (llvm::none_of(variants, [&](const DistributionVariant &seen) {
          return seen.distribution == v->distribution;
        }))
      variants.push_back(std::move(*v));
  return variants;
}

/// Whether the root changes data tiling's layout itself: the pack or
/// unpack the dispatch carries is then its root, not a layout around it
/// (IreeRootConfig::storeOrder, dataTiles).
static bool isLayoutRoot(const Problem &problem) {
  return problem.opName == "linalg.pack" || problem.opName == "linalg.unpack";
}

int64_t workgroupCount(const Problem &problem, ArrayRef<int64_t> distribution) {
  int64_t count = 1;
  for (auto [i, range] : enumerate(problem.loopRanges)) {
    bool reduction = i < problem.iteratorTypes.size() &&
                     problem.iteratorTypes[i] == "reduction";
    int64_t tile = i < distribution.size() ? distribution[i] : 0;
    if (!reduction && tile > 0 && range > 0)
      count *= (range + tile - 1) / tile;
  }
  return count;
}

double workerBalance(int64_t workgroups, unsigned workers) {
  constexpr int64_t kMaxReservation = 8;
  if (workers <= 1 || workgroups <= 0)
    return 1;
  int64_t reservation = workgroups < workers * kMaxReservation ? 1 : kMaxReservation;
  // Whole reservations dealt in turn, then the partial last one to a worker
  // with the fewest.
  int64_t whole = workgroups / reservation, partial = workgroups % reservation;
  int64_t each = whole / workers, extra = whole % workers;
  int64_t busiest = std::max((each + (extra > 0)) * reservation,
                             each * reservation + partial);
  return double(workgroups) / double(workers) / double(busiest);
}

/// `variants` with those that keep `workers` less busy than IREE's own
/// workgroups and than kBusyEnough after the others, each group in its
/// order.
static void balancedFirst(std::vector<DistributionVariant> &variants,
                          const IreeRootConfig &config, const Problem &problem,
                          unsigned workers) {
  if (workers <= 1)
    return;
  auto balance = [&](ArrayRef<int64_t> distribution) {
    return workerBalance(workgroupCount(problem, distribution), workers);
  };
  double bar = std::min(balance(config.distribution), kBusyEnough);
  std::stable_partition(variants.begin(), variants.end(),
                        [&](const DistributionVariant &v) {
                          return balance(v.distribution) >= bar;
                        });
}

constexpr StringLiteral kPeelingOption = "enable_loop_peeling";

bool peelingHelps(const IreeRootConfig &config, const Problem &problem) {
  StringRef info = config.translationInfo;
  if (!info.contains("DoubleTilingExpert") || info.contains(kPeelingOption))
    return false;
  auto leavesRemainder = [&](ArrayRef<int64_t> tiles) {
    if (tiles.size() != problem.loopRanges.size())
      return false;
    for (auto [tile, range] : llvm::zip_equal(tiles, problem.loopRanges))
      if (tile > 1 && range > 0 && range % tile != 0)
        return true;
    return false;
  };
  return leavesRemainder(config.vectorParallel) ||
         leavesRemainder(config.vectorReduction);
}

/// `variants` each peeled first, then as it was, with IREE's own tiles
/// peeled after the first: where peelingHelps, masked lowering is what costs
/// the most, and the first variant is its family's best guess (a
/// transpose's square register tile, an unpack's whole data tiles).
static std::vector<DistributionVariant>
peeledFirst(const IreeRootConfig &config,
            std::vector<DistributionVariant> variants) {
  DistributionVariant own{config.distribution, {}, 0, /*peel=*/true};
  std::vector<DistributionVariant> withPeeling;
  for (DistributionVariant &v : variants) {
    withPeeling.push_back(v);
    withPeeling.back().peel = true;
    withPeeling.push_back(std::move(v));
    if (withPeeling.size() == 2)
      withPeeling.push_back(own);
  }
  if (withPeeling.empty())
    withPeeling.push_back(std::move(own));
  return withPeeling;
}

std::vector<DistributionVariant>
distributionVariants(const IreeRootConfig &config, const Problem &problem,
                     unsigned count, int64_t maxVectorBytes, unsigned workers) {
  if (config.distribution.size() != problem.loopRanges.size() ||
      problem.iteratorTypes.size() != problem.loopRanges.size())
    return {};
  auto byDistance = [](std::vector<DistributionVariant> variants) {
    llvm::stable_sort(variants, [](const DistributionVariant &a,
                                   const DistributionVariant &b) {
      return a.cost < b.cost;
    });
    return variants;
  };
  std::vector<DistributionVariant> variants = packVariants(config, problem);
  if (!isLayoutRoot(problem)) {
    llvm::append_range(variants, dataTileVariants(config, problem));
    llvm::append_range(variants, storeOrderVariants(config, problem));
  }
  llvm::append_range(variants, transposeVariants(config, problem));
  std::vector<DistributionVariant> registers;
  for (DistributionVariant &v : byDistance(registerVariants(config, problem)))
    if (llvm::none_of(variants, [&](const DistributionVariant &seen) {
          return seen.vectorParallel == v.vectorParallel;
        }))
      registers.push_back(std::move(v));
  std::vector<DistributionVariant> workgroups =
      byDistance(workgroupVariants(config, problem, maxVectorBytes));
  // An op that computes without a named space (a reduction, Problem::rootDag)
  // tries where its work goes per core first: on MiniLM's softmax every
  // register tile IREE's lowering accepted was slower than its own, and two
  // workgroup tiles were 1.2x and 1.3x faster.
  if (!problem.rootDag.empty())
    std::swap(registers, workgroups);
  llvm::append_range(variants, registers);
  llvm::append_range(variants, workgroups);
  balancedFirst(variants, config, problem, workers);
  if (peelingHelps(config, problem))
    variants = peeledFirst(config, std::move(variants));
  if (variants.size() > count)
    variants.resize(count);
  return variants;
}

/// `translationInfo` (`#iree_codegen.translation_info<pipeline = ...>`,
/// with or without a config dictionary) asking the pipeline to peel.
static std::string withPeeling(StringRef translationInfo) {
  StringRef body = translationInfo.drop_back(); // the closing '>'
  if (body.ends_with("{}"))
    return (body.drop_back() + kPeelingOption + "}>").str();
  if (body.ends_with("}"))
    return (body.drop_back() + ", " + kPeelingOption + "}>").str();
  return (body + ", {" + kPeelingOption + "}>").str();
}

std::string compilationInfoWith(const IreeRootConfig &config,
                                const DistributionVariant &variant) {
  std::string lowering = config.loweringConfig;
  Regex level("distribution = \\[[-0-9, ]*\\]");
  lowering =
      level.sub("distribution = " + listText(variant.distribution), lowering);
  if (!variant.vectorParallel.empty()) {
    Regex vector("vector_common_parallel = \\[[-0-9, ]*\\]");
    lowering = vector.sub(
        "vector_common_parallel = " + listText(variant.vectorParallel), lowering);
  }
  return "#iree_codegen.compilation_info<lowering_config = " + lowering +
         ", translation_info = " +
         (variant.peel ? withPeeling(config.translationInfo)
                       : config.translationInfo) +
         ">";
}

} // namespace retune::iree
