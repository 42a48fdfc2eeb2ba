//===- KernelRunner.cpp - Load and call compiled kernels ------------------===//
#include "stages/backends/mlircpu/KernelRunner.h"

#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <random>
#include <utility>

namespace retune::bench {
namespace {

size_t bytesOf(StringRef type) {
  if (type == "f64" || type == "i64")
    return 8;
  if (type == "f16" || type == "bf16" || type == "i16")
    return 2;
  if (type == "i8" || type == "i1")
    return 1;
  return 4;
}

uint16_t toBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  bits += 0x7fff + ((bits >> 16) & 1); // round to nearest even
  return static_cast<uint16_t>(bits >> 16);
}

float fromBf16(uint16_t half) {
  uint32_t bits = static_cast<uint32_t>(half) << 16;
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

/// Memref descriptor words for a dense row-major buffer.
std::vector<int64_t> descriptorFor(const Buffer &buffer) {
  const std::vector<int64_t> &shape = buffer.spec().shape;
  size_t rank = shape.size();
  std::vector<int64_t> words(3 + 2 * rank);
  words[0] = words[1] = reinterpret_cast<int64_t>(buffer.data());
  words[2] = 0;
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    words[3 + i] = shape[i];
    words[3 + rank + i] = stride;
    stride *= shape[i];
  }
  return words;
}

/// The sentinel MLIR puts in `allocated` for memref.global buffers.
constexpr int64_t kGlobalSentinel = 0xdeadbeef;

} // namespace

Buffer::Buffer(const TensorSpec &spec) : tensor(spec) {
  for (int64_t d : spec.shape)
    count *= d;
  elementBytes = bytesOf(spec.elementType);
  size_t bytes = std::max<size_t>(64, (count * elementBytes + 63) / 64 * 64);
  storage = std::aligned_alloc(64, bytes);
  std::memset(storage, 0, bytes);
}

Buffer::Buffer(const Buffer &other) : Buffer(other.tensor) {
  std::memcpy(storage, other.storage, count * elementBytes);
}

Buffer::~Buffer() { std::free(storage); }

void Buffer::randomize(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> real(-1.f, 1.f);
  std::uniform_int_distribution<int> small(-8, 8);
  StringRef type = tensor.elementType;
  for (int64_t i = 0; i < count; ++i) {
    if (type == "f32")
      static_cast<float *>(storage)[i] = real(rng);
    else if (type == "f64")
      static_cast<double *>(storage)[i] = real(rng);
    else if (type == "f16")
      static_cast<_Float16 *>(storage)[i] = static_cast<_Float16>(real(rng));
    else if (type == "bf16")
      static_cast<uint16_t *>(storage)[i] = toBf16(real(rng));
    else if (type == "i8")
      static_cast<int8_t *>(storage)[i] = small(rng);
    else if (type == "i16")
      static_cast<int16_t *>(storage)[i] = small(rng);
    else if (type == "i32")
      static_cast<int32_t *>(storage)[i] = small(rng);
    else if (type == "i64")
      static_cast<int64_t *>(storage)[i] = small(rng);
  }
}

double Buffer::at(int64_t i) const {
  StringRef type = tensor.elementType;
  if (type == "f32")
    return static_cast<const float *>(storage)[i];
  if (type == "f64")
    return static_cast<const double *>(storage)[i];
  if (type == "f16")
    return static_cast<const _Float16 *>(storage)[i];
  if (type == "bf16")
    return fromBf16(static_cast<const uint16_t *>(storage)[i]);
  if (type == "i8")
    return static_cast<const int8_t *>(storage)[i];
  if (type == "i16")
    return static_cast<const int16_t *>(storage)[i];
  if (type == "i64")
    return static_cast<const int64_t *>(storage)[i];
  return static_cast<const int32_t *>(storage)[i];
}

std::vector<Buffer> makeInputs(const FuncSignature &signature, uint64_t seed) {
  std::vector<Buffer> inputs;
  for (auto [index, spec] : llvm::enumerate(signature.args)) {
    inputs.emplace_back(spec);
    inputs.back().randomize(seed * 1000003 + index);
  }
  return inputs;
}

/// The most pointers a kernel's C interface takes: its result descriptor
/// and one descriptor per argument (a model's weights are arguments too).
constexpr size_t kMaxPointerArgs = 128;

/// Calls `function` with all of `p`. The C interface takes only pointers;
/// under the SysV calling convention the caller pops the stack, so trailing
/// pointers the callee does not declare are ignored.
template <size_t... I>
static void callWithPointers(void *function,
                             const std::array<void *, sizeof...(I)> &p,
                             std::index_sequence<I...>) {
  using Fn = void (*)(decltype((void)I, static_cast<void *>(nullptr))...);
  reinterpret_cast<Fn>(function)(p[I]...);
}

