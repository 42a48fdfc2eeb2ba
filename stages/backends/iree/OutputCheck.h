//===- OutputCheck.h - A tuned module computes what the baseline does -*- C++ -*-===//
//
// IREE has no check of its own that a tuning spec keeps a module's results:
// a lowering config can compile and compute garbage. The model step runs the
// baseline and each tuned module with iree-run-module on the same seeded
// inputs and compares the results with iree-run-module's own approximate
// comparison (--expected_output).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_OUTPUTCHECK_H
#define RETUNE_IREE_OUTPUTCHECK_H

#include "stages/backends/iree/IreeTools.h"
#include "stages/core/Records.h"

#include <string>
#include <vector>

namespace retune::iree {

/// Replaces every shape-only input flag (`--input=256x1024xf32`, which
/// iree-run-module fills with zeros) by one whose contents are seeded
/// random values written to `<dir>/input<i>.bin`: floats uniform in [-1, 1],
/// integers 0 or 1 (valid token ids and attention masks). Other flags are
/// kept. The same seed gives the same bytes.
Expected<std::vector<std::string>>
seedInputs(llvm::ArrayRef<std::string> flags, llvm::StringRef dir,
           uint64_t seed);

/// How one module is run: iree-run-module's module, device, function and
/// input flags, with a log and a time limit.
struct RunRequest {
  std::string vmfbPath;
  std::string device;
  std::string function;
  std::vector<std::string> inputFlags;
  std::string logPath;
  unsigned timeoutSeconds = 300;
};

/// The reference build's results: one .npy file per result,
/// `<stem>.<i>.npy` (iree-run-module compares one value per
/// --expected_output).
struct Reference {
  std::string stem;
  unsigned results = 0;
  std::string file(unsigned i) const;
};

/// Runs the reference (the baseline module) and writes its results.
Expected<Reference> writeReference(const IreeTools &tools,
                                   const RunRequest &request,
                                   llvm::StringRef stem);

struct OutputCheck {
  /// Ok, WrongResult, or the run's own failure (Crash, Timeout, ...).
  Status status = Status::Ok;
  std::string message;
};

/// Runs `request` and compares its results with the reference's
/// (|actual - expected| <= atol + rtol * |expected|: f32 atol 1e-3,
/// f16/bf16 1e-2, rtol 1e-3; tiling reorders floating-point sums).
OutputCheck checkOutputs(const IreeTools &tools, const RunRequest &request,
                         const Reference &reference);

} // namespace retune::iree

#endif // RETUNE_IREE_OUTPUTCHECK_H
