//===- Defaults.h - The one copy of every step setting's default -*- C++ -*-===//
//
// tune.toml's defaults (pipeline/Config.h) and the stage tools' option
// defaults (a tool run by hand, without the values the plan passes) are
// the same numbers; both read them here.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CORE_DEFAULTS_H
#define RETUNE_CORE_DEFAULTS_H

namespace retune::defaults {

// [tune]
inline constexpr unsigned kCandidates = 8;
// [compile]
inline constexpr unsigned kCompileTimeoutSeconds = 120;
inline constexpr unsigned kCompileMemoryMB = 8192;
// [bench]
inline constexpr unsigned kWarmup = 2;
inline constexpr unsigned kRepetitions = 10;
inline constexpr double kMinSampleSeconds = 0.002;
inline constexpr unsigned kBenchTimeoutSeconds = 300;
inline constexpr unsigned kSeed = 1;
// [select]
inline constexpr double kMargin = 0.02;
// [iree]
inline constexpr unsigned kIreeRepetitions = 5;
inline constexpr unsigned kIreeDumpTimeoutSeconds = 1800;
inline constexpr unsigned kModelRounds = 3;
inline constexpr unsigned kModelCandidates = 3;

} // namespace retune::defaults

#endif // RETUNE_CORE_DEFAULTS_H
