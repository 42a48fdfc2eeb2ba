//===- IreeSpec.cpp - Tuning specs in IREE's format -----------------------===//
#include "stages/backends/iree/IreeSpec.h"

#include "stages/backends/iree/IreeIr.h"
#include "stages/backends/iree/IreeTextVerifier.h"
#include "stages/backends/iree/TransformText.h"
#include "stages/core/IndexingMap.h"
#include "stages/support/FileUtil.h"
#include "stages/support/HashedFile.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <map>

using namespace llvm;

namespace retune::iree {

namespace {

std::string sanitize(StringRef text) {
  std::string out;
  for (char c : text)
    out += (isAlnum(c) || c == '_') ? c : '_';
  return out;
}

std::string intList(ArrayRef<int64_t> values) {
  return "[" +
         join(map_range(values, [](int64_t v) { return std::to_string(v); }),
              ", ") +
         "]";
}

SmallVector<int64_t> rangesWithRole(const Problem &p, char role) {
  SmallVector<int64_t> out;
  for (unsigned dim : p.dimsWithRole(role))
    out.push_back(p.loopRanges[dim]);
  return out;
}

std::string mapList(const Problem &p) {
  return "[" + join(p.indexingMaps, ", ") + "]";
}

std::string typeAt(const Problem &p, size_t index) {
  return index < p.elementTypes.size() ? p.elementTypes[index] : "f32";
}

constexpr StringLiteral kParamI64 = "!transform.param<i64>";

void emitDimsEqual(std::string &out, StringRef handle, ArrayRef<int64_t> dims) {
  out += "    transform.iree.match.dims_equal %" + handle.str() + ", " +
         intList(dims) + " : " + kParamI64.str() + "\n";
}

/// The tensor type operand `index` has: its map's loops' ranges.
std::string tensorTypeAt(const Problem &p, size_t index) {
  std::optional<IndexingMap> map =
      parseIndexingMap(p.indexingMaps[index], p.loopRanges.size());
  std::string type = "tensor<";
  if (map)
    for (int loop : map->resultLoops())
      type += (loop >= 0 ? std::to_string(p.loopRanges[loop]) : "?") + "x";
  return type + typeAt(p, index) + ">";
}

/// An op that only moves data (IreeReader: a transpose, copy or broadcast of
/// its one input) has no named matcher in IREE; it is matched as the DAG of
/// that one `linalg.generic`, whose body yields the input's element.
void emitDataMovementMatch(std::string &out, const Problem &p) {
  std::string in = tensorTypeAt(p, 0), result = tensorTypeAt(p, 1);
  std::string iterators = join(
      map_range(p.iteratorTypes,
                [](const std::string &it) { return "\"" + it + "\""; }),
      ", ");
  out += "    %inputs, %outputs = "
         "transform.iree.match.cast_compatible_dag_from_root %arg0 {\n"
         "    ^bb0(%in: " + in + ", %init: " + result + "):\n"
         "      %moved = linalg.generic {indexing_maps = " + mapList(p) +
         ", iterator_types = [" + iterators + "]} ins(%in : " + in +
         ") outs(%init : " + result + ") {\n"
         "      ^bb0(%element: " + typeAt(p, 0) + ", %unused: " +
         typeAt(p, 1) + "):\n"
         "        linalg.yield %element : " + typeAt(p, 0) + "\n"
         "      } -> " + result + "\n"
         "    } : (!transform.any_op) -> (!transform.any_value, "
         "!transform.any_value)\n";
}

/// The matcher body for one entry (after the signature line).
void emitMatchBody(std::string &out, const SpecEntry &entry) {
  const Problem &p = entry.problem;
  std::string outType = typeAt(p, p.numInputs);
  switch (p.kind) {
  case OpKind::Contraction:
    out += "    %batch, %m, %n, %k = transform.iree.match.contraction %arg0, "
           "lhs_type = " +
           typeAt(p, 0) + ", rhs_type = " + typeAt(p, 1) +
           ", output_type = " + outType + ", indexing_maps = " + mapList(p) +
           " : !transform.any_op -> " + kParamI64.str() + "\n";
    emitDimsEqual(out, "batch", rangesWithRole(p, 'b'));
    emitDimsEqual(out, "m", rangesWithRole(p, 'm'));
    emitDimsEqual(out, "n", rangesWithRole(p, 'n'));
    emitDimsEqual(out, "k", rangesWithRole(p, 'k'));
    break;
  case OpKind::Convolution: {
    out += "    %batch, %output_image, %output_channel, %filter, "
           "%input_channel, %depth, %strides, %dilations = "
           "transform.iree.match.convolution %arg0, lhs_type = " +
           typeAt(p, 0) + ", rhs_type = " + typeAt(p, 1) +
           ", output_type = " + outType + ", indexing_maps = " + mapList(p) +
           " : !transform.any_op -> " + kParamI64.str() + "\n";
    emitDimsEqual(out, "batch", rangesWithRole(p, 'b'));
    emitDimsEqual(out, "output_image", rangesWithRole(p, 'o'));
    emitDimsEqual(out, "output_channel", rangesWithRole(p, 'f'));
    emitDimsEqual(out, "filter", rangesWithRole(p, 'r'));
    emitDimsEqual(out, "input_channel", rangesWithRole(p, 'c'));
    emitDimsEqual(out, "depth", rangesWithRole(p, 'd'));
    ConvGeometry geometry = convGeometry(p);
    emitDimsEqual(out, "strides", geometry.strides);
    emitDimsEqual(out, "dilations", geometry.dilations);
    break;
  }
  case OpKind::Attention:
    out += "    %batch, %m, %n, %k1, %k2 = transform.iree.match.attention "
           "%arg0, query_type = " +
           typeAt(p, 0) + ", key_type = " + typeAt(p, 1) +
           ", value_type = " + typeAt(p, 2) + ", output_type = " + outType +
           ", indexing_maps = " + mapList(p) + " : !transform.any_op -> " +
           kParamI64.str() + "\n";
    emitDimsEqual(out, "batch", rangesWithRole(p, 'b'));
    emitDimsEqual(out, "m", rangesWithRole(p, 'm'));
    emitDimsEqual(out, "n", rangesWithRole(p, 'n'));
    emitDimsEqual(out, "k1", rangesWithRole(p, 'k'));
    emitDimsEqual(out, "k2", rangesWithRole(p, 'l'));
    break;
  case OpKind::Elementwise:
    // A computing body is matched by the DAG IREE's library printed
    // (Problem::rootDag, already at this indentation); data movement by a
    // DAG built from the problem.
    if (!p.rootDag.empty())
      out += p.rootDag;
    else
      emitDataMovementMatch(out, p);
    break;
  }
}

bool usesDecomposition(const SpecEntry &entry) {
  return entry.problem.kind == OpKind::Attention &&
         !entry.decompositionConfig.empty();
}

} // namespace

std::string matcherName(const SpecEntry &entry) {
  if (!entry.symbolSuffix.empty())
    return "match_" + sanitize(entry.symbolSuffix);
  return "match_" + sanitize(entry.problem.readableName()) + "_" +
         entry.problem.stableId();
}

ConvGeometry convGeometry(const Problem &p) {
  ConvGeometry geometry;
  SmallVector<unsigned> outDims = p.dimsWithRole('o');
  SmallVector<unsigned> filterDims = p.dimsWithRole('r');
  geometry.strides.assign(outDims.size(), 1);
  geometry.dilations.assign(filterDims.size(), 1);
  if (p.indexingMaps.empty())
    return geometry;
  static mlir::MLIRContext *context = new mlir::MLIRContext();
  auto mapAttr = dyn_cast_if_present<mlir::AffineMapAttr>(
      mlir::parseAttribute(p.indexingMaps.front(), context));
  if (!mapAttr)
    return geometry;
  for (mlir::AffineExpr result : mapAttr.getValue().getResults()) {
    // Collect `d_i * c` terms of a sum.
    std::map<unsigned, int64_t> terms;
    std::function<void(mlir::AffineExpr)> collect = [&](mlir::AffineExpr e) {
      if (auto bin = dyn_cast<mlir::AffineBinaryOpExpr>(e)) {
        if (e.getKind() == mlir::AffineExprKind::Add) {
          collect(bin.getLHS());
          collect(bin.getRHS());
          return;
        }
        if (e.getKind() == mlir::AffineExprKind::Mul) {
          auto dim = dyn_cast<mlir::AffineDimExpr>(bin.getLHS());
          auto cst = dyn_cast<mlir::AffineConstantExpr>(bin.getRHS());
          if (dim && cst)
            terms[dim.getPosition()] = cst.getValue();
          return;
        }
      }
      if (auto dim = dyn_cast<mlir::AffineDimExpr>(e))
        terms[dim.getPosition()] = 1;
    };
    collect(result);
    for (auto [pos, coeff] : terms) {
      auto o = find(outDims, pos);
      if (o != outDims.end())
        geometry.strides[o - outDims.begin()] = coeff;
      auto r = find(filterDims, pos);
      if (r != filterDims.end())
        geometry.dilations[r - filterDims.begin()] = coeff;
    }
  }
  return geometry;
}

std::string emitTuningSpec(ArrayRef<SpecEntry> entries) {
  if (entries.empty())
    return emitEmptySpec();
  std::string out =
      "module attributes {iree_codegen.tuning_spec_with_default_entrypoint, "
      "transform.with_named_sequence} {\n";
  out += "  transform.named_sequence @apply_op_config(%arg0: !transform.any_op "
         "{transform.readonly}, %arg1: !transform.any_param "
         "{transform.readonly}) {\n"
         "    transform.annotate %arg0 \"compilation_info\" = %arg1 : "
         "!transform.any_op, !transform.any_param\n"
         "    transform.yield\n"
         "  }\n";
  if (any_of(entries, usesDecomposition))
    out += "  transform.named_sequence @apply_attn_op_config(%arg0: "
           "!transform.any_op {transform.readonly}, %arg1: "
           "!transform.any_param {transform.readonly}, %arg2: "
           "!transform.any_param {transform.readonly}) {\n"
           "    transform.annotate %arg0 \"compilation_info\" = %arg1 : "
           "!transform.any_op, !transform.any_param\n"
           "    transform.annotate %arg0 \"decomposition_config\" = %arg2 : "
           "!transform.any_op, !transform.any_param\n"
           "    transform.yield\n"
           "  }\n";
  SmallVector<std::pair<std::string, std::string>> pairs;
  StringSet<> used;
  for (const SpecEntry &entry : entries) {
    std::string name = matcherName(entry);
    for (unsigned k = 1; used.contains(name); ++k)
      name = matcherName(entry) + "_" + std::to_string(k);
    used.insert(name);
    bool decomposed = usesDecomposition(entry);
    out += "  transform.named_sequence @" + name +
           "(%arg0: !transform.any_op {transform.readonly}) -> "
           "(!transform.any_op, !transform.any_param" +
           (decomposed ? ", !transform.any_param" : "") + ") {\n";
    emitMatchBody(out, entry);
    out += "    %config = transform.param.constant " + entry.compilationInfo +
           " -> !transform.any_param\n";
    if (decomposed) {
      out += "    %decomposition_config = transform.param.constant " +
             entry.decompositionConfig + " -> !transform.any_param\n";
      out += "    transform.yield %arg0, %config, %decomposition_config : "
             "!transform.any_op, !transform.any_param, !transform.any_param\n";
    } else {
      out += "    transform.yield %arg0, %config : !transform.any_op, "
             "!transform.any_param\n";
    }
    out += "  }\n";
    pairs.push_back(
        {name, decomposed ? "apply_attn_op_config" : "apply_op_config"});
  }
  out += "  transform.named_sequence @__kernel_config(%arg0: !transform.any_op "
         "{transform.consumed}) -> !transform.any_op attributes "
         "{iree_codegen.tuning_spec_entrypoint} {\n";
  out += "    %0 = transform.foreach_match in %arg0\n";
  for (auto [index, pair] : enumerate(pairs))
    out += "        @" + pair.first + " -> @" + pair.second +
           (index + 1 < pairs.size() ? ",\n" : "\n");
  out += "      : (!transform.any_op) -> !transform.any_op\n";
  out += "    transform.yield %0 : !transform.any_op\n";
  out += "  }\n}\n";
  return out;
}

std::string emitEmptySpec() {
  return "module attributes {transform.with_named_sequence} {\n"
         "  transform.named_sequence @__kernel_config(%arg0: "
         "!transform.any_op {transform.readonly}) -> !transform.any_op "
         "attributes {iree_codegen.tuning_spec_entrypoint} {\n"
         "    transform.yield %arg0 : !transform.any_op\n"
         "  }\n"
         "}\n";
}

std::string cpuLoweringConfig(const CpuTileSizes &tiles) {
  auto level = [](ArrayRef<int64_t> values, ArrayRef<bool> scalable) {
    std::string text = "[";
    for (auto [i, v] : enumerate(values)) {
      if (i)
        text += ", ";
      bool isScalable = i < scalable.size() && scalable[i] && v != 0;
      text += isScalable ? "[" + std::to_string(v) + "]" : std::to_string(v);
    }
    return text + "]";
  };
  SmallVector<std::string> fields;
  auto add = [&](StringRef key, ArrayRef<int64_t> values,
                 ArrayRef<bool> scalable = {}) {
    if (!values.empty())
      fields.push_back(key.str() + " = " + level(values, scalable));
  };
  add("distribution", tiles.distribution);
  add("cache_parallel", tiles.cacheParallel);
  add("cache_reduction", tiles.cacheReduction);
  add("vector_common_parallel", tiles.vectorCommonParallel,
      tiles.scalableVector);
  add("vector_reduction", tiles.vectorReduction, tiles.scalableVector);
  add("vector_inner_parallel", tiles.vectorInnerParallel, tiles.scalableVector);
  return "#iree_cpu.lowering_config<" + join(fields, ", ") + ">";
}

std::string cpuCompilationInfo(const CpuTileSizes &tiles, StringRef pipeline) {
  return "#iree_codegen.compilation_info<lowering_config = " +
         cpuLoweringConfig(tiles) +
         ", translation_info = #iree_codegen.translation_info<pipeline = " +
         pipeline.str() + ">>";
}

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

namespace {
/// IREE's own verifier (run as IREE parses the spec: its attribute rules,
/// the transform ops, foreach_match's symbols), then what loading needs.
Error verifyWithIree(const IreeIrLibrary &library, StringRef specText,
                     StringRef fileName) {
  Expected<std::unique_ptr<IreeIrModule>> parsed =
      library.parse(specText, fileName);
  if (!parsed)
    return parsed.takeError();
  IreeIrOp spec = (*parsed)->op();
  auto where = [&](const IreeIrOp &op) {
    return (fileName + ":" + Twine(op.line()) + ": ").str();
  };
  if (!spec.hasAttr(kWithNamedSequenceAttr))
    return makeError(where(spec) + "the spec module lacks '" +
                     kWithNamedSequenceAttr +
                     "'; IREE refuses to load it (add the attribute)");
  std::vector<std::string> errors;
  unsigned entries = 0;
  for (const IreeIrOp &op : spec.children()) {
    if (op.name() != "transform.named_sequence" ||
        !op.hasAttr(kEntrypointAttr))
      continue;
    ++entries;
    std::string argAttrs = op.attr("arg_attrs");
    if (!StringRef(argAttrs).contains("transform.readonly") &&
        !StringRef(argAttrs).contains("transform.consumed"))
      errors.push_back(where(op) + "the argument of entry point @" +
                       op.symbolName() +
                       " must be {transform.readonly} or {transform.consumed}");
  }
  if (!entries)
    errors.push_back(where(spec) + "no named sequence carries '" +
                     kEntrypointAttr.str() +
                     "'; IREE would apply nothing (mark the entry point, "
                     "usually @__kernel_config)");
  if (errors.empty())
    return Error::success();
  return makeError(join(errors, "\n"));
}
} // namespace

Error verifyTuningSpec(StringRef specText, StringRef fileName,
                       const IreeIrLibrary *library) {
  if (library)
    return verifyWithIree(*library, specText, fileName);
  return verifySpecAsText(specText, fileName);
}

Error writeTuningSpec(StringRef path, StringRef specText,
                      const IreeIrLibrary *library) {
  if (Error err = verifyTuningSpec(specText, path, library))
    return makeError("refusing to write a spec IREE would reject:\n" +
                     toString(std::move(err)));
  return writeHashedFile(path, specText);
}

} // namespace retune::iree
