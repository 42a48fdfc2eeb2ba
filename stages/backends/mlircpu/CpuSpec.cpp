//===- CpuSpec.cpp - Transform-dialect specs for CPU configs --------------===//
//
// The text follows what MLIR 22 accepts (see docs/cpu-backend.md): matchers
// contain only match ops, parameters are compared one value at a time, and
// attribute equality (maps, types) uses merge_handles(deduplicate) +
// num_associations == 1 because no attribute-equality matcher exists.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/CpuSpec.h"
#include "stages/core/IndexingMap.h"
#include "stages/search/cpu/CpuDefaults.h"
#include "stages/search/cpu/CpuSpace.h"

#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace retune::cpu {

static std::string list(ArrayRef<int64_t> values) {
  return "[" +
         join(map_range(values, [](int64_t v) { return std::to_string(v); }),
              ", ") +
         "]";
}

static std::string anyOps(unsigned count) {
  SmallVector<std::string> types(count, "!transform.any_op");
  return join(types, ", ");
}

static bool allZero(ArrayRef<int64_t> values) {
  return llvm::all_of(values, [](int64_t v) { return v == 0; });
}

/// Emits "compare an attribute-valued param against a constant".
static void emitAttrEquals(raw_ostream &os, StringRef handle, StringRef type,
                           StringRef constant, StringRef tag) {
  os << formatv("      %want_{0} = transform.param.constant {1} -> {2}\n",
                tag, constant, type);
  os << formatv("      %both_{0} = transform.merge_handles deduplicate {1}, "
                "%want_{0} : {2}\n",
                tag, handle, type);
  os << formatv("      %count_{0} = transform.num_associations %both_{0} : "
                "({1}) -> !transform.param<i64>\n",
                tag, type);
  os << formatv("      transform.match.param.cmpi eq %count_{0}, %c1 : "
                "!transform.param<i64>\n",
                tag);
}

/// Emits "the integer `query` of the structured op %s equals `value`",
/// binding the queried param to %<name>.
static void emitIntEquals(raw_ostream &os, StringRef name, StringRef query,
                          int64_t value) {
  os << formatv("      %{0} = transform.match.structured.{1} : "
                "(!transform.any_op) -> !transform.param<i64>\n",
                name, query);
  os << formatv("      %want_{0} = transform.param.constant {1} : i64 -> "
                "!transform.param<i64>\n",
                name, value);
  os << formatv("      transform.match.param.cmpi eq %{0}, %want_{0} : "
                "!transform.param<i64>\n",
                name);
}

/// Opens the body of a `transform.match.structured` on %s.
static void emitStructuredBodyStart(raw_ostream &os) {
  os << "    ^bb0(%s: !transform.any_op):\n";
  os << "      %c1 = transform.param.constant 1 : i64 -> "
        "!transform.param<i64>\n";
}

/// The return types of a matcher (and argument count of its action): the
/// root, then each epilogue op.
static std::string matchedHandles(const Problem &p) {
  std::string types = anyOps(1 + p.epilogue.size());
  return p.epilogue.empty() ? types : "(" + types + ")";
}

/// Emits the checks of epilogue op `index`, bound to %e<index>, and binds
/// the producer of its init (the op before it in the chain) to `producer`.
static void emitEpilogueMatcher(raw_ostream &os, const Problem &p,
                                unsigned index, StringRef producer) {
  const EpilogueOp &op = p.epilogue[index];
  os << formatv("    transform.match.operation_name %e{0} [\"linalg.generic\"] "
                ": !transform.any_op\n",
                index);
  os << formatv("    {0} = transform.match.structured failures(propagate) "
                "%e{1} : (!transform.any_op) -> !transform.any_op {{\n",
                producer, index);
  emitStructuredBodyStart(os);
  emitIntEquals(os, "inputs", "num_inputs %s", op.inputMaps.size());
  for (auto [i, map] : llvm::enumerate(op.inputMaps)) {
    os << formatv("      %map{0} = transform.match.structured.input %s[{0}] : "
                  "(!transform.any_op) -> !transform.affine_map\n",
                  i);
    emitAttrEquals(os, "%map" + std::to_string(i), "!transform.affine_map", map,
                   "map" + std::to_string(i));
  }
  os << "      %producer = transform.match.structured.init %s[0] : "
        "(!transform.any_op) -> !transform.any_op\n";
  os << "      transform.match.structured.yield %producer : "
        "!transform.any_op\n";
  os << "    }\n";
}

