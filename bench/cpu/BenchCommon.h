//===- BenchCommon.h - Shared bits of the CPU benches against OpenBLAS ---===//
#ifndef RETUNE_BENCH_CPU_BENCHCOMMON_H
#define RETUNE_BENCH_CPU_BENCHCOMMON_H

#include "stages/backends/mlircpu/KernelRunner.h"
#include "stages/support/FileUtil.h"
#include "stages/core/Records.h"

#include <chrono>
#include <functional>

extern "C" void openblas_set_num_threads(int);
extern "C" char *openblas_get_corename(void);

namespace retune::bench {

/// Loads the function `name` ("" = the only one) of a successful compile
/// record; `signature` receives its signature.
inline llvm::Expected<std::unique_ptr<Kernel>>
loadFromRecord(llvm::StringRef recordPath, llvm::StringRef name,
               FuncSignature &signature) {
  llvm::Expected<CompileRecord> record = readRecord<CompileRecord>(
      recordPath, schema::kCompile, compileRecordFromJson);
  if (!record)
    return record.takeError();
  if (record->status != Status::Ok)
    return makeError(recordPath + ": not a successful build");
  for (const FuncSignature &f : record->functions)
    if (name.empty() ? record->functions.size() == 1 : f.name == name) {
      signature = f;
      return Kernel::load(record->artifact, signature);
    }
  return makeError(recordPath + ": no single function" +
                   (name.empty() ? llvm::Twine() : " @" + name));
}

/// Wall time of one call, in seconds.
inline double seconds(const std::function<void()> &call) {
  auto start = std::chrono::steady_clock::now();
  call();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

} // namespace retune::bench

#endif // RETUNE_BENCH_CPU_BENCHCOMMON_H
