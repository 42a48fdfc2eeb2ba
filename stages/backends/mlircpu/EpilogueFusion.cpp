//===- EpilogueFusion.cpp - Elementwise consumers join their root ---------===//
#include "stages/backends/mlircpu/EpilogueFusion.h"
#include "stages/backends/mlircpu/LinalgProblem.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace retune::cpu {
namespace {

/// The input operand of `user` through which it reads `value`, when `user`
/// may join as an in-place epilogue of the op producing `value`.
OpOperand *joinableInput(Value value, linalg::GenericOp user) {
  if (!user || user->hasAttr(kEpilogueAttr) || user->getNumResults() != 1 ||
      user.getNumDpsInits() != 1 || !user.hasPureTensorSemantics() ||
      user.getNumParallelLoops() != user.getNumLoops() ||
      user->getResult(0).getType() != value.getType())
    return nullptr;
  OpOperand *init = user.getDpsInitOperand(0);
  if (!user.getMatchingIndexingMap(init).isIdentity() ||
      user.payloadUsesValueFromOperand(init))
    return nullptr;
  OpOperand *input = nullptr;
  for (OpOperand *operand : user.getDpsInputOperands()) {
    if (operand->get() != value)
      continue;
    if (input || !user.getMatchingIndexingMap(operand).isIdentity())
      return nullptr; // read twice, or not element for element
    input = operand;
  }
  // Values from above must be constants: the dump clones them into the
  // dispatch.
  bool capturesOnlyConstants = true;
  visitUsedValuesDefinedAbove(user->getRegions(), [&](OpOperand *used) {
    if (!matchPattern(used->get(), m_Constant()))
      capturesOnlyConstants = false;
  });
  return capturesOnlyConstants ? input : nullptr;
}

/// `user` with `input` moved into its destination: same loops, same body,
/// the block argument of `input` now the init's.
linalg::GenericOp rewriteInPlace(linalg::GenericOp user, OpOperand *input) {
  OpBuilder builder(user);
  unsigned position = input->getOperandNumber();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *operand : user.getDpsInputOperands()) {
    if (operand == input)
      continue;
    inputs.push_back(operand->get());
    maps.push_back(user.getMatchingIndexingMap(operand));
  }
  maps.push_back(user.getMatchingIndexingMap(user.getDpsInitOperand(0)));
  auto joined = linalg::GenericOp::create(
      builder, user.getLoc(), user->getResultTypes(), inputs,
      ValueRange{input->get()}, maps, user.getIteratorTypesArray());
  joined->setDiscardableAttrs(user->getDiscardableAttrDictionary());
  joined->setAttr(kEpilogueAttr, builder.getUnitAttr());
  Region &body = joined.getRegion();
  body.takeBody(user.getRegion());
  Block &block = body.front();
  // Block arguments: inputs..., init. The old init is unused (checked).
  BlockArgument moved = block.getArgument(position);
  BlockArgument result = block.addArgument(moved.getType(), moved.getLoc());
  moved.replaceAllUsesWith(result);
  block.eraseArgument(block.getNumArguments() - 2); // the old init
  block.eraseArgument(position);
  user->replaceAllUsesWith(joined->getResults());
  user->erase();
  return joined;
}

} // namespace

unsigned fuseEpilogues(ModuleOp module) {
  SmallVector<linalg::LinalgOp> roots;
  module.walk([&](linalg::LinalgOp op) {
    if (isRootOp(op) && op->getNumResults() == 1 && !op->hasAttr(kEpilogueAttr))
      roots.push_back(op);
  });
  unsigned joined = 0;
  for (linalg::LinalgOp root : roots) {
    // Extends a chain an earlier run left (running again changes nothing).
    SmallVector<linalg::GenericOp> earlier = epilogueOf(root);
    Value value =
        earlier.empty() ? root->getResult(0) : earlier.back()->getResult(0);
    for (unsigned chain = earlier.size();
         chain < kMaxEpilogueOps && value.hasOneUse(); ++chain) {
      auto user = dyn_cast<linalg::GenericOp>(*value.getUsers().begin());
      OpOperand *input = joinableInput(value, user);
      if (!input)
        break;
      value = rewriteInPlace(user, input)->getResult(0);
      root->setAttr(kRootAttr, UnitAttr::get(root->getContext()));
      ++joined;
    }
  }
  return joined;
}

SmallVector<linalg::GenericOp> epilogueOf(linalg::LinalgOp root) {
  SmallVector<linalg::GenericOp> chain;
  if (root->getNumResults() != 1)
    return chain;
  Value value = root->getResult(0);
  while (value.hasOneUse()) {
    auto user = dyn_cast<linalg::GenericOp>(*value.getUsers().begin());
    if (!user || !user->hasAttr(kEpilogueAttr) ||
        user.getDpsInitOperand(0)->get() != value)
      break;
    chain.push_back(user);
    value = user->getResult(0);
  }
  return chain;
}

} // namespace retune::cpu
