//===- CpuDefaults.cpp - The baseline compiler's heuristic config ---------===//
#include "stages/search/cpu/CpuDefaults.h"
#include "stages/search/cpu/CpuSpace.h"

#include "llvm/Support/CommandLine.h"

namespace retune::cpu {

// An option of the compiler, as a production compiler's heuristics have
// theirs: [mlir-cpu] compile_flags sets it, and a changed value is a
// changed compiler (its identity and cache keys include the flags).
static llvm::cl::opt<int64_t> defaultCacheTile(
    "retune-default-cache-tile", llvm::cl::init(64), llvm::cl::Hidden,
    llvm::cl::desc("the default heuristic's cache tile of contractions "
                   "(elements along each parallel dim)"));

// A deliberately weak heuristic: scalar code (register tiles of 1) for every
// op it configures. Tests set it to make a baseline that any vectorized
// candidate beats on any CPU, so that winners exist whatever the machine;
// it is part of the compiler identity like every other flag.
static llvm::cl::opt<bool> scalarDefaults(
    "retune-default-scalar", llvm::cl::init(false), llvm::cl::Hidden,
    llvm::cl::desc("the default heuristic emits scalar code (a weak "
                   "baseline for tests)"));

int64_t largestDivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

unsigned elementBits(StringRef type) {
  if (type == "bf16")
    return 16;
  unsigned bits = 0;
  if ((type.starts_with("f") || type.starts_with("i")) &&
      !type.drop_front().getAsInteger(10, bits))
    return bits;
  return 0;
}

/// Outer tiles of `size` on the parallel dims, 0 elsewhere, rounded to
/// divisors that are multiples of the register tile.
static SmallVector<int64_t> outerTiles(const Problem &p,
                                       ArrayRef<int64_t> registerTiles,
                                       StringRef tiledRoles, int64_t size) {
  SmallVector<int64_t> tiles(p.loopRanges.size(), 0);
  for (auto [i, role] : llvm::enumerate(p.dimRoles)) {
    if (!tiledRoles.contains(role))
      continue;
    int64_t range = p.loopRanges[i], reg = std::max<int64_t>(1, registerTiles[i]);
    int64_t tile = reg * largestDivisorAtMost(range / reg, std::max<int64_t>(1, size / reg));
    tiles[i] = tile;
  }
  return tiles;
}

/// Elements per dim of a transpose's cache block.
constexpr int64_t kTransposeBlock = 64;

/// One vector (or a lanes x lanes block for a transpose) per innermost
/// iteration; with threads, the outermost dim split among them.
static CpuConfig elementwiseConfig(const Problem &p, int64_t lanes,
                                   unsigned threads) {
  CpuConfig config;
  config.threads = threads;
  config.registerTiles.assign(p.loopRanges.size(), 1);
  for (auto [i, role] : llvm::enumerate(p.dimRoles))
    if (role == 'v')
      config.registerTiles[i] = largestDivisorAtMost(p.loopRanges[i], lanes);
  config.outerTiles.assign(p.loopRanges.size(), 0);
  config.reductionTiles.assign(p.loopRanges.size(), 0);
  // A transpose (two vector dims) walks blocks of its two dims that stay in
  // L1 between the reads and the writes: 16x16 blocks alone run at a
  // quarter of memory speed on an 8x1024x1024 batch (16.3 vs 8.7 ms).
  if (llvm::count(p.dimRoles, 'v') > 1) {
    for (auto [i, role] : llvm::enumerate(p.dimRoles)) {
      if (role == 'v')
        config.outerTiles[i] =
            largestDivisorAtMost(p.loopRanges[i], kTransposeBlock);
      else if (threads > 1)
        config.outerTiles[i] = 1;
    }
    // The blocks are the threads' units.
    return config;
  }
  int64_t outer = p.loopRanges[0];
  if (threads > 1 && p.dimRoles[0] == 'p' && outer % threads == 0)
    config.outerTiles[0] = outer / threads;
  else
    config.threads = 1;
  return config;
}

std::optional<CpuConfig> defaultConfig(const Problem &p, const CpuHost &host,
                                       unsigned threads) {
  unsigned bits = elementBits(p.elementTypes.back());
  if (bits == 0)
    return std::nullopt;
  int64_t lanes = scalarDefaults ? 1 : host.lanes(bits);
  if (p.kind == OpKind::Elementwise)
    return elementwiseConfig(p, lanes, threads);
  CpuConfig config;
  config.threads = threads;
  config.registerTiles.assign(p.loopRanges.size(), 1);
  if (p.kind == OpKind::Contraction) {
    SmallVector<unsigned> m = p.dimsWithRole('m'), n = p.dimsWithRole('n');
    if (m.empty() || n.empty())
      return std::nullopt;
    config.registerTiles[m.back()] =
        largestDivisorAtMost(p.loopRanges[m.back()], scalarDefaults ? 1 : 8);
    config.registerTiles[n.back()] =
        largestDivisorAtMost(p.loopRanges[n.back()], lanes);
    config.outerTiles =
        outerTiles(p, config.registerTiles, "bmn", defaultCacheTile);
    // A packed panel is packed once per outer tile: the rows that reuse it
    // stay in one tile.
    PackedLoops packed = packedLoops(p);
    for (unsigned dim : packed.reused)
      config.outerTiles[dim] = 0;
    for (unsigned dim : packed.batch)
      config.outerTiles[dim] = 1;
  } else if (p.opName == "linalg.conv_2d_nhwc_hwcf") {
    // Loops: n, oh, ow, f, kh, kw, c.
    config.registerTiles[2] =
        largestDivisorAtMost(p.loopRanges[2], scalarDefaults ? 1 : 4);
    config.registerTiles[3] = largestDivisorAtMost(p.loopRanges[3], lanes);
    config.decompose = true;
    // One output row per outer iteration: the unit a thread takes.
    config.outerTiles.assign(p.loopRanges.size(), 0);
    config.outerTiles[0] = config.outerTiles[1] = 1;
  } else {
    return std::nullopt;
  }
  config.reductionTiles.assign(p.loopRanges.size(), 0);
  return config;
}

} // namespace retune::cpu
