//===- StageClockTest.cpp - Busy and wall time of a stage -----------------===//
#include "stages/support/StageClock.h"

#include <gtest/gtest.h>

namespace retune::test {
namespace {

TEST(StageClock, ParallelStepsShareWallTime) {
  StageClock clock;
  clock.add(100.0, 4.0); // [100, 104]
  clock.add(101.0, 4.0); // [101, 105], overlaps the first
  EXPECT_DOUBLE_EQ(clock.busySeconds(), 8.0);
  EXPECT_DOUBLE_EQ(clock.wallSeconds(), 5.0);
}

TEST(StageClock, GapsBetweenStepsAreNotStageTime) {
  StageClock clock;
  clock.add(200.0, 1.0); // a resumed run, much later
  clock.add(100.0, 2.0);
  clock.add(101.0, 0.5); // inside the second
  EXPECT_DOUBLE_EQ(clock.busySeconds(), 3.5);
  EXPECT_DOUBLE_EQ(clock.wallSeconds(), 3.0);
}

TEST(StageClock, StepsWithoutStartCountAlone) {
  StageClock clock;
  clock.add(0, 2.0);
  clock.add(50.0, 1.0);
  clock.add(0, 0); // replayed from the cache: no time
  EXPECT_DOUBLE_EQ(clock.busySeconds(), 3.0);
  EXPECT_DOUBLE_EQ(clock.wallSeconds(), 3.0);
}

TEST(StageClock, EmptyIsZero) {
  StageClock clock;
  EXPECT_EQ(clock.wallSeconds(), 0);
  EXPECT_EQ(clock.busySeconds(), 0);
}

} // namespace
} // namespace retune::test
