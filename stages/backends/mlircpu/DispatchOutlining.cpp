//===- DispatchOutlining.cpp - A dispatch as a function of its own --------===//
#include "stages/backends/mlircpu/DispatchOutlining.h"

#include "stages/backends/mlircpu/EpilogueFusion.h"
#include "stages/backends/mlircpu/LinalgProblem.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace retune::cpu {
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

} // namespace

OutlinedDispatch outlineDispatch(OpBuilder &builder, linalg::LinalgOp root,
                                 StringRef name) {
  Location loc = root->getLoc();
  OpBuilder::InsertionGuard guard(builder);

  Value init = root.getDpsInits()[0];
  linalg::FillOp fill = fillOfEmpty(init);
  SmallVector<linalg::GenericOp> epilogue = epilogueOf(root);
  Operation *last =
      epilogue.empty() ? root.getOperation() : epilogue.back().getOperation();

  SmallVector<linalg::LinalgOp> prologue;
  Boundary boundary;
  for (unsigned input = 0; input < root.getNumDpsInputs(); ++input) {
    if (linalg::LinalgOp pack = prologueOf(root, input)) {
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
  OutlinedDispatch outlined{func, boundary.arguments,
                            fill ? fill.getOutputs()[0] : init, last, {}};
  for (linalg::GenericOp op : llvm::reverse(epilogue))
    outlined.members.push_back(op);
  outlined.members.push_back(root);
  if (fill)
    outlined.members.push_back(fill);
  for (linalg::LinalgOp pack : prologue)
    outlined.members.append(
        {pack, pack.getDpsInits()[0].getDefiningOp()});
  return outlined;
}

unsigned outlineDispatches(ModuleOp module) {
  SmallVector<linalg::LinalgOp> roots;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isPrivate() || func.isExternal())
      continue;
    func.walk([&](linalg::LinalgOp op) {
      if (isRootOp(op) && op->getNumResults() == 1 &&
          !op->hasAttr(kEpilogueAttr))
        roots.push_back(op);
    });
  }
  SymbolTable symbols(module);
  OpBuilder builder(module.getContext());
  unsigned outlined = 0;
  for (linalg::LinalgOp root : roots) {
    builder.setInsertionPointToEnd(module.getBody());
    OutlinedDispatch dispatch =
        outlineDispatch(builder, root, "__retune_dispatch");
    dispatch.func.setPrivate();
    symbols.insert(dispatch.func); // renames on a clash
    // The call sits where the last op was: every value it reads is defined
    // before the dispatch's ops that read it.
    builder.setInsertionPoint(dispatch.last);
    SmallVector<Value> operands(dispatch.arguments);
    operands.push_back(dispatch.init);
    auto call = func::CallOp::create(builder, root->getLoc(), dispatch.func,
                                     operands);
    dispatch.last->replaceAllUsesWith(call.getResults());
    // Consumers first, so each op is unused when its turn comes; a fill or
    // a fresh tensor something else still reads stays.
    for (Operation *op : dispatch.members)
      if (op->use_empty())
        op->erase();
    ++outlined;
  }
  return outlined;
}

} // namespace retune::cpu