/// Emits the checks of the root op bound to `handle`; binds the producer of
/// each prologue input to %t<index>.
static void emitRootMatcher(raw_ostream &os, const Problem &p,
                            StringRef handle) {
  os << formatv("    transform.match.operation_name {0} [\"{1}\"] : "
                "!transform.any_op\n",
                handle, p.opName);
  os << "    ";
  if (!p.prologue.empty()) {
    SmallVector<std::string> producers;
    for (unsigned i = 0; i < p.prologue.size(); ++i)
      producers.push_back("%t" + std::to_string(i));
    os << join(producers, ", ") << " = ";
  }
  os << "transform.match.structured failures(propagate) " << handle;
  if (p.prologue.empty())
    os << " : !transform.any_op {\n";
  else
    os << " : (!transform.any_op) -> (" << anyOps(p.prologue.size())
       << ") {\n";
  emitStructuredBodyStart(os);
  emitIntEquals(os, "rank", "rank %s", p.loopRanges.size());
  for (auto [i, range] : llvm::enumerate(p.loopRanges))
    emitIntEquals(os, "d" + std::to_string(i),
                  "dim %s[" + std::to_string(i) + "]", range);
  for (auto [i, map] : llvm::enumerate(p.indexingMaps)) {
    bool isInput = i < p.numInputs;
    unsigned operand = isInput ? i : i - p.numInputs;
    StringRef kind = isInput ? "input" : "init";
    os << formatv("      %map{0} = transform.match.structured.{1} %s[{2}] : "
                  "(!transform.any_op) -> !transform.affine_map\n",
                  i, kind, operand);
    emitAttrEquals(os, "%map" + std::to_string(i), "!transform.affine_map",
                   map, "map" + std::to_string(i));
    os << formatv("      %value{0} = transform.match.structured.{1} %s[{2}] : "
                  "(!transform.any_op) -> !transform.any_value\n",
                  i, kind, operand);
    os << formatv("      %type{0} = transform.get_type elemental %value{0} : "
                  "(!transform.any_value) -> !transform.type\n",
                  i);
    emitAttrEquals(os, "%type" + std::to_string(i), "!transform.type",
                   p.elementTypes[i], "type" + std::to_string(i));
  }
  // A fused root feeds its epilogue alone; fusing a root with other users
  // would compute it twice.
  if (!p.epilogue.empty())
    os << "      %only_user = transform.match.structured.result %s[0] single "
          ": (!transform.any_op) -> !transform.any_op\n";
  if (!p.prologue.empty()) {
    SmallVector<std::string> producers;
    for (auto [i, op] : llvm::enumerate(p.prologue)) {
      producers.push_back("%producer" + std::to_string(i));
      os << formatv("      {0} = transform.match.structured.input %s[{1}] : "
                    "(!transform.any_op) -> !transform.any_op\n",
                    producers.back(), op.input);
    }
    os << "      transform.match.structured.yield " << join(producers, ", ")
       << " : " << anyOps(producers.size()) << "\n";
  }
  os << "    }\n";
}

/// Whether a prologue op copies its input unpermuted (the pack of an NN
/// operand) rather than transposing it: its map is the identity.
static bool isCopy(const PrologueOp &op) {
  std::optional<IndexingMap> map = parseIndexingMap(op.map);
  return map && map->isIdentity();
}

/// Emits the checks of prologue op `index`, bound to %t<index>: a
/// `linalg.transpose` (or, with an identity map, `linalg.copy`) reading its
/// input through that map, whose only user is the root.
static void emitPrologueMatcher(raw_ostream &os, const Problem &p,
                                unsigned index) {
  std::string handle = "%t" + std::to_string(index);
  os << formatv("    transform.match.operation_name {0} [\"linalg.{1}\"] "
                ": !transform.any_op\n",
                handle, isCopy(p.prologue[index]) ? "copy" : "transpose");
  os << "    transform.match.structured failures(propagate) " << handle
     << " : !transform.any_op {\n";
  emitStructuredBodyStart(os);
  os << "      %map0 = transform.match.structured.input %s[0] : "
        "(!transform.any_op) -> !transform.affine_map\n";
  emitAttrEquals(os, "%map0", "!transform.affine_map", p.prologue[index].map,
                 "map0");
  os << "      %only_user = transform.match.structured.result %s[0] single "
        ": (!transform.any_op) -> !transform.any_op\n";
  os << "    }\n";
}

