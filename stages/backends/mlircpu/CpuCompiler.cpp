//===- CpuCompiler.cpp - In-process MLIR -> shared object for the host ----===//
//
// Pipeline (see docs/cpu-backend.md and the MLIR 22 pitfalls there):
//   1. parse the payload; mark public functions `llvm.emit_c_interface`;
//   2. build one transform library: the spec's sequences, default
//      matcher/action pairs for every root op (the baseline heuristic), and a
//      driver `@__transform_main` that runs `@__retune_config`, then the
//      defaults, then module-wide hoisting, bufferization and staged vector
//      lowering;
//   3. lower to the LLVM dialect with a pass pipeline, translate, optimize
//      at O3 for the host CPU and emit an object in memory;
//   4. link a shared object with lld (in-process).
//
//===----------------------------------------------------------------------===//
#include "stages/backends/mlircpu/CpuCompiler.h"

#include "stages/backends/mlircpu/CpuSpec.h"
#include "stages/backends/mlircpu/DispatchOutlining.h"
#include "stages/backends/mlircpu/EpilogueFusion.h"
#include "stages/backends/mlircpu/LayoutNormalization.h"
#include "stages/backends/mlircpu/LinalgProblem.h"
#include "stages/backends/mlircpu/StaticBuffers.h"
#include "stages/search/cpu/CpuDefaults.h"
#include "stages/support/FileUtil.h"

#include "lld/Common/Driver.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <csignal>
#include <thread>

LLD_HAS_DRIVER(elf)

using namespace mlir;
using llvm::Expected;

#ifndef RETUNE_LLVM_LIB_DIR
#define RETUNE_LLVM_LIB_DIR "/usr/lib/llvm-22/lib"
#endif

namespace retune::cpu {
namespace {

// For whoever reads the generated code: the module after every transform
// and buffer planning, before lowering to LLVM (--compiler-flag passes it).
llvm::cl::opt<std::string> printTransformedTo(
    "retune-print-transformed", llvm::cl::Hidden,
    llvm::cl::desc("write the transformed module (before LLVM lowering) "
                   "to this file"));

using Clock = std::chrono::steady_clock;
double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace

MLIRContext &compilerContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    registerAllToLLVMIRTranslations(registry);
    registerAllPasses();
    auto *ctx = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    return ctx;
  }();
  return *context;
}

namespace {
MLIRContext &sharedContext() { return compilerContext(); }

/// Collects diagnostics as text ("file:line:col: error: ...").
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diag) {
          llvm::raw_string_ostream os(text);
          os << where(diag.getLocation()) << ": " << severity(diag) << ": "
             << diag << "\n";
          for (Diagnostic &note : diag.getNotes())
            os << where(note.getLocation()) << ": note: " << note << "\n";
          return success();
        }) {}
  Error error(const Twine &what) {
    std::string details = StringRef(text).trim().str();
    return makeError(what + (details.empty() ? "" : ":\n" + details));
  }

private:
  /// "file:line:col", the form editors and users recognize.
  static std::string where(Location loc) {
    if (auto file = loc->findInstanceOf<FileLineColLoc>())
      return (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
          .str();
    std::string text;
    llvm::raw_string_ostream os(text);
    os << loc;
    return text;
  }
  static StringRef severity(Diagnostic &diag) {
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      return "error";
    case DiagnosticSeverity::Warning:
      return "warning";
    default:
      return "note";
    }
  }
  std::string text;
  ScopedDiagnosticHandler handler;
};

Expected<OwningOpRef<ModuleOp>> parseWithDiagnostics(StringRef path,
                                                     DiagnosticCollector &diags) {
  Expected<std::string> text = readFile(path);
  if (!text)
    return text.takeError();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(*text, &sharedContext(), path);
  if (!module)
    return diags.error(path + ": cannot parse; fix the MLIR at the location "
                               "below");
  return std::move(module);
}

