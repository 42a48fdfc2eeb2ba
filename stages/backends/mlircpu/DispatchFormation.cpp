//===- DispatchFormation.cpp - Split a model into tunable dispatches ------===//
#include "stages/backends/mlircpu/DispatchFormation.h"

#include "stages/backends/mlircpu/LinalgProblem.h"
#include "stages/support/FileUtil.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
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

/// Outlines `root` (and its fill) into `func @<name>` in a new module.
OwningOpRef<ModuleOp> outline(linalg::LinalgOp root, StringRef name) {
  MLIRContext *context = root->getContext();
  Location loc = root->getLoc();
  OpBuilder builder(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());

  Value init = root.getDpsInits()[0];
  linalg::FillOp fill = fillOfEmpty(init);
  Value fillValue = fill ? fill.getInputs()[0] : Value();
  bool fillIsConstant = fillValue && fillValue.getDefiningOp<arith::ConstantOp>();

  SmallVector<Value> outsideValues;
  for (OpOperand *input : root.getDpsInputOperands())
    outsideValues.push_back(input->get());
  if (fill && !fillIsConstant)
    outsideValues.push_back(fillValue);
  SmallVector<Type> argTypes;
  for (Value v : outsideValues)
    argTypes.push_back(v.getType());
  argTypes.push_back(init.getType()); // the destination
  auto func = func::FuncOp::create(
      builder, loc, name,
      builder.getFunctionType(argTypes, {root->getResult(0).getType()}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);

  IRMapping mapping;
  for (auto [value, arg] : llvm::zip(outsideValues, body->getArguments()))
    mapping.map(value, arg);
  Value destination = body->getArguments().back();
  if (fill) {
    if (fillIsConstant)
      mapping.map(fillValue, builder.clone(*fillValue.getDefiningOp())->getResult(0));
    Value filled = linalg::FillOp::create(builder, loc,
                                          mapping.lookup(fillValue), destination)
                       .getResult(0);
    mapping.map(init, filled);
  } else {
    mapping.map(init, destination);
  }
  Operation *clone = builder.clone(*root, mapping);
  func::ReturnOp::create(builder, loc, clone->getResults());
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
