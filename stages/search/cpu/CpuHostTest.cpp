//===- CpuHostTest.cpp - What detectHost reads of this machine -----------===//
#include "stages/search/cpu/CpuHost.h"

#include <fstream>
#include <gtest/gtest.h>
#include <string>

using namespace retune::cpu;

namespace {

/// The first word of a sysfs attribute as a stream reads it (no NUL
/// padding); empty when there is none.
std::string sysfsWord(const std::string &path) {
  std::ifstream in(path);
  std::string word;
  in >> word;
  return word;
}

TEST(CpuHost, ReadsTheL2ThatSysfsReports) {
  // sysfs pads what a whole-page read returns with NULs: detectHost once
  // fell back to CpuHost's default 512 KB on every machine.
  for (int index = 0; index < 8; ++index) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    if (sysfsWord(dir + "/level") != "2" ||
        sysfsWord(dir + "/type") == "Instruction")
      continue;
    std::string size = sysfsWord(dir + "/size");
    ASSERT_FALSE(size.empty());
    int64_t bytes = std::stoll(size);
    if (size.back() == 'K')
      bytes *= 1024;
    else if (size.back() == 'M')
      bytes *= 1024 * 1024;
    EXPECT_EQ(detectHost().l2Bytes, bytes) << dir << "/size: " << size;
    return;
  }
  GTEST_SKIP() << "this machine's sysfs names no L2";
}

} // namespace