Expected<TensorSpec> tensorSpecOf(Type type, func::FuncOp func) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return makeError("function @" + func.getName() +
                     ": only statically shaped tensors are supported at "
                     "function boundaries");
  TensorSpec spec;
  spec.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  spec.elementType = typeName(tensor.getElementType());
  return spec;
}

/// Signatures of public functions; marks them for the C interface.
Expected<std::vector<FuncSignature>> prepareFunctions(ModuleOp module) {
  std::vector<FuncSignature> signatures;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isPrivate() || func.isExternal())
      continue;
    func->setAttr("llvm.emit_c_interface", UnitAttr::get(func.getContext()));
    FuncSignature signature;
    signature.name = func.getName().str();
    for (Type type : func.getArgumentTypes()) {
      Expected<TensorSpec> spec = tensorSpecOf(type, func);
      if (!spec)
        return spec.takeError();
      signature.args.push_back(*spec);
    }
    for (Type type : func.getResultTypes()) {
      Expected<TensorSpec> spec = tensorSpecOf(type, func);
      if (!spec)
        return spec.takeError();
      signature.results.push_back(*spec);
    }
    signatures.push_back(std::move(signature));
  }
  if (signatures.empty())
    return makeError("no public function with a body to compile");
  return signatures;
}

/// Whether `op` is the fill or an operand transpose of a root with an
/// epilogue or a prologue: the root's action tiles them with it.
static bool joinsFusedRoot(linalg::LinalgOp op) {
  if (!isa<linalg::FillOp, linalg::TransposeOp, linalg::CopyOp>(op) ||
      !op->hasOneUse())
    return false;
  OpOperand &use = *op->use_begin();
  auto root = dyn_cast<linalg::LinalgOp>(use.getOwner());
  if (!root || !root->hasAttr(kRootAttr))
    return false;
  return isa<linalg::FillOp>(op) ||
         prologueOf(root, use.getOperandNumber()).getOperation() ==
             op.getOperation();
}

using Pairs = SmallVector<std::pair<std::string, std::string>>;

/// Default matcher/action pairs for every distinct root op of `payload` and
/// every op outside the dispatches (appended to `pairs`), and the claims of
/// roots with an epilogue (`claimPairs`, see emitClaim).
std::string emitDefaults(ModuleOp payload, const CpuHost &host,
                         unsigned threads, Pairs &pairs, Pairs &claimPairs) {
  std::string text;
  llvm::StringSet<> seen;
  payload.walk([&](linalg::LinalgOp op) {
    // Root ops no spec matched, and what stays outside dispatches (fills,
    // transposes, elementwise generics): vectorized, never plain loops.
    // The fill and operand transposes of a fused root are tiled with it.
    if (joinsFusedRoot(op))
      return;
    FailureOr<Problem> problem = problemFromOp(op, host.target(), nullptr);
    if (failed(problem))
      problem = elementwiseProblemFromOp(op, host.target());
    if (failed(problem))
      return;
    std::string symbol = "__retune_default_" + problem->stableId();
    if (!seen.insert(symbol).second)
      return;
    std::optional<CpuConfig> config = defaultConfig(*problem, host, threads);
    if (!config)
      return;
    SpecEntry entry{symbol, *problem, *config};
    text += emitMatcher(entry) + emitAction(entry);
    pairs.emplace_back("match_" + symbol, "apply_" + symbol);
    if (!problem->epilogue.empty()) {
      text += emitClaim(entry);
      claimPairs.emplace_back("claim_" + symbol, "hold_" + symbol);
    }
  });
  return text;
}

