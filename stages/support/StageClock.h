//===- StageClock.h - Busy and wall time of a pipeline stage ----*- C++ -*-===//
//
// A stage's steps run in pools (several compiles at once, one bench per
// device) and may span several `ninja tune` invocations after a kill. The
// busy time is the sum of the steps' durations; the wall time is the length
// of the union of their [start, start + duration] intervals.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SUPPORT_STAGECLOCK_H
#define RETUNE_SUPPORT_STAGECLOCK_H

#include <utility>
#include <vector>

namespace retune {

class StageClock {
public:
  /// One step. `startedAt` is Unix seconds; 0 means unknown (a record from
  /// an older tool), and such a step counts as if it ran alone.
  void add(double startedAt, double seconds);

  double busySeconds() const { return busy; }
  double wallSeconds() const;

private:
  double busy = 0;
  double unplaced = 0;
  std::vector<std::pair<double, double>> intervals;
};

} // namespace retune

#endif // RETUNE_SUPPORT_STAGECLOCK_H