std::string emitMatcher(const SpecEntry &entry) {
  const Problem &p = entry.problem;
  unsigned epilogueSize = p.epilogue.size();
  std::string text;
  raw_string_ostream os(text);
  os << formatv(
      "  // {0}: {1} {2}{3}{4}\n", entry.symbol, p.opName, list(p.loopRanges),
      epilogueSize ? " + " + std::to_string(epilogueSize) + " epilogue op(s)"
                   : "",
      p.prologue.empty() ? ""
                         : ", " + std::to_string(p.prologue.size()) +
                               " operand(s) packed");
  // A fused dispatch is matched at its last op and walked up through the
  // inits: foreach_match walks forward and applies each action as it
  // matches, so an action may rewrite the matched op and those before it,
  // never those after.
  std::string root = epilogueSize ? "%root" : "%op";
  std::string anchor =
      epilogueSize ? "%e" + std::to_string(epilogueSize - 1) : root;
  os << formatv("  transform.named_sequence @match_{0}({1}: !transform.any_op "
                "{{transform.readonly}) -> {2} {{\n",
                entry.symbol, anchor, matchedHandles(p));
  SmallVector<std::string> handles = {root};
  for (unsigned i = epilogueSize; i-- > 0;)
    emitEpilogueMatcher(os, p, i, i == 0 ? root : "%e" + std::to_string(i - 1));
  emitRootMatcher(os, p, root);
  for (unsigned i = 0; i < p.prologue.size(); ++i)
    emitPrologueMatcher(os, p, i);
  for (unsigned i = 0; i < epilogueSize; ++i)
    handles.push_back("%e" + std::to_string(i));
  os << formatv("    transform.yield {0} : {1}\n", join(handles, ", "),
                anyOps(handles.size()));
  os << "  }\n";
  return text;
}

std::string emitClaim(const SpecEntry &entry) {
  const Problem &p = entry.problem;
  std::string text;
  raw_string_ostream os(text);
  os << formatv("  // claims the root of {0} for its dispatch's action\n",
                entry.symbol);
  os << formatv("  transform.named_sequence @claim_{0}(%root: !transform.any_op "
                "{{transform.readonly}) -> !transform.any_op {{\n",
                entry.symbol);
  emitRootMatcher(os, p, "%root");
  for (unsigned i = 0; i < p.prologue.size(); ++i)
    emitPrologueMatcher(os, p, i);
  os << "    %user = transform.match.structured failures(propagate) %root : "
        "(!transform.any_op) -> !transform.any_op {\n";
  os << "    ^bb0(%s: !transform.any_op):\n";
  os << "      %single = transform.match.structured.result %s[0] single : "
        "(!transform.any_op) -> !transform.any_op\n";
  os << "      transform.match.structured.yield %single : !transform.any_op\n";
  os << "    }\n";
  os << "    transform.match.operation_name %user [\"linalg.generic\"] : "
        "!transform.any_op\n";
  os << "    %written = transform.match.structured failures(propagate) %user : "
        "(!transform.any_op) -> !transform.any_op {\n";
  os << "    ^bb0(%s: !transform.any_op):\n";
  os << "      %init = transform.match.structured.init %s[0] : "
        "(!transform.any_op) -> !transform.any_op\n";
  os << "      transform.match.structured.yield %init : !transform.any_op\n";
  os << "    }\n";
  // In place: the epilogue's init is the root itself.
  os << "    %one = transform.param.constant 1 : i64 -> !transform.param<i64>\n";
  os << "    %same = transform.merge_handles deduplicate %root, %written : "
        "!transform.any_op\n";
  os << "    %ops = transform.num_associations %same : (!transform.any_op) -> "
        "!transform.param<i64>\n";
  os << "    transform.match.param.cmpi eq %ops, %one : !transform.param<i64>\n";
  os << "    transform.yield %root : !transform.any_op\n  }\n";
  os << formatv("  transform.named_sequence @hold_{0}(%root: !transform.any_op "
                "{{transform.readonly}) {{\n    transform.yield\n  }\n",
                entry.symbol);
  return text;
}