Expected<std::unique_ptr<Kernel>> Kernel::load(StringRef objectPath,
                                               const FuncSignature &signature) {
  if (signature.args.size() + 1 > kMaxPointerArgs)
    return makeError("function @" + signature.name + " has " +
                     Twine(signature.args.size()) + " arguments; at most " +
                     Twine(kMaxPointerArgs - 1) + " are supported");
  std::unique_ptr<Kernel> kernel(new Kernel());
  kernel->sig = signature;
  // RTLD_LOCAL: baseline and candidate export the same symbol names.
  // dlopen searches the library path for names without a slash.
  llvm::SmallString<256> absolute(objectPath);
  llvm::sys::fs::make_absolute(absolute);
  kernel->library = dlopen(absolute.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!kernel->library)
    return makeError(objectPath + ": cannot load: " + dlerror());
  std::string symbol = "_mlir_ciface_" + signature.name;
  kernel->function = dlsym(kernel->library, symbol.c_str());
  if (!kernel->function)
    return makeError(objectPath + ": no symbol " + symbol);
  size_t resultWords = 0;
  for (const TensorSpec &r : signature.results)
    resultWords += 3 + 2 * r.shape.size();
  kernel->resultDescriptors.assign(std::max<size_t>(resultWords, 1), 0);
  return std::move(kernel);
}

Kernel::~Kernel() {
  if (library)
    dlclose(library);
}

void Kernel::setInputs(const std::vector<Buffer> &inputs) {
  args.clear();
  argDescriptors.clear();
  for (const Buffer &input : inputs)
    args.emplace_back(input);
  for (const Buffer &arg : args)
    argDescriptors.push_back(descriptorFor(arg));
}

std::vector<Values> Kernel::call(bool readResults) {
  std::array<void *, kMaxPointerArgs> p{};
  unsigned n = 0;
  if (!sig.results.empty())
    p[n++] = resultDescriptors.data();
  for (std::vector<int64_t> &d : argDescriptors)
    p[n++] = d.data();
  callWithPointers(function, p, std::make_index_sequence<kMaxPointerArgs>());
  std::vector<Values> results;
  size_t offset = 0;
  for (const TensorSpec &spec : sig.results) {
    const int64_t *words = resultDescriptors.data() + offset;
    size_t rank = spec.shape.size();
    offset += 3 + 2 * rank;
    if (readResults) {
      // Read through the descriptor's strides into a dense vector.
      TensorSpec denseSpec = spec;
      Buffer view(denseSpec);
      int64_t count = view.numElements();
      Values values(count);
      std::vector<int64_t> index(rank, 0);
      size_t bytes = bytesOf(spec.elementType);
      auto *base = reinterpret_cast<char *>(words[1]) + words[2] * bytes;
      for (int64_t linear = 0; linear < count; ++linear) {
        int64_t elementOffset = 0;
        for (size_t d = 0; d < rank; ++d)
          elementOffset += index[d] * words[3 + rank + d];
        std::memcpy(static_cast<char *>(view.data()) + linear * bytes,
                    base + elementOffset * bytes, bytes);
        values[linear] = view.at(linear);
        for (size_t d = rank; d-- > 0;) {
          if (++index[d] < spec.shape[d])
            break;
          index[d] = 0;
        }
      }
      results.push_back(std::move(values));
    }
    // Results that are fresh allocations belong to us now.
    int64_t allocated = words[0];
    bool aliasesArg = llvm::any_of(
        argDescriptors, [&](const auto &d) { return d[0] == allocated; });
    if (allocated && allocated != kGlobalSentinel && !aliasesArg)
      std::free(reinterpret_cast<void *>(allocated));
  }
  return results;
}

double toleranceFor(StringRef elementType) {
  if (elementType == "f64")
    return 1e-9;
  if (elementType == "f32")
    return 1e-3;
  if (elementType == "f16")
    return 5e-2;
  if (elementType == "bf16")
    return 1e-1;
  return 0;
}

double maxRelativeError(const std::vector<Values> &actual,
                        const std::vector<Values> &expected) {
  if (actual.size() != expected.size())
    return INFINITY;
  double worst = 0;
  for (size_t r = 0; r < actual.size(); ++r) {
    if (actual[r].size() != expected[r].size())
      return INFINITY;
    for (size_t i = 0; i < actual[r].size(); ++i) {
      double a = actual[r][i], e = expected[r][i];
      if (std::isnan(a) != std::isnan(e))
        return INFINITY;
      worst = std::max(worst, std::fabs(a - e) / (1.0 + std::fabs(e)));
    }
  }
  return worst;
}

} // namespace retune::bench
