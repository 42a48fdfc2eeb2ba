//===- TensorSizes.cpp - Tensors no machine can hold ----------------------===//
#include "stages/backends/mlircpu/TensorSizes.h"

#include "stages/support/FileUtil.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>
#include <unistd.h>

using namespace llvm;

namespace retune::cpu {
namespace {

std::string printed(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

std::string where(mlir::Location loc, StringRef path) {
  if (auto file = dyn_cast<mlir::FileLineColLoc>(loc))
    return formatv("{0}:{1}:{2}", path, file.getLine(), file.getColumn()).str();
  return path.str();
}

/// Why `type` cannot be held, or empty.
std::string tooLarge(mlir::Type type, uint64_t limitBytes) {
  auto tensor = dyn_cast<mlir::RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return {};
  uint64_t elements = 1;
  for (int64_t dim : tensor.getShape()) {
    uint64_t next = 0;
    if (dim < 0 || __builtin_mul_overflow(elements, uint64_t(dim), &next) ||
        next > uint64_t(std::numeric_limits<int64_t>::max()))
      return formatv("{0}: its element count overflows 64 bits",
                     printed(type))
          .str();
    elements = next;
  }
  uint64_t bits = tensor.getElementType().getIntOrFloatBitWidth();
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(elements, std::max<uint64_t>(bits, 8) / 8, &bytes))
    return formatv("{0}: its size in bytes overflows 64 bits", printed(type))
        .str();
  if (limitBytes > 0 && bytes > limitBytes)
    return formatv("{0} holds {1} bytes, more than this machine's memory "
                   "({2} bytes): no benchmark can allocate it",
                   printed(type), bytes, limitBytes)
        .str();
  return {};
}

} // namespace

uint64_t physicalMemoryBytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? uint64_t(pages) * uint64_t(size) : 0;
}

Error checkTensorSizes(mlir::ModuleOp module, StringRef path,
                       uint64_t limitBytes) {
  std::string problem;
  mlir::Location at = module.getLoc();
  module.walk<mlir::WalkOrder::PreOrder>([&](mlir::Operation *op) {
    auto check = [&](mlir::Type type, mlir::Location loc) {
      if (!problem.empty())
        return;
      problem = tooLarge(type, limitBytes);
      at = loc;
    };
    for (mlir::Type type : op->getResultTypes())
      check(type, op->getLoc());
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments())
          check(arg.getType(), arg.getLoc());
    return problem.empty() ? mlir::WalkResult::advance()
                           : mlir::WalkResult::interrupt();
  });
  if (problem.empty())
    return Error::success();
  return makeError(where(at, path) + ": " + problem +
                   "; make the model's shapes smaller (a batch or a "
                   "sequence length) or tune a smaller variant of it");
}

} // namespace retune::cpu
