//===- CpuHost.cpp - What the host CPU offers generated code --------------===//
#include "stages/search/cpu/CpuHost.h"

#include "stages/support/FileUtil.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Threading.h"
#include "llvm/TargetParser/Host.h"

using namespace llvm;

namespace retune::cpu {

/// A sysfs attribute's value, trimmed; empty when it cannot be read. sysfs
/// reports every attribute as a page long and reads pad it with NULs
/// ("2048K\n\0\0..."), which trim() keeps.
static std::string readSysfsValue(const Twine &path) {
  Expected<std::string> text = readFile(path.str());
  if (!text) {
    consumeError(text.takeError());
    return "";
  }
  StringRef value(*text);
  return value.take_until([](char c) { return c == '\0'; }).trim().str();
}

/// Parses sysfs cache sizes such as "48K" or "1024K" or "32M".
static std::optional<int64_t> readCacheSize(const Twine &path) {
  std::string text = readSysfsValue(path);
  StringRef value = text;
  int64_t scale = 1;
  if (value.consume_back("K"))
    scale = 1024;
  else if (value.consume_back("M"))
    scale = 1024 * 1024;
  int64_t number = 0;
  if (value.getAsInteger(10, number))
    return std::nullopt;
  return number * scale;
}

/// The L1 data cache's set period: line size x number of sets.
static void readSetPeriod(const std::string &dir, CpuHost &host) {
  std::string line = readSysfsValue(dir + "/coherency_line_size");
  std::string sets = readSysfsValue(dir + "/number_of_sets");
  int64_t lineBytes = 0, setCount = 0;
  if (!StringRef(line).getAsInteger(10, lineBytes) &&
      !StringRef(sets).getAsInteger(10, setCount) && lineBytes > 0 &&
      setCount > 0)
    host.l1SetPeriodBytes = lineBytes * setCount;
}

/// Fills data-cache sizes per level from /sys (left at defaults elsewhere).
static void readCaches(CpuHost &host) {
  for (int index = 0; index < 8; ++index) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::string type = readSysfsValue(dir + "/type");
    std::string lvl = readSysfsValue(dir + "/level");
    if (type.empty() || lvl.empty())
      return;
    if (type == "Instruction")
      continue;
    std::optional<int64_t> size = readCacheSize(dir + "/size");
    if (!size)
      continue;
    if (lvl == "1") {
      host.l1Bytes = *size;
      readSetPeriod(dir, host);
    }
    else if (lvl == "2")
      host.l2Bytes = *size;
    else if (lvl == "3")
      host.l3Bytes = *size;
  }
}

CpuHost detectHost() {
  CpuHost host;
  host.cpuName = sys::getHostCPUName().str();
  StringMap<bool> features = sys::getHostCPUFeatures();
  if (features.lookup("avx512f")) {
    host.vectorBits = 512;
    host.vectorRegisters = 32;
  } else if (features.lookup("avx2") || features.lookup("avx")) {
    host.vectorBits = 256;
    host.vectorRegisters = 16;
  } else {
    host.vectorBits = 128;
    host.vectorRegisters = 16;
  }
  host.cores = std::max(1u, llvm::get_physical_cores() > 0
                                ? static_cast<unsigned>(get_physical_cores())
                                : hardware_concurrency().compute_thread_count());
  readCaches(host);
  return host;
}

json::Value toJson(const CpuHost &host) {
  return json::Object{{"cpu", host.cpuName},
                      {"vector_bits", host.vectorBits},
                      {"vector_registers", host.vectorRegisters},
                      {"l1_bytes", host.l1Bytes},
                      {"l2_bytes", host.l2Bytes},
                      {"l3_bytes", host.l3Bytes},
                      {"cores", host.cores}};
}

} // namespace retune::cpu
