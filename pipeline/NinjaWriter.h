//===- NinjaWriter.h - Emits Ninja manifests with correct escaping -*- C++ -*-===//
#ifndef RETUNE_PIPELINE_NINJAWRITER_H
#define RETUNE_PIPELINE_NINJAWRITER_H

#include "stages/support/LLVM.h"

#include <string>
#include <utility>
#include <vector>

namespace retune::pipeline {

/// Escapes a path for a build line ('$', ' ', ':' and newlines).
std::string escapePath(StringRef path);
/// Escapes a variable value ('$' and newlines; spaces are fine).
std::string escapeValue(StringRef value);
/// Quotes `arg` for the POSIX shell that runs Ninja commands. Every value
/// from tune.toml or the file system that reaches a command line goes
/// through this (and then escapeValue, which doubles '$').
std::string shellQuote(StringRef arg);

struct BuildStatement {
  std::vector<std::string> outputs;
  std::vector<std::string> implicitOutputs;
  std::string rule;
  std::vector<std::string> inputs;
  std::vector<std::string> implicitInputs;
  std::vector<std::string> orderOnlyInputs;
  std::vector<std::pair<std::string, std::string>> variables;
};

/// Accumulates manifest text; every path goes through escapePath.
class NinjaWriter {
public:
  void comment(StringRef text);
  void variable(StringRef name, StringRef value);
  void pool(StringRef name, unsigned depth);
  void include(StringRef path);
  void build(const BuildStatement &statement);
  void phony(StringRef name, const std::vector<std::string> &inputs);
  void defaultTarget(StringRef name);
  void blank() { text += "\n"; }
  const std::string &str() const { return text; }

private:
  std::string text;
};

} // namespace retune::pipeline

#endif // RETUNE_PIPELINE_NINJAWRITER_H
