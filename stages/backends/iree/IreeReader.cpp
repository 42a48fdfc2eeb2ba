//===- IreeReader.cpp - Reading IREE's dumped dispatch benchmarks ---------===//
#include "stages/backends/iree/IreeReader.h"

#include "stages/backends/iree/IreeIr.h"
#include "stages/backends/iree/IreeTextReader.h"
#include "stages/backends/iree/RootOpProblem.h"
#include "stages/support/FileUtil.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>

using namespace llvm;

namespace retune::iree {

cpu::CpuHost IreeTarget::cpuHost() const {
  cpu::CpuHost host;
  host.cpuName = arch;
  StringRef features = cpuFeatures;
  if (features.contains("+avx512f")) {
    host.vectorBits = 512;
    host.vectorRegisters = 32;
  } else if (features.contains("+avx")) {
    host.vectorBits = 256;
  } else {
    host.vectorBits = 128;
    host.vectorRegisters = 32; // AArch64 NEON, RISC-V V: 32 registers.
  }
  if (!arch.empty() && arch == sys::getHostCPUName()) {
    // Read once: every dispatch of a stage asks.
    static const cpu::CpuHost machine = cpu::detectHost();
    host.l1Bytes = machine.l1Bytes;
    host.l2Bytes = machine.l2Bytes;
    host.l3Bytes = machine.l3Bytes;
    host.l1SetPeriodBytes = machine.l1SetPeriodBytes;
  }
  return host;
}

Expected<std::vector<IreeTarget>>
readIreeTargets(StringRef text, StringRef fileName,
                const IreeIrLibrary *library) {
  if (library) {
    Expected<std::unique_ptr<IreeIrModule>> module =
        library->parse(text, fileName);
    if (!module)
      return module.takeError();
    std::vector<IreeTarget> targets;
    Error error = Error::success();
    (*module)->walk([&](IreeIrOp op, ArrayRef<IreeIrOp>) {
      if (op.name() != "hal.executable.variant" || error)
        return;
      Expected<IreeTarget> target = readIreeTarget(
          op.attr("target"), (fileName + ":" + Twine(op.line())).str());
      if (target)
        targets.push_back(std::move(*target));
      else
        error = target.takeError();
    });
    if (error)
      return std::move(error);
    return targets;
  }
  return readTargetsAsText(text, fileName);
}

namespace {

/// Transform IR that checks the types of `op`'s first `count` operands.
std::string operandTypeChecks(const IreeIrOp &op, unsigned count) {
  std::string out;
  for (unsigned i = 0; i < count; ++i)
    out += formatv("    %operand{0} = transform.get_operand %arg0[{0}] : "
                   "(!transform.any_op) -> !transform.any_value\n"
                   "    transform.iree.match.cast_compatible_type %operand{0} "
                   "= {1} : !transform.any_value\n",
                   i, op.operandType(i))
               .str();
  return out;
}

/// The names under which a producer meets a tuning spec: IREE's dumped
/// benchmarks read a dispatch's binding with `load_from_buffer`, the whole
/// model's compile with `dispatch.tensor.load` when it applies the spec.
std::string namesInEitherCompile(StringRef name) {
  if (name == "iree_codegen.load_from_buffer" ||
      name == "iree_tensor_ext.dispatch.tensor.load")
    return "\"iree_codegen.load_from_buffer\", "
           "\"iree_tensor_ext.dispatch.tensor.load\"";
  return "\"" + name.str() + "\"";
}

/// Transform IR that checks where `op` sits in its dispatch as the dump
/// has it: the name of the op that produces its first operand. Matched by
/// its types alone, a pack root would also match a pack of the same types
/// fused after another root (an MLP's pack of the next layer's input after
/// its bias and ReLU), and IREE refuses a dispatch in which two ops set the
/// translation; an op matched by its shape could meet the same fate. The
/// op that uses its result cannot be checked: a matcher may only hold
/// match ops, and `transform.get_consumers_of_result` is none.
std::string producerCheck(const IreeIrOp &op) {
  std::optional<IreeIrOp> producer = op.definingOp(op.operand(0));
  if (!producer)
    return "";
  return formatv("    %producer = transform.get_producer_of_operand "
                 "%arg0[0] : (!transform.any_op) -> !transform.any_op\n"
                 "    transform.match.operation_name %producer [{0}] : "
                 "!transform.any_op\n",
                 namesInEitherCompile(producer->name()))
      .str();
}

/// Transform IR that matches `op` by what it computes over (its name, its
/// loops and their kinds, its operands' types) rather than by its body;
/// the body's ops are named in a comment, which keeps two such ops apart in
/// the Problem's id. The operand checks come after the count checks: a
/// `transform.get_operand` past the end would fail the whole spec.
std::string shapeMatcher(const IreeIrOp &op, const Problem &problem) {
  std::vector<std::string> bodyOps;
  for (const IreeIrOp &bodyOp : op.children())
    bodyOps.push_back(bodyOp.name().str());
  auto dimsOfKind = [&](StringRef kind) {
    SmallVector<std::string> dims;
    for (auto [i, type] : enumerate(problem.iteratorTypes))
      if (type == kind)
        dims.push_back(std::to_string(i));
    return dims;
  };
  auto expectParam = [](StringRef name, StringRef producer, size_t value) {
    return formatv("      %{0} = {1} %structured : (!transform.any_op) -> "
                   "!transform.param<i64>\n"
                   "      %{0}_wanted = transform.param.constant {2} : i64 -> "
                   "!transform.param<i64>\n"
                   "      transform.match.param.cmpi eq %{0}, %{0}_wanted : "
                   "!transform.param<i64>\n",
                   name, producer, value)
        .str();
  };
  std::string out =
      "    // matched by shape; its body reads values defined outside it: " +
      join(bodyOps, ", ") + "\n";
  out += "    transform.match.operation_name %arg0 [\"" + op.name().str() +
         "\"] : !transform.any_op\n";
  out += "    %structured_root = transform.match.structured failures(propagate) "
         "%arg0 : (!transform.any_op) -> !transform.any_op {\n"
         "    ^bb0(%structured: !transform.any_op):\n";
  out += expectParam("rank", "transform.match.structured.rank",
                     problem.iteratorTypes.size());
  out += expectParam("num_inputs", "transform.match.structured.num_inputs",
                     problem.numInputs);
  out += expectParam("num_inits", "transform.match.structured.num_inits",
                     op.numOperands() - problem.numInputs);
  for (StringRef kind : {"parallel", "reduction"})
    if (SmallVector<std::string> dims = dimsOfKind(kind); !dims.empty())
      out += "      \"transform.match.structured.dim\"(%structured) "
             "<{raw_dim_list = array<i64: " + join(dims, ", ") + ">, " +
             kind.str() + "}> : (!transform.any_op) -> ()\n";
  out += "      transform.match.structured.yield %structured : "
         "!transform.any_op\n"
         "    }\n";
  return out + operandTypeChecks(op, op.numOperands()) + producerCheck(op);
}

/// A dense i64 array attribute of `op` (`array<i64: 1, 2>`); empty when
/// absent or not one.
SmallVector<int64_t> denseIntegers(const IreeIrOp &op, StringRef name,
                                   mlir::MLIRContext &context) {
  std::string text = op.attr(name);
  auto array = text.empty() ? nullptr
                            : dyn_cast_if_present<mlir::DenseI64ArrayAttr>(
                                  mlir::parseAttribute(text, &context));
  if (!array)
    return {};
  return SmallVector<int64_t>(array.asArrayRef());
}

/// A `linalg.pack` or `linalg.unpack` root (data tiling's change of
/// layout) as an elementwise problem over the loops IREE tiles it by: a
/// pack's destination's outer dims, in their order; an unpack's result's
/// dims. 'v' marks the loop that walks the unpacked side's innermost dim,
/// the one contiguous there (for a pack, only when its inner tiles leave
/// that dim untiled). Such an op is neither structured nor has a
/// body for IREE's DAG matcher: it is matched by its name and its source's
/// and destination's types, its tiling named in a comment (which keeps two
/// such ops apart in the Problem's id).
Expected<Problem> layoutProblem(const IreeIrOp &op, StringRef target,
                                StringRef where) {
  StringRef name = op.name();
  if (!target.starts_with("cpu:"))
    return makeError(where + ": root op '" + name +
                     "' is tuned on CPU targets only");
  if (op.numOperands() < 2)
    return makeError(where + ": '" + name + "' without a destination");
  std::unique_ptr<mlir::MLIRContext> context = makeReaderContext();
  DiagnosticCapture diagnostics(*context);
  Problem problem;
  problem.kind = OpKind::Elementwise;
  problem.opName = name.str();
  problem.target = target.str();
  problem.numInputs = 1;
  SmallVector<mlir::Type> types;
  for (unsigned i = 0; i < 2; ++i)
    if (Error err = addOperandType(problem, types, op.operandType(i), *context,
                                   diagnostics, where))
      return std::move(err);
  bool pack = name == "linalg.pack";
  auto unpacked = dyn_cast<mlir::RankedTensorType>(types[pack ? 0 : 1]);
  auto packed = dyn_cast<mlir::RankedTensorType>(types[pack ? 1 : 0]);
  if (!unpacked || !packed || packed.getRank() < unpacked.getRank())
    return makeError(where + ": '" + name + "' is not between ranked tensors");
  int64_t rank = unpacked.getRank();
  SmallVector<int64_t> perm = denseIntegers(op, "outer_dims_perm", *context);
  if (perm.empty())
    llvm::append_range(perm, llvm::seq<int64_t>(0, rank));
  const int64_t *innermost = llvm::find(perm, rank - 1);
  if (int64_t(perm.size()) != rank || innermost == perm.end())
    return makeError(where + ": cannot read the outer_dims_perm of '" + name +
                     "'");
  ArrayRef<int64_t> loops = pack ? packed.getShape().take_front(rank)
                                 : unpacked.getShape();
  problem.loopRanges.assign(loops.begin(), loops.end());
  problem.iteratorTypes.assign(rank, "parallel");
  problem.dimRoles.assign(rank, 'p');
  // A pack that tiles the source's innermost dim already reads it in runs
  // of whole tiles; one that does not (a matmul LHS's 8x1 tiles) gathers
  // each tile from several rows unless vectorized along that dim.
  int64_t innermostTile = 1;
  for (auto [dim, tile] :
       zip(denseIntegers(op, "inner_dims_pos", *context),
           denseIntegers(op, "static_inner_tiles", *context)))
    if (dim == rank - 1)
      innermostTile = tile;
  if (!pack)
    problem.dimRoles[rank - 1] = 'v';
  else if (innermostTile == 1)
    problem.dimRoles[innermost - perm.begin()] = 'v';
  std::string tiling =
      formatv("{0} inner_dims_pos = {1}, inner_tiles = {2}, outer_dims_perm = "
              "{3}",
              name, op.attr("inner_dims_pos"), op.attr("static_inner_tiles"),
              op.attr("outer_dims_perm"))
          .str();
  problem.rootDag = "    // matched by name and operand types: " + tiling +
                    "\n    transform.match.operation_name %arg0 [\"" +
                    name.str() + "\"] : !transform.any_op\n" +
                    operandTypeChecks(op, 2) + producerCheck(op);
  return sealProblem(std::move(problem), {}, where);
}

/// The Problem of `op` as IREE's own library reads it: its operands' types,
/// its indexing maps (implicit ones too), its iterator types (named ops:
/// a loop no init indexes is a reduction) and its body.
Expected<Problem> problemFromIreeOp(const IreeIrOp &op, StringRef target,
                                    StringRef fileName) {
  std::string where = (fileName + ":" + Twine(op.line())).str();
  std::string name = op.name().str();
  if (name == "linalg.pack" || name == "linalg.unpack")
    return layoutProblem(op, target, where);
  bool attention = name == "iree_linalg_ext.attention";
  if (!attention && !StringRef(name).starts_with("linalg."))
    return makeError(where + ": root op '" + name +
                     "' is not a linalg op or iree_linalg_ext.attention; it "
                     "is not tuned");
  std::unique_ptr<mlir::MLIRContext> context = makeReaderContext();
  DiagnosticCapture diagnostics(*context);
  Problem problem;
  problem.opName = name;
  problem.target = target.str();
  // Destination-passing style on tensors: one init per result.
  problem.numInputs = op.numOperands() - op.numResults();
  SmallVector<mlir::Type> operandTypes;
  for (unsigned i = 0; i < op.numOperands(); ++i)
    if (Error err = addOperandType(problem, operandTypes, op.operandType(i),
                                   *context, diagnostics, where))
      return std::move(err);
  std::string mapsText = op.linalgIndexingMaps();
  if (mapsText.empty())
    return makeError(where + ": root op '" + name +
                     "' has no indexing maps (not a structured op); it is "
                     "not tuned");
  auto array = dyn_cast_if_present<mlir::ArrayAttr>(
      mlir::parseAttribute(mapsText, context.get()));
  SmallVector<mlir::AffineMap> maps;
  if (array)
    for (mlir::Attribute attr : array)
      if (auto map = dyn_cast<mlir::AffineMapAttr>(attr))
        maps.push_back(map.getValue());
  if (maps.empty() || maps.size() != operandTypes.size())
    return makeError(where + ": '" + name + "' has " + Twine(maps.size()) +
                     " indexing maps for " + Twine(operandTypes.size()) +
                     " operands");
  problem.loopRanges = loopRangesFromShapes(maps, operandTypes);
  if (attention) {
    if (Error err = classifyAttention(problem, maps, where))
      return std::move(err);
    return sealProblem(std::move(problem), maps, where);
  }
  if (std::string iterators = op.attr("iterator_types"); !iterators.empty()) {
    auto types = dyn_cast_if_present<mlir::ArrayAttr>(
        mlir::parseAttribute(iterators, context.get()));
    if (types)
      for (mlir::Attribute attr : types)
        if (auto it = dyn_cast<mlir::linalg::IteratorTypeAttr>(attr))
          problem.iteratorTypes.push_back(
              mlir::utils::stringifyIteratorType(it.getValue()).str());
    if (problem.iteratorTypes.size() != maps.front().getNumDims())
      return makeError(where + ": cannot read the iterator types " +
                       iterators + ": " + diagnostics.message);
  } else {
    for (unsigned d = 0, e = maps.front().getNumDims(); d < e; ++d) {
      bool indexedByInit = llvm::any_of(
          ArrayRef(maps).drop_front(problem.numInputs),
          [&](mlir::AffineMap map) { return map.isFunctionOfDim(d); });
      problem.iteratorTypes.push_back(indexedByInit ? "parallel"
                                                    : "reduction");
    }
  }
  bool movesData = op.onlyYieldsAnInput(problem.numInputs);
  if (Error err = classifyLinalgOp(problem, maps, movesData,
                                   /*matchesBody=*/true, where))
    return std::move(err);
  if (problem.kind == OpKind::Elementwise && !movesData) {
    Expected<std::string> dag =
        op.library().dagMatcher(op, {"lowering_config", "root_op"});
    // IREE's DAG matcher compares bodies value by value and cannot map a
    // value the body reads from outside it (a constant the canonicalizer
    // hoisted: GELU's 1/sqrt(2), a layer norm's 1/N): such an op is matched
    // by its shape instead.
    if (dag) {
      problem.rootDag = std::move(*dag);
    } else {
      consumeError(dag.takeError());
      problem.rootDag = shapeMatcher(op, problem);
    }
  }
  return sealProblem(std::move(problem), maps, where);
}

/// The dispatch of a file IREE's library parsed.
Expected<IreeDispatch> readDispatchWithIree(const IreeIrModule &module,
                                            StringRef fileName) {
  IreeDispatch dispatch;
  std::optional<IreeIrOp> variant;
  SmallVector<std::pair<IreeIrOp, std::string>> roots;
  module.walk([&](IreeIrOp op, ArrayRef<IreeIrOp> ancestors) {
    StringRef name = op.name();
    if (name == "hal.executable" && dispatch.executable.empty())
      dispatch.executable = op.symbolName();
    if (name == "hal.executable.variant" && !variant)
      variant = op;
    if (name == "util.func" && dispatch.benchmarkFunction.empty() &&
        StringRef(op.attr("iree.reflection"))
            .contains("iree.benchmark = \"dispatch\""))
      dispatch.benchmarkFunction = op.symbolName();
    bool inVariant = llvm::any_of(ancestors, [](const IreeIrOp &a) {
      return a.name() == "hal.executable.variant";
    });
    if (!inVariant)
      return;
    if (name == "hal.executable.export" && dispatch.exportName.empty())
      dispatch.exportName = op.symbolName();
    if (op.hasAttr("root_op")) {
      std::string func;
      for (const IreeIrOp &a : ancestors)
        if (a.name() == "func.func")
          func = a.symbolName();
      roots.push_back({op, func});
    }
  });
  if (!variant)
    return makeError(fileName + kNotABenchmark);
  dispatch.variant = variant->symbolName();
  std::string where = (fileName + ":" + Twine(variant->line())).str();
  Expected<IreeTarget> target = readIreeTarget(variant->attr("target"), where);
  if (!target)
    return target.takeError();
  dispatch.target = std::move(*target);
  if (roots.empty())
    return makeError(fileName + kNoRootOp);
  if (roots.size() > 1)
    return makeError(fileName + ":" + Twine(roots[1].first.line()) +
                     ": multiple root ops in one dispatch; only one is "
                     "supported (as in amdsharktuner)");
  const IreeIrOp &root = roots.front().first;
  dispatch.funcName = roots.front().second;
  dispatch.rootOpText = root.print();
  Expected<Problem> problem =
      problemFromIreeOp(root, dispatch.target.problemTarget(), fileName);
  if (!problem)
    return problem.takeError();
  dispatch.problem = std::move(*problem);
  return dispatch;
}
} // namespace

Expected<IreeDispatch> readIreeDispatch(StringRef text, StringRef fileName,
                                        const IreeIrLibrary *library) {
  if (!library)
    return readDispatchAsText(text, fileName);
  Expected<std::unique_ptr<IreeIrModule>> module =
      library->parse(text, fileName);
  if (!module)
    return module.takeError();
  return readDispatchWithIree(**module, fileName);
}

std::vector<std::string> dumpArgs(const IreeSyntax &syntax, StringRef model,
                                  ArrayRef<std::string> compileFlags,
                                  StringRef dumpDir, StringRef modulePath) {
  std::vector<std::string> args = {model.str()};
  args.insert(args.end(), compileFlags.begin(), compileFlags.end());
  args.push_back("--iree-hal-dump-executable-benchmarks-to=" + dumpDir.str());
  args.push_back(syntax.tunerAttributesFlag);
  args.push_back("-o");
  args.push_back(modulePath.str());
  return args;
}

std::vector<std::string> stripArgs(StringRef input, StringRef output) {
  return {input.str(), "--iree-codegen-strip-compilation-info", "-o",
          output.str()};
}

Expected<std::vector<std::string>>
runDump(const IreeTools &tools, StringRef model,
        ArrayRef<std::string> compileFlags, StringRef dumpDir,
        StringRef logPath, unsigned timeoutSeconds, StringRef modulePath) {
  if (std::error_code ec = sys::fs::create_directories(dumpDir))
    return makeError("cannot create " + dumpDir + ": " + ec.message());
  ChildOutcome outcome =
      tools.runTool(tools.compile,
                    dumpArgs(tools.syntax(), model, compileFlags, dumpDir,
                             modulePath),
                    timeoutSeconds, 0, logPath);
  if (outcome.status != Status::Ok)
    return makeError(model + ": iree-compile could not dump its dispatches (" +
                     toString(outcome.status) + "): " + outcome.message +
                     "\nfull log: " + logPath +
                     "; check the model and the compile flags in tune.toml");
  Expected<std::vector<std::string>> files =
      listFiles(dumpDir, "_benchmark.mlir");
  if (!files)
    return files.takeError();
  if (files->empty())
    return makeError(model + ": iree-compile wrote no dispatch benchmarks to " +
                     dumpDir +
                     " (dynamic shapes or several devices prevent them); "
                     "see " +
                     logPath);
  return std::move(*files);
}

StringMap<unsigned> countDispatchCalls(StringRef flowText) {
  // `flow.dispatch @<executable>::@<export>[...](...)`: one op per call site.
  StringMap<unsigned> calls;
  Regex call("flow\\.dispatch @([A-Za-z0-9_$.-]+)::");
  SmallVector<StringRef> m;
  for (StringRef rest = flowText; call.match(rest, &m);
       rest = rest.drop_front(m[0].data() + m[0].size() - rest.data()))
    ++calls[m[1]];
  return calls;
}

Expected<StringMap<unsigned>>
runDispatchCallCount(const IreeTools &tools, StringRef model,
                     ArrayRef<std::string> compileFlags, StringRef flowPath,
                     StringRef logPath, unsigned timeoutSeconds) {
  std::vector<std::string> args = {model.str()};
  args.insert(args.end(), compileFlags.begin(), compileFlags.end());
  for (StringRef flag : {"--compile-to=flow", "-o"})
    args.push_back(flag.str());
  args.push_back(flowPath.str());
  ChildOutcome outcome =
      tools.runTool(tools.compile, args, timeoutSeconds, 0, logPath);
  if (outcome.status != Status::Ok)
    return makeError(model + ": iree-compile --compile-to=flow failed (" +
                     toString(outcome.status) + "): " + outcome.message +
                     "; full log: " + logPath);
  Expected<std::string> text = readFile(flowPath);
  if (!text)
    return text.takeError();
  return countDispatchCalls(*text);
}

namespace {
/// The dispatch of a stripped benchmark, and the file every candidate is
/// compiled from: the same without `root_op` and without the
/// lowering_config that IREE's strip pass leaves on data tiling's
/// linalg.unpack (with it IREE 3.13 fails to configure the dispatch: "failed
/// to set lowering configuration"). IREE's library edits the IR where it is
/// present; the text reader where not.
Expected<std::pair<IreeDispatch, std::string>>
readAndUnmark(StringRef text, StringRef fileName,
              const IreeIrLibrary *library) {
  if (library) {
    Expected<std::unique_ptr<IreeIrModule>> module =
        library->parse(text, fileName);
    if (!module)
      return module.takeError();
    Expected<IreeDispatch> dispatch = readDispatchWithIree(**module, fileName);
    if (!dispatch)
      return dispatch.takeError();
    (*module)->removeAttrEverywhere("root_op");
    (*module)->removeAttrEverywhere("lowering_config");
    return std::make_pair(std::move(*dispatch), (*module)->print());
  }
  Expected<IreeDispatch> dispatch = readDispatchAsText(text, fileName);
  if (!dispatch)
    return dispatch.takeError();
  Expected<std::string> unmarked = dropRootOp(text, fileName);
  if (!unmarked)
    return unmarked.takeError();
  Expected<std::string> clean = dropLoweringConfigs(*unmarked, fileName);
  if (!clean)
    return clean.takeError();
  return std::make_pair(std::move(*dispatch), std::move(*clean));
}
} // namespace

std::string strippedPathFor(StringRef outputFile) {
  return (outputFile + ".stripped.tmp").str();
}

Error stripConfiguration(const IreeTools &tools, StringRef benchmarkFile,
                         StringRef strippedFile, StringRef logPath,
                         unsigned timeoutSeconds) {
  if (Error err = createParentDirs(strippedFile))
    return err;
  ChildOutcome outcome =
      tools.runTool(tools.opt, stripArgs(benchmarkFile, strippedFile),
                    timeoutSeconds, 0, logPath);
  if (outcome.status != Status::Ok)
    return makeError(benchmarkFile + ": iree-opt could not strip its "
                                     "configuration (" +
                     toString(outcome.status) + "): " + outcome.message);
  return Error::success();
}

Expected<IreeDispatch> readStripped(const IreeTools &tools,
                                    StringRef benchmarkFile,
                                    StringRef strippedFile,
                                    StringRef outputFile) {
  Expected<std::string> text = readFile(strippedFile);
  sys::fs::remove(strippedFile);
  if (!text)
    return text.takeError();
  Expected<std::pair<IreeDispatch, std::string>> read =
      readAndUnmark(*text, benchmarkFile,
                    IreeIrLibrary::forTool(tools.compile));
  if (!read)
    return read.takeError();
  if (Error err = writeFileIfChanged(outputFile, read->second))
    return std::move(err);
  return std::move(read->first);
}

Expected<IreeDispatch> prepareDispatch(const IreeTools &tools,
                                       StringRef benchmarkFile,
                                       StringRef outputFile, StringRef logPath,
                                       unsigned timeoutSeconds) {
  std::string stripped = strippedPathFor(outputFile);
  if (Error err = stripConfiguration(tools, benchmarkFile, stripped, logPath,
                                     timeoutSeconds))
    return std::move(err);
  return readStripped(tools, benchmarkFile, stripped, outputFile);
}

std::string targetFamily(StringRef mlirText, StringRef fileName,
                         const IreeIrLibrary *library) {
  Expected<std::vector<IreeTarget>> targets =
      readIreeTargets(mlirText, fileName, library);
  if (!targets) {
    consumeError(targets.takeError());
    return "gpu";
  }
  for (const IreeTarget &target : *targets)
    if (target.isGpu())
      return target.family();
  return targets->empty() ? "gpu" : "cpu";
}


} // namespace retune::iree
