//===- OutputCheck.cpp - A tuned module computes what the baseline does ---===//
#include "stages/backends/iree/OutputCheck.h"

#include "stages/support/FileUtil.h"
#include "stages/core/Subprocess.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"

#include <random>

using namespace llvm;

namespace retune::iree {
namespace {

/// Element bytes of `--input=` element types we can fill; 0 for others.
unsigned elementBytes(StringRef type) {
  if (type == "f32" || type == "i32" || type == "ui32")
    return 4;
  if (type == "f16" || type == "bf16" || type == "i16" || type == "ui16")
    return 2;
  if (type == "f64" || type == "i64" || type == "ui64")
    return 8;
  if (type == "i8" || type == "ui8" || type == "i1")
    return 1;
  return 0;
}

/// Little-endian bytes of `value` in `type`.
void appendValue(std::string &bytes, StringRef type, double value) {
  auto append = [&](uint64_t bits, unsigned size) {
    for (unsigned i = 0; i < size; ++i)
      bytes.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  };
  auto floatBits = [&](const fltSemantics &semantics) {
    APFloat f(value);
    bool lost;
    f.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
    return f.bitcastToAPInt().getZExtValue();
  };
  unsigned size = elementBytes(type);
  if (type == "f32")
    return append(floatBits(APFloat::IEEEsingle()), size);
  if (type == "f64")
    return append(floatBits(APFloat::IEEEdouble()), size);
  if (type == "f16")
    return append(floatBits(APFloat::IEEEhalf()), size);
  if (type == "bf16")
    return append(floatBits(APFloat::BFloat()), size);
  append(static_cast<uint64_t>(value), size);
}

/// "256x1024xf32" -> ({256, 1024}, "f32"); std::nullopt when it is not a
/// shape-only input (it has contents, or is not a tensor).
std::optional<std::pair<uint64_t, std::string>> shapeOnly(StringRef value) {
  SmallVector<StringRef> m;
  if (!Regex("^(([0-9]+x)*)([a-z][a-z0-9]*)$").match(value, &m))
    return std::nullopt;
  uint64_t elements = 1;
  SmallVector<StringRef> dims;
  StringRef(m[1]).split(dims, 'x', -1, false);
  for (StringRef dim : dims) {
    uint64_t n = 0;
    dim.getAsInteger(10, n);
    elements *= n;
  }
  if (!elementBytes(m[3]))
    return std::nullopt;
  return std::make_pair(elements, m[3].str());
}

} // namespace

Expected<std::vector<std::string>> seedInputs(ArrayRef<std::string> flags,
                                              StringRef dir, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::vector<std::string> seeded;
  for (const std::string &flag : flags) {
    StringRef value = flag;
    std::optional<std::pair<uint64_t, std::string>> shape;
    if (value.consume_front("--input="))
      shape = shapeOnly(value);
    if (!shape) {
      seeded.push_back(flag);
      continue;
    }
    auto [elements, type] = *shape;
    bool isFloat = StringRef(type).starts_with("f") || type == "bf16";
    std::string bytes;
    bytes.reserve(elements * elementBytes(type));
    for (uint64_t i = 0; i < elements; ++i)
      appendValue(bytes, type, isFloat ? real(random) : double(random() & 1));
    std::string file = formatv("{0}/input{1}.bin", dir, seeded.size()).str();
    if (Error err = writeFileAtomic(file, bytes))
      return std::move(err);
    seeded.push_back(flag + "=@" + file);
  }
  return seeded;
}

namespace {
std::vector<std::string> runArgs(const IreeTools &tools,
                                 const RunRequest &request) {
  std::vector<std::string> args = {"--device=" + request.device,
                                   "--module=" + request.vmfbPath};
  args.insert(args.end(), tools.deviceFlags.begin(), tools.deviceFlags.end());
  if (!request.function.empty())
    args.push_back("--function=" + request.function);
  args.insert(args.end(), request.inputFlags.begin(), request.inputFlags.end());
  return args;
}
} // namespace

std::string Reference::file(unsigned i) const {
  return formatv("{0}.{1}.npy", stem, i).str();
}

Expected<Reference> writeReference(const IreeTools &tools,
                                   const RunRequest &request, StringRef stem) {
  // How many results: iree-run-module prints `result[<i>]: ...` for each.
  ChildOutcome counted =
      tools.runTool(tools.run, runArgs(tools, request), request.timeoutSeconds,
                    0, request.logPath);
  if (counted.status != Status::Ok)
    return makeError(request.vmfbPath + ": iree-run-module failed on the "
                                        "baseline (" +
                     toString(counted.status) + "): " + counted.message);
  Expected<std::string> log = readFile(request.logPath);
  if (!log)
    return log.takeError();
  unsigned results = 0;
  for (StringRef rest = *log; rest.contains("result[");
       rest = rest.drop_front(rest.find("result[") + 7))
    ++results;
  Reference reference{stem.str(), results};
  std::vector<std::string> args = runArgs(tools, request);
  for (unsigned i = 0; i < results; ++i)
    args.push_back("--output=@" + reference.file(i));
  ChildOutcome written = tools.runTool(tools.run, args, request.timeoutSeconds,
                                       0, request.logPath);
  if (written.status != Status::Ok)
    return makeError(request.vmfbPath + ": iree-run-module could not write " +
                     reference.file(0) + ": " + written.message);
  return reference;
}

OutputCheck checkOutputs(const IreeTools &tools, const RunRequest &request,
                         const Reference &reference) {
  std::vector<std::string> args = runArgs(tools, request);
  for (StringRef flag :
       {"--expected_f32_threshold=1e-3", "--expected_f16_threshold=1e-2",
        "--expected_bf16_threshold=1e-2", "--expected_rtol=1e-3"})
    args.push_back(flag.str());
  for (unsigned i = 0; i < reference.results; ++i)
    args.push_back("--expected_output=@" + reference.file(i));
  ChildOutcome outcome = tools.runTool(tools.run, args, request.timeoutSeconds,
                                       0, request.logPath);
  if (outcome.status == Status::Ok)
    return {};
  // A non-zero exit after a completed run is a mismatch; the log's
  // "[FAILED] result[i]: ..." line says where.
  Expected<std::string> log = readFile(request.logPath);
  std::string first;
  if (log) {
    size_t at = log->find("[FAILED]");
    if (at != std::string::npos)
      first = StringRef(*log).drop_front(at).split('\n').first.take_front(300).str();
  } else {
    consumeError(log.takeError());
  }
  if (outcome.status == Status::CompileError && !first.empty())
    return {Status::WrongResult,
            "results differ from the baseline's: " + first + " (" +
                request.logPath + ")"};
  return {outcome.status == Status::CompileError ? Status::Crash
                                                 : outcome.status,
          "iree-run-module: " + outcome.message};
}

} // namespace retune::iree
