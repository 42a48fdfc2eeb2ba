//===- CompileTiming.cpp - Where a whole-model compile spends its time ----===//
#include "stages/backends/iree/CompileTiming.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace retune::iree {

std::vector<std::string> passTimingFlags() {
  return {"--mlir-timing", "--mlir-timing-display=list"};
}

namespace {
/// Entries that only contain other passes' time.
bool isContainer(StringRef name) {
  return name == "root" || name == "Total" || name.contains("Pipeline") ||
         name.ends_with("OpPipelineAdaptorPass");
}

/// "  1.5111 ( 28.3%)    1.1673 ( 58.7%)  Name" (user and wall columns) or,
/// single-threaded, "  1.1673 ( 58.7%)  Name" (wall only): the last
/// "<seconds> (<percent>)" pair before the name is the wall time.
std::optional<PassTime> parseRow(StringRef line) {
  StringRef rest = line.trim();
  std::optional<double> wall;
  while (true) {
    StringRef number = rest.take_until([](char c) { return c == ' '; });
    double seconds;
    if (number.empty() || number.getAsDouble(seconds))
      break;
    StringRef after = rest.drop_front(number.size()).ltrim();
    if (!after.consume_front("("))
      break;
    size_t close = after.find(')');
    if (close == StringRef::npos || !after.take_front(close).trim().ends_with("%"))
      break;
    wall = seconds;
    rest = after.drop_front(close + 1).ltrim();
  }
  if (!wall || rest.empty())
    return std::nullopt;
  return PassTime{rest.str(), *wall};
}
} // namespace

std::vector<PassTime> slowestPasses(StringRef log, size_t top) {
  size_t report = log.rfind("Execution time report");
  if (report == StringRef::npos)
    return {};
  SmallVector<StringRef> lines;
  log.drop_front(report).split(lines, '\n');
  std::vector<PassTime> passes;
  for (StringRef line : lines)
    if (std::optional<PassTime> row = parseRow(line))
      if (!isContainer(row->name))
        passes.push_back(std::move(*row));
  llvm::stable_sort(passes, [](const PassTime &a, const PassTime &b) {
    return a.wallSeconds > b.wallSeconds;
  });
  if (passes.size() > top)
    passes.resize(top);
  return passes;
}

json::Value toJson(const std::vector<PassTime> &passes) {
  json::Array array;
  for (const PassTime &pass : passes)
    array.push_back(json::Object{{"pass", pass.name}, {"wall_s", pass.wallSeconds}});
  return array;
}

std::vector<PassTime> passTimesFromJson(const json::Value *value) {
  std::vector<PassTime> passes;
  const json::Array *array = value ? value->getAsArray() : nullptr;
  if (!array)
    return passes;
  for (const json::Value &entry : *array)
    if (const json::Object *object = entry.getAsObject())
      passes.push_back({object->getString("pass").value_or("").str(),
                        object->getNumber("wall_s").value_or(0)});
  return passes;
}

} // namespace retune::iree