namespace {
/// Emits the tiling steps of an action, tracking the current op handle.
class ActionWriter {
public:
  explicit ActionWriter(raw_ostream &os) : os(os) {}

  /// Tiles with scf.for; returns the loop handles, outermost first.
  SmallVector<std::string> tileFor(ArrayRef<int64_t> sizes,
                                   ArrayRef<int64_t> interchange) {
    unsigned loops = llvm::count_if(sizes, [](int64_t s) { return s != 0; });
    if (loops == 0)
      return {};
    std::string op = next("%tiled"), loopsName = next("%loops");
    os << "    " << op << ", " << loopsName;
    if (loops > 1)
      os << ":" << loops;
    os << " = transform.structured.tile_using_for " << current
       << " tile_sizes " << list(sizes);
    if (!interchange.empty())
      os << " interchange = " << list(interchange);
    os << "\n        : (!transform.any_op) -> (" << anyOps(loops + 1) << ")\n";
    current = op;
    SmallVector<std::string> handles;
    for (unsigned i = 0; i < loops; ++i)
      handles.push_back(loops > 1 ? loopsName + "#" + std::to_string(i)
                                  : loopsName);
    return handles;
  }

  void tileForall(ArrayRef<int64_t> sizes) {
    std::string op = next("%tiled"), forall = next("%forall");
    os << formatv("    {0}, {1} = transform.structured.tile_using_forall {2} "
                  "tile_sizes {3}\n"
                  "        : (!transform.any_op) -> (!transform.any_op, "
                  "!transform.any_op)\n",
                  op, forall, current, list(sizes));
    current = op;
  }

  /// Tiles `tail` (the last epilogue op) and fuses its producers — the
  /// other epilogue ops, the root and its fill — into the tiles; returns
  /// the outermost loop.
  std::string fuse(StringRef tail, ArrayRef<int64_t> sizes,
                   ArrayRef<int64_t> interchange, bool forall) {
    unsigned loops =
        forall ? 1 : llvm::count_if(sizes, [](int64_t s) { return s != 0; });
    std::string op = next("%fused"), loopsName = next("%loops");
    os << "    " << op << ", " << loopsName;
    if (loops > 1)
      os << ":" << loops;
    os << " = transform.structured.fuse " << tail << " tile_sizes "
       << list(sizes);
    if (!interchange.empty())
      os << " interchange " << list(interchange);
    os << (forall ? " {apply_cleanup, use_forall}" : " {apply_cleanup}")
       << "\n        : (!transform.any_op) -> (" << anyOps(loops + 1) << ")\n";
    return loops > 1 ? loopsName + "#0" : loopsName;
  }

  /// Points `current` at the op with `attribute` inside `scope`.
  void matchIn(StringRef scope, StringRef attribute) {
    std::string op = next("%inner");
    os << formatv("    {0} = transform.structured.match attributes{{{1}} in "
                  "{2} : (!transform.any_op) -> !transform.any_op\n",
                  op, attribute, scope);
    current = op;
  }

  /// Tiles every op of `handle` (elementwise, of rank `rank`) to rows of
  /// `inner` elements and vectorizes them.
  void vectorizeRows(StringRef handle, unsigned rank, int64_t inner) {
    SmallVector<int64_t> sizes(rank, 1);
    sizes.back() = inner;
    std::string op = next("%rows");
    os << "    " << op << ", " << next("%rowloops");
    if (rank > 1)
      os << ":" << rank;
    os << " = transform.structured.tile_using_for " << handle << " tile_sizes "
       << list(sizes) << "\n        : (!transform.any_op) -> ("
       << anyOps(rank + 1) << ")\n";
    os << "    transform.structured.vectorize " << op
       << " : !transform.any_op\n";
  }

