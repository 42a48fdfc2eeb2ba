//===- DeviceLock.cpp - One measurement per device, across processes ------===//
#include "stages/support/DeviceLock.h"

#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace retune {

std::string DeviceLock::pathOf(StringRef device) {
  SmallString<256> path(
      sys::Process::GetEnv("RETUNE_LOCK_DIR").value_or("/tmp/retune-locks"));
  std::string name = device.str();
  for (char &c : name)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
      c = '_';
  sys::path::append(path, name + ".lock");
  return path.str().str();
}

Expected<DeviceLock> DeviceLock::acquire(StringRef device) {
  std::string path = pathOf(device);
  StringRef dir = sys::path::parent_path(path);
  if (!sys::fs::exists(dir)) {
    if (std::error_code ec = sys::fs::create_directories(dir))
      return makeError(dir + ": cannot create the device lock directory: " +
                       ec.message());
    // Every user's runs share the device, so every user takes its lock.
    ::chmod(dir.str().c_str(), 01777);
  }
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0)
    return makeError(path + ": cannot open the device lock: " +
                     std::strerror(errno) + " (set RETUNE_LOCK_DIR to a "
                     "writable directory)");
  ::fchmod(fd, 0666);
  // Say why nothing happens while another run measures: a user (and a
  // test) sees the wait begin instead of guessing from the clock.
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0)
    return DeviceLock(fd);
  if (errno == EWOULDBLOCK)
    errs() << "retune: waiting for device '" << device
           << "': another run is measuring on it (lock " << path << ")\n";
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR)
      continue;
    std::string why = std::strerror(errno);
    ::close(fd);
    return makeError(path + ": cannot lock the device: " + why);
  }
  return DeviceLock(fd);
}

DeviceLock::~DeviceLock() {
  if (fd >= 0)
    ::close(fd); // releases the flock
}

double loadAverage() {
  Expected<std::string> text = readFile("/proc/loadavg");
  if (!text) {
    consumeError(text.takeError());
    return 0;
  }
  double load = 0;
  if (StringRef(*text).split(' ').first.getAsDouble(load))
    return 0;
  return load;
}

} // namespace retune
