//===- CpuSpec.cpp - Transform-dialect specs for CPU configs --------------===//
//
// The text follows what MLIR 22 accepts (see docs/cpu-backend.md): matchers
// contain only match ops, parameters are compared one value at a time, and
// attribute equality (maps, types) uses merge_handles(deduplicate) +
// num_associations == 1 because no attribute-equality matcher exists.
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/CpuSpec.h"

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

std::string emitMatcher(const SpecEntry &entry) {
  const Problem &p = entry.problem;
  std::string text;
  raw_string_ostream os(text);
  os << formatv("  // {0}: {1} {2}\n", entry.symbol, p.opName,
                list(p.loopRanges));
  os << formatv("  transform.named_sequence @match_{0}(%op: !transform.any_op "
                "{{transform.readonly}) -> !transform.any_op {{\n",
                entry.symbol);
  os << formatv("    transform.match.operation_name %op [\"{0}\"] : "
                "!transform.any_op\n",
                p.opName);
  os << "    transform.match.structured failures(propagate) %op : "
        "!transform.any_op {\n";
  os << "    ^bb0(%s: !transform.any_op):\n";
  os << "      %c1 = transform.param.constant 1 : i64 -> "
        "!transform.param<i64>\n";
  os << "      %rank = transform.match.structured.rank %s : "
        "(!transform.any_op) -> !transform.param<i64>\n";
  os << formatv("      %want_rank = transform.param.constant {0} : i64 -> "
                "!transform.param<i64>\n",
                p.loopRanges.size());
  os << "      transform.match.param.cmpi eq %rank, %want_rank : "
        "!transform.param<i64>\n";
  for (auto [i, range] : llvm::enumerate(p.loopRanges)) {
    os << formatv("      %d{0} = transform.match.structured.dim %s[{0}] : "
                  "(!transform.any_op) -> !transform.param<i64>\n",
                  i);
    os << formatv("      %want_d{0} = transform.param.constant {1} : i64 -> "
                  "!transform.param<i64>\n",
                  i, range);
    os << formatv("      transform.match.param.cmpi eq %d{0}, %want_d{0} : "
                  "!transform.param<i64>\n",
                  i);
  }
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
  os << "    }\n";
  os << "    transform.yield %op : !transform.any_op\n";
  os << "  }\n";
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

std::string emitAction(const SpecEntry &entry) {
  const CpuConfig &c = entry.config;
  std::string text;
  raw_string_ostream os(text);
  os << formatv("  transform.named_sequence @apply_{0}(%op: !transform.any_op "
                "{{transform.consumed}) {{\n",
                entry.symbol);
  ActionWriter writer(os);
  if (!allZero(c.outerTiles)) {
    if (c.threads > 1)
      writer.tileForall(c.outerTiles);
    else
      writer.tileFor(c.outerTiles, c.outerInterchange);
  }
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