  /// The op producing operand `operand` of the current op.
  std::string producerOf(unsigned operand) {
    std::string op = next("%producer");
    os << formatv("    {0} = transform.get_producer_of_operand {1}[{2}] : "
                  "(!transform.any_op) -> !transform.any_op\n",
                  op, current, operand);
    return op;
  }

  /// Packs a panel: the transpose or copy producing operand `operand` of
  /// the current op (fused into its tile) writes a buffer of its own, freed
  /// at the end of the tile, in blocks of `sizes` walked in `interchange`
  /// order. A copy's blocks are vectorized after bufferization (the
  /// driver): on tensors, a block's read and write fold back into a copy
  /// of the slice, which would lower to a generic memref.copy call.
  void packPanel(unsigned operand, bool copy, ArrayRef<int64_t> sizes,
                 ArrayRef<int64_t> interchange) {
    std::string buffer = next("%panel"), ops = next("%panelops");
    os << formatv("    {0}, {1} = transform.structured.bufferize_to_allocation "
                  "{2} {{bufferize_destination_only, emit_dealloc} : "
                  "!transform.any_op\n",
                  buffer, ops, producerOf(operand));
    std::string root = current;
    current = producerOf(operand);
    tileFor(sizes, interchange);
    if (!copy)
      vectorize(/*namedContraction=*/false);
    current = root;
  }

  std::string matchOps(StringRef scope, StringRef filter) {
    std::string op = next("%found");
    os << formatv("    {0} = transform.structured.match {1} in {2} : "
                  "(!transform.any_op) -> !transform.any_op\n",
                  op, filter, scope);
    return op;
  }

  void decompose() {
    std::string op = next("%decomposed");
    os << formatv("    {0} = transform.structured.decompose {1} : "
                  "(!transform.any_op) -> !transform.any_op\n",
                  op, current);
    current = op;
  }

  void vectorize(bool namedContraction) {
    os << "    transform.structured.vectorize " << current
       << (namedContraction ? " {create_named_contraction}" : "")
       << " : !transform.any_op\n";
  }

  std::string current = "%op";

private:
  std::string next(StringRef base) {
    return (base + Twine(counter++)).str();
  }
  raw_ostream &os;
  unsigned counter = 0;
};
} // namespace

/// Loop dims of the root's result, one per result dim (empty when the
/// result map is not a plain projection).
static SmallVector<unsigned> resultDims(const Problem &p) {
  std::optional<SmallVector<int>> loops =
      mapResultLoops(p.indexingMaps.back(), p.loopRanges.size());
  if (!loops || llvm::is_contained(*loops, -1))
    return {};
  return SmallVector<unsigned>(loops->begin(), loops->end());
}

/// How the tail of the epilogue is tiled so that the root's outer tiles
/// come out: the outer tiles per result dim, in the outer loop order.
/// Fails when the config tiles a reduction loop at the outer level.
struct EpilogueTiling {
  SmallVector<int64_t> sizes;
  SmallVector<int64_t> interchange;
};

static std::optional<EpilogueTiling>
epilogueTiling(const Problem &p, const CpuConfig &c, ArrayRef<unsigned> dims) {
  if (dims.empty())
    return std::nullopt;
  EpilogueTiling tiling;
  for (auto [loop, tile] : llvm::enumerate(c.outerTiles))
    if (tile != 0 && !llvm::is_contained(dims, loop))
      return std::nullopt;
  for (unsigned dim : dims)
    tiling.sizes.push_back(c.outerTiles.empty() ? 0 : c.outerTiles[dim]);
  // Untiled: one tile of the outermost dim, so there is a loop to fuse into.
  if (allZero(tiling.sizes))
    tiling.sizes[0] = p.loopRanges[dims[0]];
  if (c.threads == 1 && !c.outerInterchange.empty()) {
    for (int64_t loop : c.outerInterchange) {
      auto *it = llvm::find(dims, static_cast<unsigned>(loop));
      if (it != dims.end())
        tiling.interchange.push_back(it - dims.begin());
    }
    if (llvm::equal(tiling.interchange, llvm::seq<int64_t>(0, dims.size())))
      tiling.interchange.clear();
  }
  return tiling;
}

