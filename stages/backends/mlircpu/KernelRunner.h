//===- KernelRunner.h - Load and call compiled kernels ----------*- C++ -*-===//
//
// Loads a shared object from the mlir-cpu compiler and calls a function
// through MLIR's C interface: `_mlir_ciface_<name>(results*, args*...)`,
// where every tensor is a ranked memref descriptor
//   { T *allocated; T *aligned; int64 offset; int64 sizes[R]; int64 strides[R] }.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_BENCH_KERNELRUNNER_H
#define RETUNE_BENCH_KERNELRUNNER_H

#include "stages/support/LLVM.h"
#include "stages/core/Records.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace retune::bench {

/// A dense, 64-byte aligned tensor buffer of one element type.
class Buffer {
public:
  Buffer(const TensorSpec &spec);
  Buffer(const Buffer &other);
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer();

  /// Fills with seeded random values suited to the element type.
  void randomize(uint64_t seed);
  int64_t numElements() const { return count; }
  void *data() const { return storage; }
  const TensorSpec &spec() const { return tensor; }
  /// Element `i` converted to double (for comparisons).
  double at(int64_t i) const;

private:
  TensorSpec tensor;
  int64_t count = 1;
  size_t elementBytes = 4;
  void *storage = nullptr;
};

/// Values of a function result, read back densely as doubles.
using Values = std::vector<double>;

/// One loaded function with its own argument buffers.
class Kernel {
public:
  /// Loads `objectPath` and resolves `signature.name`. Errors name the file.
  static Expected<std::unique_ptr<Kernel>>
  load(StringRef objectPath, const FuncSignature &signature);
  ~Kernel();

  /// Copies `inputs` into this kernel's argument buffers.
  void setInputs(const std::vector<Buffer> &inputs);
  /// Calls once; returns the results (read back when `readResults`).
  std::vector<Values> call(bool readResults);
  const FuncSignature &signature() const { return sig; }

private:
  Kernel() = default;
  void *library = nullptr;
  void *function = nullptr;
  FuncSignature sig;
  std::vector<Buffer> args;
  std::vector<std::vector<int64_t>> argDescriptors;
  std::vector<int64_t> resultDescriptors;
};

/// Random inputs for `signature`, deterministic for `seed`.
std::vector<Buffer> makeInputs(const FuncSignature &signature, uint64_t seed);

/// Relative tolerance for comparing results of `elementType`.
double toleranceFor(StringRef elementType);

/// Largest |a - b| / (1 + |b|) over all results.
double maxRelativeError(const std::vector<Values> &actual,
                        const std::vector<Values> &expected);

} // namespace retune::bench

#endif // RETUNE_BENCH_KERNELRUNNER_H
