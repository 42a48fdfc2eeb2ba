//===- NinjaWriter.cpp - Emits Ninja manifests with correct escaping ------===//
#include "pipeline/NinjaWriter.h"

namespace retune::pipeline {

std::string escapePath(StringRef path) {
  std::string out;
  for (char c : path) {
    if (c == '$' || c == ' ' || c == ':')
      out += '$';
    if (c == '\n') {
      out += "$\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string escapeValue(StringRef value) {
  std::string out;
  for (char c : value) {
    if (c == '$')
      out += '$';
    if (c == '\n') {
      out += "$\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string shellQuote(StringRef arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                            "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_=./:,+@%") ==
                          StringRef::npos)
    return arg.str();
  std::string quoted = "'";
  for (char c : arg)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

void NinjaWriter::comment(StringRef line) { text += "# " + line.str() + "\n"; }

void NinjaWriter::variable(StringRef name, StringRef value) {
  text += name.str() + " = " + escapeValue(value) + "\n";
}

void NinjaWriter::pool(StringRef name, unsigned depth) {
  text += "pool " + name.str() + "\n  depth = " + std::to_string(depth) + "\n";
}

void NinjaWriter::include(StringRef path) {
  text += "include " + escapePath(path) + "\n";
}

static void appendPaths(std::string &text, const std::vector<std::string> &paths) {
  for (const std::string &path : paths)
    text += " " + escapePath(path);
}

void NinjaWriter::build(const BuildStatement &s) {
  text += "build";
  appendPaths(text, s.outputs);
  if (!s.implicitOutputs.empty()) {
    text += " |";
    appendPaths(text, s.implicitOutputs);
  }
  text += ": " + s.rule;
  appendPaths(text, s.inputs);
  if (!s.implicitInputs.empty()) {
    text += " |";
    appendPaths(text, s.implicitInputs);
  }
  if (!s.orderOnlyInputs.empty()) {
    text += " ||";
    appendPaths(text, s.orderOnlyInputs);
  }
  text += "\n";
  for (const auto &[name, value] : s.variables)
    text += "  " + name + " = " + escapeValue(value) + "\n";
}

void NinjaWriter::phony(StringRef name, const std::vector<std::string> &inputs) {
  build(BuildStatement{{name.str()}, {}, "phony", inputs, {}, {}, {}});
}

void NinjaWriter::defaultTarget(StringRef name) {
  text += "default " + escapePath(name) + "\n";
}

} // namespace retune::pipeline
