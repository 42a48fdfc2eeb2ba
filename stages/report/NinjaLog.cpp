//===- NinjaLog.cpp - How long Ninja's edges took -------------------------===//
#include "stages/report/NinjaLog.h"

#include "llvm/ADT/SmallVector.h"

using namespace llvm;

namespace retune::report {

StringMap<double> edgeSeconds(StringRef log) {
  StringMap<double> seconds;
  SmallVector<StringRef> lines, fields;
  log.split(lines, '\n');
  for (StringRef line : lines) {
    if (line.starts_with("#"))
      continue;
    fields.clear();
    line.split(fields, '\t');
    uint64_t start, end;
    if (fields.size() < 4 || fields[0].getAsInteger(10, start) ||
        fields[1].getAsInteger(10, end) || end < start)
      continue;
    // Appended in order: a later line is a later run of the edge.
    seconds[fields[3]] = double(end - start) / 1000;
  }
  return seconds;
}

} // namespace retune::report