/// Elements per dim of the blocks a packing transpose moves at once: an
/// AVX-512 f32 register's lanes each way (vector.transpose lowers 16x16
/// blocks to shuffles); a packing copy moves rows of up to four registers.
constexpr int64_t kPackBlock = 16, kPackRow = 64;

/// How the transpose in front of input `prologue.input` is tiled inside one
/// outer tile: block sizes over its loops (its result dims), and the order
/// that walks its source row by row.
static EpilogueTiling packTiling(const Problem &p, const PrologueOp &prologue,
                                 ArrayRef<unsigned> resultDims,
                                 const EpilogueTiling &outer) {
  EpilogueTiling tiling;
  unsigned numLoops = p.loopRanges.size();
  std::optional<SmallVector<int>> operandLoops =
      mapResultLoops(p.indexingMaps[prologue.input], numLoops);
  std::optional<SmallVector<int>> sourceDims =
      mapResultLoops(prologue.map, operandLoops ? operandLoops->size() : 0);
  if (!operandLoops || !sourceDims || sourceDims->empty() ||
      llvm::is_contained(*operandLoops, -1) ||
      llvm::is_contained(*sourceDims, -1))
    return tiling;
  unsigned rank = operandLoops->size();
  // Innermost dims of the panel and of the source: the block's two dims.
  unsigned panelInner = rank - 1, sourceInner = sourceDims->back();
  for (auto [dim, loop] : llvm::enumerate(*operandLoops)) {
    int64_t extent = p.loopRanges[loop];
    const auto *pos = llvm::find(resultDims, static_cast<unsigned>(loop));
    if (pos != resultDims.end() && outer.sizes[pos - resultDims.begin()])
      extent = outer.sizes[pos - resultDims.begin()];
    bool blockDim = dim == panelInner || dim == sourceInner;
    int64_t block = panelInner == sourceInner ? kPackRow : kPackBlock;
    tiling.sizes.push_back(blockDim ? largestDivisorAtMost(extent, block) : 1);
  }
  tiling.interchange.assign(sourceDims->begin(), sourceDims->end());
  if (llvm::equal(tiling.interchange, llvm::seq<int64_t>(0, rank)))
    tiling.interchange.clear();
  return tiling;
}

/// Elements per vectorized row of an epilogue op whose innermost dim spans
/// `extent` inside a tile: four AVX-512 f32 vectors at most.
static int64_t rowChunk(int64_t extent) {
  return largestDivisorAtMost(extent, 64);
}

/// The root's own steps: reduction and register tiling, decomposition,
/// vectorization, unrolling.
static void emitRootSteps(raw_ostream &os, ActionWriter &writer,
                          const SpecEntry &entry) {
  const CpuConfig &c = entry.config;
  if (!allZero(c.reductionTiles))
    writer.tileFor(c.reductionTiles, {});
  SmallVector<std::string> registerLoops =
      writer.tileFor(c.registerTiles, c.registerInterchange);
  if (c.decompose)
    writer.decompose();
  // Named contractions vectorize to mul + multi_reduction unless asked for
  // vector.contract (pitfall 5); generics are rewritten by the driver.
  writer.vectorize(entry.problem.kind == OpKind::Contraction &&
                   entry.problem.opName != "linalg.generic");
  if (c.kUnroll > 1 && !registerLoops.empty())
    os << formatv("    transform.loop.unroll {0} {{factor = {1}} : "
                  "!transform.any_op\n",
                  registerLoops.back(), c.kUnroll);
}