/// Module-wide steps after all configs are applied (from the prototype,
/// which measured them; the staging avoids pitfall 1's endless rewrite).
constexpr llvm::StringLiteral kPostProcessing = R"mlir(
    %funcs = transform.structured.match ops{["func.func"]} in %configured : (!transform.any_op) -> !transform.any_op
    // Contraction generics vectorize to mul + multi_reduction.
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.transfer_permutation_patterns
    } : !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.reduction_to_contract
    } : !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %funcs : !transform.any_op
    // Keep accumulators in registers: hoist on tensors (pitfall 2).
    %loops = transform.structured.match ops{["scf.for"]} in %configured : (!transform.any_op) -> !transform.any_op
    transform.foreach %loops : !transform.any_op {
    ^bb0(%loop: !transform.any_op):
      transform.loop.hoist_loop_invariant_subsets %loop : !transform.any_op
    }
    // Fold slices into transfers only after hoisting (pitfall 4).
    transform.apply_patterns to %funcs {
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %bufferized = transform.bufferization.one_shot_bufferize %configured
        {bufferize_function_boundaries = true, function_boundary_type_conversion = 1 : i32}
        : (!transform.any_op) -> !transform.any_op
    %memfuncs = transform.structured.match ops{["func.func"]} in %bufferized : (!transform.any_op) -> !transform.any_op
    // Packing copies, tiled by the actions into rows, vectorized on memrefs
    // (see CpuSpec.cpp, packPanel).
    %packs = transform.structured.match ops{["linalg.copy"]} attributes{retune.prologue} in %bufferized : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %packs : !transform.any_op
    transform.apply_patterns to %memfuncs {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %memfuncs : !transform.any_op
    transform.apply_patterns to %memfuncs {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_patterns to %memfuncs {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_masks
    } : !transform.any_op
    transform.apply_patterns to %memfuncs {
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = "innerparallel"
      transform.apply_patterns.vector.split_transfer_full_partial split_transfer_strategy = "vector-transfer"
      transform.apply_patterns.vector.transfer_to_scf max_transfer_rank = 1 full_unroll = true
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
    } : !transform.any_op
    // 16x16 f32 blocks (the default for transposes) with AVX-512 shuffles.
    transform.apply_patterns to %memfuncs {
      transform.apply_patterns.vector.lower_transpose lowering_strategy = "shuffle_16x16"
    } : !transform.any_op
    transform.apply_patterns to %memfuncs {
      transform.apply_patterns.vector.lower_transpose lowering_strategy = "shuffle_1d"
      transform.apply_patterns.vector.lower_shape_cast
    } : !transform.any_op
    transform.apply_patterns to %memfuncs {
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.lower_broadcast
    } : !transform.any_op
    transform.apply_patterns to %memfuncs {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
)mlir";

/// The matcher/action pairs of `spec` when its entry point is one
/// foreach_match over the whole payload, the shape retune's specs have.
std::optional<Pairs> entryPointPairs(ModuleOp spec) {
  auto entry = dyn_cast_or_null<transform::NamedSequenceOp>(
      SymbolTable::lookupSymbolIn(spec, kSpecEntryPoint));
  if (!entry || entry.getBody().empty())
    return std::nullopt;
  Block &body = entry.getBody().front();
  auto match = dyn_cast<transform::ForeachMatchOp>(&body.front());
  auto yield = dyn_cast<transform::YieldOp>(body.getTerminator());
  if (!match || match->getNextNode() != yield ||
      body.getNumArguments() != 1 || match.getRoot() != body.getArgument(0) ||
      !match.getForwardedInputs().empty() ||
      !llvm::equal(yield->getOperands(), match->getResults()))
    return std::nullopt;
  Pairs pairs;
  for (auto [matcher, action] :
       llvm::zip(match.getMatchers(), match.getActions()))
    pairs.emplace_back(
        cast<SymbolRefAttr>(matcher).getLeafReference().str(),
        cast<SymbolRefAttr>(action).getLeafReference().str());
  return pairs;
}

/// `%<result> = foreach_match in %<input>` over `pairs` (a cast if none).
static std::string emitForeachMatch(StringRef result, StringRef input,
                                    ArrayRef<Pairs::value_type> pairs) {
  if (pairs.empty())
    return llvm::formatv("    %{0} = transform.cast %{1} : !transform.any_op "
                         "to !transform.any_op\n",
                         result, input)
        .str();
  std::string text = llvm::formatv("    %{0} = transform.foreach_match in "
                                   "%{1}\n",
                                   result, input)
                         .str();
  for (auto [i, pair] : llvm::enumerate(pairs))
    text += "        @" + pair.first + " -> @" + pair.second +
            (i + 1 == pairs.size() ? "\n" : ",\n");
  text += "        : (!transform.any_op) -> !transform.any_op\n";
  return text;
}

/// The driver: one foreach_match over `pairs` (the claims, then the spec's
/// pairs unless `includeSpec`, then the defaults), then module-wide steps.
std::string emitDriver(StringRef defaults, ArrayRef<Pairs::value_type> pairs,
                       bool hasSpec, bool includeSpec) {
  std::string text = "module attributes {transform.with_named_sequence} {\n";
  text += defaults;
  if (!hasSpec)
    text += emitEntryPoint({});
  text += "  transform.named_sequence @__transform_main(%root: "
          "!transform.any_op {transform.consumed}) {\n";
  if (includeSpec)
    text += llvm::formatv("    %tuned = transform.include @{0} "
                          "failures(propagate) (%root) : "
                          "(!transform.any_op) -> !transform.any_op\n",
                          kSpecEntryPoint)
                .str();
  else
    text += "    %tuned = transform.cast %root : !transform.any_op to "
            "!transform.any_op\n";
  text += emitForeachMatch("configured", "tuned", pairs);
  text += kPostProcessing;
  text += "}\n";
  return text;
}

/// Moves every op of `from` into `into`; a symbol defined twice is an error.
LogicalResult mergeModules(ModuleOp into, ModuleOp from, StringRef intoName) {
  SymbolTable symbols(into);
  for (Operation &op : llvm::make_early_inc_range(*from.getBody())) {
    if (auto name = SymbolTable::getSymbolName(&op))
      if (symbols.lookup(name)) {
        return into.emitError() << intoName << " defines @" << name.getValue()
                                << ", a name reserved by retune's driver";
      }
    op.moveBefore(into.getBody(), into.getBody()->end());
  }
  return success();
}

void injectWrongResults(ModuleOp payload) {
  // Drop every fill: the result then depends on whatever the output buffer
  // held, which is exactly the kind of wrong code the bench must catch.
  payload.walk([](linalg::FillOp fill) {
    fill->getResult(0).replaceAllUsesWith(fill.getOutputs()[0]);
    fill->erase();
  });
}

std::string loweringPipeline(unsigned threads) {
  // convert-openmp-to-llvm right after scf-to-openmp (pitfall 12).
  std::string pipeline = "convert-linalg-to-loops,";
  pipeline += threads > 1 ? "scf-forall-to-parallel,convert-scf-to-openmp,"
                            "convert-openmp-to-llvm,"
                          : "scf-forall-to-for,";
  pipeline += "lower-affine,convert-vector-to-scf,convert-scf-to-cf,"
              "expand-strided-metadata,lower-affine,convert-vector-to-llvm,"
              "finalize-memref-to-llvm,convert-arith-to-llvm,"
              "convert-math-to-llvm,convert-index-to-llvm,"
              "convert-func-to-llvm,convert-cf-to-llvm,convert-ub-to-llvm,";
  if (threads > 1)
    pipeline += "convert-openmp-to-llvm,";
  pipeline += "reconcile-unrealized-casts";
  return pipeline;
}

Expected<std::unique_ptr<llvm::TargetMachine>> hostTargetMachine() {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  builder->setRelocationModel(llvm::Reloc::PIC_);
  return builder->createTargetMachine();
}

/// LLVM dialect module -> optimized object file bytes for the host.
Expected<std::string> emitObject(ModuleOp module) {
  Expected<std::unique_ptr<llvm::TargetMachine>> machine = hostTargetMachine();
  if (!machine)
    return machine.takeError();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return makeError("translation to LLVM IR failed");
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  auto optimize = makeOptimizingTransformer(3, 0, machine->get());
  if (llvm::Error err = optimize(llvmModule.get()))
    return std::move(err);
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager passes;
  if ((*machine)->addPassesToEmitFile(passes, os, nullptr,
                                      llvm::CodeGenFileType::ObjectFile))
    return makeError("the host target cannot emit object files");
  passes.run(*llvmModule);
  return std::string(buffer.begin(), buffer.end());
}

/// Links `object` into a shared object at `output` with lld (in-process).
Error linkSharedObject(StringRef object, StringRef output, unsigned threads) {
  std::string objectPath = (output + ".o").str();
  std::string tempOutput = (output + ".link-tmp").str();
  if (Error err = writeFileAtomic(objectPath, object))
    return err;
  // libc and libm symbols stay undefined: the loading process provides them.
  std::vector<const char *> args = {"ld.lld", "-shared", "-o",
                                    tempOutput.c_str(), objectPath.c_str(),
                                    "-L" RETUNE_LLVM_LIB_DIR, "-rpath",
                                    RETUNE_LLVM_LIB_DIR, "-lmlir_c_runner_utils"};
  if (threads > 1)
    args.push_back("-lomp");
  std::string linkerOutput;
  llvm::raw_string_ostream linkerStream(linkerOutput);
  lld::Result result = lld::lldMain(args, linkerStream, linkerStream,
                                    {{lld::Gnu, &lld::elf::link}});
  llvm::sys::fs::remove(objectPath);
  if (result.retCode != 0) {
    llvm::sys::fs::remove(tempOutput);
    return makeError("link failed: " + linkerOutput);
  }
  if (std::error_code ec = llvm::sys::fs::rename(tempOutput, output))
    return makeError(output + ": cannot rename into place: " + ec.message());
  return Error::success();
}

} // namespace

Expected<OwningOpRef<ModuleOp>> parseModuleFile(StringRef path) {
  DiagnosticCollector diags(compilerContext());
  return parseWithDiagnostics(path, diags);
}

Error verifySpecFile(StringRef specPath) {
  MLIRContext &context = sharedContext();
  DiagnosticCollector diags(context);
  Expected<OwningOpRef<ModuleOp>> spec = parseWithDiagnostics(specPath, diags);
  if (!spec)
    return spec.takeError();
  if (failed(verify(**spec)))
    return diags.error(specPath + ": does not verify");
  if (!SymbolTable::lookupSymbolIn(**spec, kSpecEntryPoint))
    return makeError(specPath + ": defines no @" + kSpecEntryPoint +
                     " entry point");
  return Error::success();
}

Expected<CompileResult> compileToSharedObject(const CompileRequest &request,
                                              const CpuHost &host) {
  if (request.injectFault == "crash")
    std::raise(SIGSEGV);
  if (request.injectFault == "hang")
    for (;;)
      std::this_thread::sleep_for(std::chrono::seconds(1));

  MLIRContext &context = sharedContext();
  DiagnosticCollector diags(context);
  CompileResult result;
  auto start = Clock::now();
  Expected<OwningOpRef<ModuleOp>> payload =
      parseWithDiagnostics(request.payloadPath, diags);
  if (!payload)
    return payload.takeError();
  Expected<std::vector<FuncSignature>> functions = prepareFunctions(**payload);
  if (!functions)
    return makeError(request.payloadPath + ": " + toString(functions.takeError()));
  result.functions = std::move(*functions);
  if (request.injectFault == "wrong")
    injectWrongResults(**payload);
  // As the dump formed the dispatches: the specs match NN contractions.
  normalizeOperandLayouts(**payload);
  privatizeSharedFills(**payload);
  fuseEpilogues(**payload);
  outlineDispatches(**payload);

  // The transform library: spec (if any) + defaults + driver.
  OwningOpRef<ModuleOp> library;
  bool hasSpec = !request.specPath.empty();
  if (hasSpec) {
    Expected<OwningOpRef<ModuleOp>> spec =
        parseWithDiagnostics(request.specPath, diags);
    if (!spec)
      return spec.takeError();
    library = std::move(*spec);
    if (!SymbolTable::lookupSymbolIn(*library, kSpecEntryPoint))
      return makeError(request.specPath + ": defines no @" + kSpecEntryPoint +
                       " entry point");
  }
  // The claims, the spec's pairs and the defaults in one foreach_match,
  // in that order (the first match wins): a claim only holds a root
  // against the matchers after it in the same walk, and the walk reaches
  // a fused root before its dispatch's anchor.
  Pairs pairs, claimPairs;
  std::optional<Pairs> specPairs;
  if (hasSpec)
    specPairs = entryPointPairs(*library);
  if (specPairs)
    pairs = std::move(*specPairs);
  std::string defaults =
      emitDefaults(**payload, host, request.threads, pairs, claimPairs);
  llvm::append_range(claimPairs, pairs);
  // Verified after merging: alone, the driver references the spec's entry.
  ParserConfig unverified(&context, /*verifyAfterParse=*/false);
  std::string driverText =
      emitDriver(defaults, claimPairs, hasSpec, hasSpec && !specPairs);
  std::string printTo = request.printTransformedTo.empty()
                            ? printTransformedTo.getValue()
                            : request.printTransformedTo;
  if (!printTo.empty())
    if (Error err = writeFileAtomic(printTo + ".driver.mlir", driverText))
      return std::move(err);
  OwningOpRef<ModuleOp> driver =
      parseSourceString<ModuleOp>(driverText, unverified, "<retune-driver>");
  if (!driver)
    return diags.error("internal error: the driver library does not parse");
  if (!library)
    library = std::move(driver);
  else if (failed(mergeModules(*library, *driver, request.specPath)))
    return diags.error(request.specPath + ": cannot combine with the driver");
  if (failed(verify(*library)))
    return diags.error((hasSpec ? request.specPath : "<retune-driver>") +
                       ": the transform library does not verify");

  Operation *entry = transform::detail::findTransformEntryPoint(
      payload->get(), *library, "__transform_main");
  if (!entry ||
      failed(transform::applyTransformNamedSequence(
          payload->get(), entry, *library, transform::TransformOptions())))
    return diags.error("applying the transform spec failed");
  // No allocation in the steady state: buffers once per loaded instance.
  planStaticBuffers(**payload);
  result.transformSeconds = since(start);

  start = Clock::now();
  PassManager cleanup(&context);
  if (failed(parsePassPipeline("canonicalize,cse", cleanup, llvm::errs())) ||
      failed(cleanup.run(**payload)))
    return diags.error("canonicalization after the transforms failed");
  // After canonicalization, which would inline the scopes into the loop
  // bodies (scf loops claim to be allocation scopes, but their lowering
  // restores no stack: each iteration's panel would stay on it).
  scopeLoopBuffers(**payload);
  if (!printTo.empty())
    if (Error err = writeFileAtomic(printTo, [&] {
          std::string text;
          llvm::raw_string_ostream os(text);
          (*payload)->print(os);
          return text;
        }()))
      return std::move(err);
  PassManager passes(&context);
  if (failed(parsePassPipeline(loweringPipeline(request.threads), passes,
                               llvm::errs())) ||
      failed(passes.run(**payload)))
    return diags.error("lowering to the LLVM dialect failed");
  result.lowerSeconds = since(start);

  start = Clock::now();
  Expected<std::string> object = emitObject(**payload);
  if (!object)
    return object.takeError();
  result.codegenSeconds = since(start);

  start = Clock::now();
  if (Error err =
          linkSharedObject(*object, request.outputPath, request.threads))
    return std::move(err);
  result.linkSeconds = since(start);
  return result;
}

} // namespace retune::cpu
