//===- DispatchFormation.cpp - Split a model into tunable dispatches ------===//
#include "stages/backends/mlircpu/DispatchFormation.h"

#include "stages/backends/mlircpu/EpilogueFusion.h"
#include "stages/backends/mlircpu/LayoutNormalization.h"
#include "stages/backends/mlircpu/LinalgProblem.h"
#include "stages/support/FileUtil.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;

namespace retune::dump {
namespace {

/// The fill that initializes `init` from a fresh tensor, if any.
linalg::FillOp fillOfEmpty(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill || !fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
    return nullptr;
  return fill;
}

/// Values the outlined function takes as arguments (before the
/// destination), and scalar constants it clones instead.
struct Boundary {
  SmallVector<Value> arguments;
  SmallVector<Operation *> constants;

  void add(Value value) {
    if (value.getDefiningOp<arith::ConstantOp>() &&
        !isa<ShapedType>(value.getType())) {
      if (!llvm::is_contained(constants, value.getDefiningOp()))
        constants.push_back(value.getDefiningOp());
    } else if (!llvm::is_contained(arguments, value)) {
      arguments.push_back(value);
    }
  }
};

/// Outlines `root` with its operand transposes, its fill and its epilogue
/// into `func @<name>` in a new module; the function writes its result into
/// a destination argument.
OwningOpRef<ModuleOp> outline(linalg::LinalgOp root, StringRef name) {
  MLIRContext *context = root->getContext();
  Location loc = root->getLoc();
  OpBuilder builder(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());

  Value init = root.getDpsInits()[0];
  linalg::FillOp fill = fillOfEmpty(init);
  SmallVector<linalg::GenericOp> epilogue = cpu::epilogueOf(root);
  Operation *last =
      epilogue.empty() ? root.getOperation() : epilogue.back().getOperation();

  SmallVector<linalg::LinalgOp> prologue;
  Boundary boundary;
  for (unsigned input = 0; input < root.getNumDpsInputs(); ++input) {
    if (linalg::LinalgOp pack = cpu::prologueOf(root, input)) {
      prologue.push_back(pack);
      boundary.add(pack.getDpsInputs()[0]);
    } else {
      boundary.add(root.getDpsInputs()[input]);
    }
  }
  if (fill)
    boundary.add(fill.getInputs()[0]);
  for (linalg::GenericOp op : epilogue) {
    for (OpOperand *input : op.getDpsInputOperands())
      boundary.add(input->get());
    visitUsedValuesDefinedAbove(
        op->getRegions(), [&](OpOperand *used) { boundary.add(used->get()); });
  }
  SmallVector<Type> argTypes;
  for (Value v : boundary.arguments)
    argTypes.push_back(v.getType());
  argTypes.push_back(init.getType()); // the destination
  auto func = func::FuncOp::create(
      builder, loc, name,
      builder.getFunctionType(argTypes, {last->getResult(0).getType()}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);

  IRMapping mapping;
  for (auto [value, arg] : llvm::zip(boundary.arguments, body->getArguments()))
    mapping.map(value, arg);
  for (Operation *constant : boundary.constants)
    builder.clone(*constant, mapping);
  for (linalg::LinalgOp pack : prologue) {
    builder.clone(*pack.getDpsInits()[0].getDefiningOp(), mapping);
    builder.clone(*pack, mapping);
  }
  Value destination = body->getArguments().back();
  if (fill) {
    Value filled =
        linalg::FillOp::create(builder, loc,
                               mapping.lookup(fill.getInputs()[0]), destination)
            .getResult(0);
    mapping.map(init, filled);
  } else {
    mapping.map(init, destination);
  }
  builder.clone(*root, mapping);
  for (linalg::GenericOp op : epilogue)
    builder.clone(*op, mapping);
  func::ReturnOp::create(builder, loc, mapping.lookup(last->getResult(0)));
  return module;
}

std::string print(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

} // namespace

Expected<FormedDispatches> formDispatches(ModuleOp model, StringRef modelName,
                                          StringRef target) {
  // Transposed-B contractions become a transpose + the NN contraction, the
  // transpose the dispatch's prologue.
  cpu::normalizeOperandLayouts(model);
  // Bias, activations and gates join their root (IREE's dispatch formation).
  cpu::fuseEpilogues(model);
  FormedDispatches formed;
  formed.index.model = modelName.str();
  std::map<std::string, size_t> positionOf;
  model.walk([&](linalg::LinalgOp op) {
    FailureOr<Problem> problem = cpu::problemFromOp(op, target, nullptr);
    if (failed(problem) || op->getNumResults() != 1)
      return;
    double flops = problem->flops();
    formed.index.totalFlops += flops;
    std::string id = problem->stableId();
    auto [it, inserted] = positionOf.try_emplace(id, formed.index.dispatches.size());
    if (!inserted) {
      DispatchEntry &entry = formed.index.dispatches[it->second];
      entry.flops += flops;
      ++entry.occurrences;
      return;
    }
    DispatchEntry entry;
    entry.id = id;
    entry.name = problem->readableName();
    entry.func = entry.name;
    entry.flops = flops;
    entry.problem = std::move(*problem);
    formed.modules[id] = print(*outline(op, entry.func));
    formed.index.dispatches.push_back(std::move(entry));
  });
  if (formed.index.dispatches.empty())
    return makeError(modelName +
                     ": no contraction or convolution with static shapes on "
                     "tensors; nothing to tune");
  // A zero-size dimension makes a dispatch (and maybe the model) 0 FLOPs:
  // its share is 0, never 0/0.
  for (DispatchEntry &entry : formed.index.dispatches)
    entry.share = formed.index.totalFlops > 0
                      ? entry.flops / formed.index.totalFlops
                      : 0.0;
  // Hottest first; ties keep model order.
  std::stable_sort(formed.index.dispatches.begin(),
                   formed.index.dispatches.end(),
                   [](const DispatchEntry &a, const DispatchEntry &b) {
                     return a.flops > b.flops;
                   });
  return formed;
}

} // namespace retune::dump