std::string emitAction(const SpecEntry &entry) {
  const Problem &p = entry.problem;
  const CpuConfig &c = entry.config;
  std::string text;
  raw_string_ostream os(text);
  SmallVector<unsigned> dims = resultDims(p);
  bool joined = !p.epilogue.empty() || !p.prologue.empty();
  std::optional<EpilogueTiling> fused =
      joined ? epilogueTiling(p, c, dims) : std::nullopt;
  // Fused, only the tail's handle is consumed: the rest are found again
  // inside the tiles by their attributes.
  auto effect = [&](bool isTail) {
    return !fused || isTail ? "{transform.consumed}" : "{transform.readonly}";
  };
  os << formatv("  transform.named_sequence @apply_{0}(%op: !transform.any_op "
                "{1}",
                entry.symbol, effect(p.epilogue.empty()));
  for (unsigned i = 0; i < p.epilogue.size(); ++i)
    os << ", %e" << i << ": !transform.any_op "
       << effect(i + 1 == p.epilogue.size());
  os << ") {\n";
  ActionWriter writer(os);
  unsigned resultRank = dims.size();
  // Elements along the innermost result dim of the whole result.
  int64_t innermost = dims.empty() ? 1 : p.loopRanges[dims.back()];
  if (fused) {
    // The dispatch's tiles: operand transposes, fill, root and epilogue in
    // one loop nest, the root's result never leaving the tile between them
    // and each transposed panel packed once per tile.
    std::string tail = p.epilogue.empty()
                           ? "%op"
                           : "%e" + std::to_string(p.epilogue.size() - 1);
    std::string loop =
        writer.fuse(tail, fused->sizes, fused->interchange, c.threads > 1);
    writer.matchIn(loop, kRootAttr);
    for (const PrologueOp &prologue : p.prologue) {
      EpilogueTiling blocks = packTiling(p, prologue, dims, *fused);
      if (!blocks.sizes.empty())
        writer.packPanel(prologue.input, isCopy(prologue), blocks.sizes,
                         blocks.interchange);
    }
    emitRootSteps(os, writer, entry);
    int64_t innerExtent = fused->sizes.back() ? fused->sizes.back() : innermost;
    writer.vectorizeRows(writer.matchOps(loop, "ops{[\"linalg.fill\"]}"),
                         resultRank, rowChunk(innerExtent));
    if (!p.epilogue.empty())
      writer.vectorizeRows(
          writer.matchOps(loop, ("attributes{" + kEpilogueAttr + "}").str()),
          resultRank, rowChunk(innerExtent));
  } else {
    if (!allZero(c.outerTiles)) {
      if (c.threads > 1)
        writer.tileForall(c.outerTiles);
      else
        writer.tileFor(c.outerTiles, c.outerInterchange);
    }
    emitRootSteps(os, writer, entry);
    // An epilogue the outer tiles cannot carry runs after the root, row by
    // row.
    for (unsigned i = 0; resultRank > 0 && i < p.epilogue.size(); ++i)
      writer.vectorizeRows("%e" + std::to_string(i), resultRank,
                           rowChunk(innermost));
  }
  os << "    transform.yield\n  }\n";
  return text;
}

std::string
emitEntryPoint(ArrayRef<std::pair<std::string, std::string>> pairs) {
  std::string text;
  raw_string_ostream os(text);
  // An empty spec hands the root through untouched: read-only.
  os << "  transform.named_sequence @" << kSpecEntryPoint
     << "(%root: !transform.any_op {transform."
     << (pairs.empty() ? "readonly" : "consumed")
     << "}) -> !transform.any_op {\n";
  if (pairs.empty()) {
    os << "    transform.yield %root : !transform.any_op\n  }\n";
    return text;
  }
  os << "    %result = transform.foreach_match in %root\n";
  for (auto [i, pair] : llvm::enumerate(pairs))
    os << "        @" << pair.first << " -> @" << pair.second
       << (i + 1 == pairs.size() ? "\n" : ",\n");
  os << "        : (!transform.any_op) -> !transform.any_op\n";
  os << "    transform.yield %result : !transform.any_op\n  }\n";
  return text;
}

std::string emitSpecModule(ArrayRef<SpecEntry> entries,
                           StringRef headerComment) {
  std::string text;
  raw_string_ostream os(text);
  if (!headerComment.empty())
    for (StringRef line : split(headerComment, '\n'))
      os << "// " << line << "\n";
  os << "module attributes {transform.with_named_sequence} {\n";
  SmallVector<std::pair<std::string, std::string>> pairs;
  for (const SpecEntry &entry : entries) {
    os << emitMatcher(entry) << emitAction(entry);
    pairs.emplace_back("match_" + entry.symbol, "apply_" + entry.symbol);
  }
  os << emitEntryPoint(pairs) << "}\n";
  return text;
}

} // namespace retune::cpu
