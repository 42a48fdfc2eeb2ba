//===- DispatchFormation.cpp - Split a model into tunable dispatches ------===//
#include "stages/backends/mlircpu/DispatchFormation.h"
#include "stages/backends/mlircpu/DispatchOutlining.h"

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

/// Outlines `root`'s dispatch into `func @<name>` in a new module.
OwningOpRef<ModuleOp> outline(linalg::LinalgOp root, StringRef name) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(root->getLoc());
  OpBuilder builder(root->getContext());
  builder.setInsertionPointToEnd(module->getBody());
  cpu::outlineDispatch(builder, root, name);
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
