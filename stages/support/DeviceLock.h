//===- DeviceLock.h - One measurement per device, across processes -*- C++ -*-===//
//
// Ninja's depth-1 device pool serialises measurements within one build
// directory only. Two runs on one machine (two build directories, a nightly
// job beside a developer) would measure at the same time and spoil each
// other's timings. A measurement holds an exclusive flock on a per-device
// lock file for its duration; the kernel releases it when the process
// dies, so a killed run never leaves a device locked.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_SUPPORT_DEVICELOCK_H
#define RETUNE_SUPPORT_DEVICELOCK_H

#include "stages/support/LLVM.h"

#include <string>

namespace retune {

class DeviceLock {
public:
  /// Blocks until this process holds `device`'s lock, saying on stderr
  /// that it waits when another process holds it. The lock files live in
  /// $RETUNE_LOCK_DIR, else /tmp/retune-locks (shared by every user).
  static Expected<DeviceLock> acquire(StringRef device);

  DeviceLock(DeviceLock &&other) : fd(other.fd) { other.fd = -1; }
  DeviceLock &operator=(DeviceLock &&) = delete;
  ~DeviceLock();

  /// The lock file of `device`.
  static std::string pathOf(StringRef device);

private:
  explicit DeviceLock(int fd) : fd(fd) {}
  int fd = -1;
};

/// The 1-minute load average (/proc/loadavg); 0 where unknown.
double loadAverage();

} // namespace retune

#endif // RETUNE_SUPPORT_DEVICELOCK_H
