//===- Text.h - Small text helpers ------------------------------*- C++ -*-===//
#ifndef RETUNE_SUPPORT_TEXT_H
#define RETUNE_SUPPORT_TEXT_H

#include <cstdio>
#include <string>

namespace retune {

/// Shortest faithful text of a number: "0.002", "0.9", "120" (llvm::formatv
/// rounds doubles to two decimals by default).
inline std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

} // namespace retune

#endif // RETUNE_SUPPORT_TEXT_H
