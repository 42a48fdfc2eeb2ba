//===- IreeRun.h - Compiling and benchmarking with IREE's tools -*- C++ -*-===//
//
// Candidate compiles (`iree-compile --compile-from=executable-sources
// --iree-codegen-tuning-spec-path=...`), whole-model compiles, dispatch and
// model benchmarks (`iree-benchmark-module ... --benchmark_format=json`),
// Google Benchmark JSON parsing, the ratio to the same device's baseline, and
// the choice of hot dispatches. Candidate failures come back as records.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_IREERUN_H
#define RETUNE_IREE_IREERUN_H

#include "stages/core/Statistics.h"
#include "stages/backends/iree/IreeTools.h"
#include "stages/support/LLVM.h"
#include "stages/core/Records.h"

#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>
#include <vector>

namespace retune::iree {

//===----------------------------------------------------------------------===//
// Compile
//===----------------------------------------------------------------------===//

struct CompileRequest {
  /// A stripped dispatch benchmark (or a model when !fromExecutableSources).
  std::string input;
  /// Tuning spec; empty compiles with the compiler's own heuristics.
  std::string specPath;
  std::string vmfbPath;
  /// `--mlir-pass-pipeline-crash-reproducer=` target; empty: vmfb + ".crash.mlir".
  std::string reproducerPath;
  std::string logPath;
  /// Target and user flags (e.g. --iree-hal-target-device=hip
  /// --iree-rocm-target=gfx942).
  std::vector<std::string> flags;
  /// "gpu", "cuda" or "cpu": how the spec is passed (IreeSyntax::specFlags).
  std::string family = "gpu";
  bool fromExecutableSources = true;
  /// amdsharktuner: 16 s per dispatch candidate, 120 s per model.
  unsigned timeoutSeconds = 16;
  unsigned memoryMB = 0;
};

std::vector<std::string> compileArgs(const IreeSyntax &syntax,
                                     const CompileRequest &request);

/// Compiles one candidate. Never fails: errors, crashes, timeouts and a vmfb
/// that was not written (even with exit code 0) are the record's status. An
/// Ok record carries the vmfb path and its content hash.
CompileRecord compileCandidate(const IreeTools &tools,
                               const CompileRequest &request);

/// For each record, the index of the first Ok record with the same artifact
/// hash (itself when it is the first); std::nullopt for failed records.
std::vector<std::optional<size_t>>
findDuplicateArtifacts(llvm::ArrayRef<CompileRecord> records);

//===----------------------------------------------------------------------===//
// Benchmark
//===----------------------------------------------------------------------===//

struct BenchRequest {
  std::string vmfbPath;
  /// `hip://0`, `local-task`, ...
  std::string device;
  unsigned repetitions = 3;
  /// Set for model benchmarks (`--function=main`); dispatch benchmarks run
  /// every `iree.benchmark = "dispatch"` export.
  std::string function;
  /// The user's benchmark flags (inputs, batch size, ...).
  std::vector<std::string> flags;
  /// Where Google Benchmark writes its JSON (`--benchmark_out`).
  std::string jsonPath;
  std::string logPath;
  unsigned timeoutSeconds = 0;
};

/// How long each repetition (one sample) of a benchmark runs. Google
/// Benchmark's default, half a second, overshoots to about 0.7 s, and a
/// whole-model timing is 2 x rounds x repetitions samples: the flag search
/// spent 72 of MiniLM's 87 s there (1 thread). At 0.1 s the five samples of
/// one MiniLM run (15.5 ms, 8 iterations each) spread 0.1-0.2 ms, as at
/// 0.5 s (0.1-2 ms); at 0.05 s, 1.6 ms. A `--benchmark_min_time` among the
/// request's flags (the user's benchmark flags, a profile's) stands.
inline constexpr llvm::StringLiteral kSampleTimeFlag =
    "--benchmark_min_time=0.1s";

/// A whole model runs a tenth of a second before its first sample: the
/// first run of a process faults in the caching allocator's pool and warms
/// the caches, and its sample stood out (PP-OCRv4's detector, 1 thread:
/// 236-261 ms first, 170-211 ms after, in every process), which widened the
/// spread that a spec must beat. With it: 166-175 ms throughout. A
/// profile, which counts calls, sets it to 0.
inline constexpr llvm::StringLiteral kModelWarmupFlag =
    "--benchmark_min_warmup_time=0.1";

std::vector<std::string> benchArgs(const BenchRequest &request);

/// Dispatches a dispatch benchmark records per timed iteration on a device
/// with several workers (IREE's `--batch_size`; times stay per dispatch).
/// One dispatch per submission measures the workers waking up: on 2 threads
/// a MiniLM batch_mmt4d took 594 us alone and 182 us in a batch, its
/// candidates 316-387 and 241-249 us, so alone they looked 1.5-1.9x faster
/// and made the whole model 7% slower, while a candidate of another
/// dispatch that batches 1.3x faster (and alone not at all) made the model
/// 1.11x faster. One worker (local-sync) times the same either way.
inline constexpr unsigned kThreadedDispatchBatch = 16;

/// A whole model on this CPU (`local-*`) runs on IREE's caching allocator.
/// With the default one every run returns its transient buffers to the OS
/// and faults them in again: PP-OCRv4's detector took 26.5 thousand minor
/// page faults a run (about 106 MB touched anew) and 274 ms, with the
/// caching allocator no fault after the first run and 212 ms (1 thread).
/// The faults are the kernel's time, the same for every compile flag and
/// spec, and noisy; a deployment that cares runs with a caching allocator
/// too (onnxruntime's arena is on by default). The user's own
/// `--device_allocator` stands.
inline constexpr llvm::StringLiteral kCachingAllocatorFlag =
    "--device_allocator=caching";

/// The flags a benchmark adds for its device: the device's own
/// (`tools.deviceFlags`), for a dispatch benchmark on several workers the
/// batch, and for a whole model on this CPU the caching allocator (unless
/// the user's benchmark flags set their own).
std::vector<std::string> deviceBenchArgs(const std::vector<std::string> &deviceFlags,
                                         const BenchRequest &request);

/// A dispatch benchmark on this CPU (`local-*`) runs on memory that holds
/// pages of its own. IREE's benchmark allocates its buffers and never
/// writes the inputs, and Linux maps memory never written to one shared
/// zero page: every read of an input then hits the cache, however large
/// the input. A dispatch that streams its inputs from memory in the model
/// looked fast alone and its candidates were ranked by compute only:
/// the ViT's decoder matmul (mmt4d 8x2048x2048, a 134 MB input) took
/// 55-75 ms alone and 121 ms in the model with IREE's config, and the
/// config that reads the large input once instead of eight times looked no
/// better alone (50-80 ms) while in the model it ran in 89 ms. With glibc's
/// MALLOC_PERTURB_=255 every allocation is written with zeros (the values
/// stay as before, so no index or denormal changes): IREE's config 105-145
/// ms alone, the other 63-84. A libc without it measures as before.
inline constexpr llvm::StringLiteral kWrittenMemoryEnvironment =
    "MALLOC_PERTURB_=255";

/// The environment a benchmark runs with ("NAME=value" over Retune's):
/// for a dispatch benchmark on this CPU, kWrittenMemoryEnvironment.
std::vector<std::string> benchEnvironment(const BenchRequest &request);

/// Parsed Google Benchmark output.
struct BenchmarkRun {
  /// Per-repetition `real_time` of iteration rows, in microseconds.
  std::vector<double> samplesUs;
  /// Aggregate rows (`mean`, `median`, `stddev`: microseconds; `cv`: fraction).
  llvm::StringMap<double> aggregates;
  /// The first `error_message` of a row with `error_occurred`.
  std::string error;
  /// Benchmark names seen (`BM_<function>/process_time/real_time`).
  std::vector<std::string> names;
};

/// Parses Google Benchmark JSON (the JSON may follow other stdout lines).
/// When only aggregates were reported, the mean is the one sample.
Expected<BenchmarkRun> parseBenchmarkJson(llvm::StringRef text,
                                          llvm::StringRef where);

struct BenchOutcome {
  Status status = Status::Ok;
  std::string message;
  std::vector<double> samplesUs;
  double seconds = 0;
  /// When the (first) benchmark run started (Unix seconds).
  double startedAt = 0;
  /// The median of each benchmark process's samples, in run order: a
  /// process is the unit of independence (ASLR and where its memory
  /// lands shift all its samples alike; docs/iree-backend.md).
  std::vector<double> runMediansUs;
};

/// Runs one benchmark; crashes, timeouts, non-zero exits, missing output and
/// rows with `error_occurred` become a non-Ok status.
BenchOutcome runBenchmark(const IreeTools &tools, const BenchRequest &request);

/// The name of the machine-wide measurement lock (DeviceLock) of an IREE
/// device: IREE's CPU drivers (`local-sync`, `local-task`) measure this CPU,
/// the same device the mlir-cpu backend's benches lock ("cpu"); a GPU is
/// its URI.
std::string deviceLockName(llvm::StringRef device);

//===----------------------------------------------------------------------===//
// Ranking
//===----------------------------------------------------------------------===//

/// A candidate's record against its device's baseline, measured before and
/// after the candidates: ratio and noise as every backend's
/// (stats::summarizeSamples); a baseline that drifted more than 3% is noted
/// in the message, and one whose two measurements differ by more than 10%
/// (either way) ranks the candidate against the faster one alone.
BenchRecord makeBenchRecord(const BenchOutcome &candidate,
                            llvm::ArrayRef<double> baselineBefore,
                            llvm::ArrayRef<double> baselineAfter);

/// Builds of the whole model benchmarked in turn for `rounds` rounds on
/// the same device, each run with its request's repetitions; round r starts
/// with request r mod n, so each build is in turn first. Samples are
/// concatenated per request, one run median per run; logs and JSON files
/// get a `.<round>` suffix. A failing run's status is kept and its build
/// runs no more; the rounds stop when the first request (the reference
/// the others are compared with) fails or no other is left.
std::vector<BenchOutcome> benchRoundRobin(const IreeTools &tools,
                                          llvm::ArrayRef<BenchRequest> requests,
                                          unsigned rounds);

/// A baseline and a tuned build benchmarked alternately (benchRoundRobin of
/// the two: the baseline first in even rounds, the tuned build in odd
/// ones); stops at the first failing run.
struct InterleavedOutcome {
  BenchOutcome baseline, tuned;
};
InterleavedOutcome benchInterleaved(const IreeTools &tools,
                                    const BenchRequest &baseline,
                                    const BenchRequest &tuned,
                                    unsigned rounds);

/// The baseline samples to rank a candidate measured on `device` against:
/// that device's, or, when it has none, every device's (as amdsharktuner).
std::vector<double>
baselineFor(const llvm::StringMap<std::vector<double>> &perDevice,
            llvm::StringRef device);

/// Indices of `records` best first: Ok records by ratio, failures last.
std::vector<size_t> rankByRatio(llvm::ArrayRef<BenchRecord> records);

//===----------------------------------------------------------------------===//
// Hot dispatches
//===----------------------------------------------------------------------===//

struct HotCandidate {
  std::string id;
  /// Names a profile may use: the export, the benchmark function, ...
  std::vector<std::string> names;
  double flops = 0;
  unsigned occurrences = 1;
  /// One call's measured time with IREE's default config (0: not timed).
  /// When every candidate has one and no profile is given, shares are
  /// time x calls instead of FLOPs x calls.
  double timeUs = 0;
  /// FLOPs a second the workers that ran the profile can reach on this
  /// dispatch's kind and element type (CpuHost::peakFlopsPerCore x
  /// workers); 0 where its time is not bound by FLOPs (a pack, a softmax)
  /// or the target is not a CPU.
  double peakFlopsPerSecond = 0;
};

struct HotPolicy {
  /// Tune dispatches with at least this share of the model's work (0..1).
  double minShare = 0;
  /// At most this many (0: no limit).
  unsigned topK = 0;
};

/// A profile: microseconds per dispatch name. Either text lines
/// `<name> <microseconds> [<count>]` (`#` comments; time is per call, count
/// defaults to 1) or Google Benchmark JSON from iree-benchmark-module on a
/// dispatch-benchmark module (mean real_time per benchmark). Names may be
/// `BM_<fn>/process_time/real_time`; the decoration is dropped.
Expected<llvm::StringMap<double>> readProfile(llvm::StringRef text,
                                              llvm::StringRef fileName);

struct HotSelection {
  /// Indices into the candidates, heaviest first.
  std::vector<size_t> selected;
  /// Share of the total work per candidate (same order as the input).
  std::vector<double> shares;
  /// With a profile, per candidate: the share of the model's time it could
  /// give back, its time above what its FLOPs take at the peak rate (its
  /// whole share where it has no peak). Empty without a profile.
  std::vector<double> gainShares;
  /// With a profile, per candidate: its FLOP rate in the model over the
  /// peak rate (0: no peak). The peak is the larger of the modelled one and
  /// the fastest rate a dispatch of the model reached (a clock above the
  /// model's), so no dispatch is above 1.
  std::vector<double> peakFractions;
  /// With a profile, per candidate: that peak rate, FLOPs a second (0: no
  /// peak), against which another measurement of its time is judged.
  std::vector<double> peakFlopsPerSecond;
};

/// Weights dispatches by profile time when `profile` is given (a dispatch the
/// profile does not name weighs 0), else by FLOPs x occurrences. With a
/// profile the order (and top_k) goes by time to gain: a matmul that
/// already runs at the CPU's peak has little to give back however hot.
HotSelection selectHotDispatches(llvm::ArrayRef<HotCandidate> candidates,
                                 const HotPolicy &policy,
                                 const llvm::StringMap<double> *profile);

} // namespace retune::iree

#endif // RETUNE_IREE_IREERUN_H
