//===- StageClock.cpp - Busy and wall time of a pipeline stage ------------===//
#include "stages/support/StageClock.h"

#include <algorithm>

namespace retune {

void StageClock::add(double startedAt, double seconds) {
  if (seconds <= 0)
    return;
  busy += seconds;
  if (startedAt > 0)
    intervals.emplace_back(startedAt, startedAt + seconds);
  else
    unplaced += seconds;
}

double StageClock::wallSeconds() const {
  std::vector<std::pair<double, double>> sorted = intervals;
  std::sort(sorted.begin(), sorted.end());
  double wall = unplaced;
  double begin = 0, end = 0;
  bool open = false;
  for (const auto &[from, to] : sorted) {
    if (open && from <= end) {
      end = std::max(end, to);
      continue;
    }
    if (open)
      wall += end - begin;
    begin = from;
    end = to;
    open = true;
  }
  if (open)
    wall += end - begin;
  return wall;
}

} // namespace retune
