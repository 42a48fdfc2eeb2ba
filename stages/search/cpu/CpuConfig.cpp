//===- CpuConfig.cpp - One point of the CPU knob space --------------------===//
#include "stages/search/cpu/CpuConfig.h"

#include "stages/support/FileUtil.h"

using namespace llvm;

namespace retune::cpu {

static json::Array toArray(ArrayRef<int64_t> values) {
  json::Array array;
  for (int64_t v : values)
    array.push_back(v);
  return array;
}

json::Object toJson(const CpuConfig &config) {
  return json::Object{{"outer_tiles", toArray(config.outerTiles)},
                      {"outer_interchange", toArray(config.outerInterchange)},
                      {"threads", config.threads},
                      {"reduction_tiles", toArray(config.reductionTiles)},
                      {"register_tiles", toArray(config.registerTiles)},
                      {"register_interchange",
                       toArray(config.registerInterchange)},
                      {"k_unroll", config.kUnroll},
                      {"decompose", config.decompose}};
}

static Error readInts(const json::Object &object, StringRef key,
                      SmallVector<int64_t> &out) {
  const json::Array *array = object.getArray(key);
  if (!array)
    return makeError("cpu config: missing array '" + key + "'");
  for (const json::Value &v : *array) {
    std::optional<int64_t> i = v.getAsInteger();
    if (!i)
      return makeError("cpu config: '" + key + "' must hold integers");
    out.push_back(*i);
  }
  return Error::success();
}

Expected<CpuConfig> cpuConfigFromJson(const json::Object &object) {
  CpuConfig config;
  for (auto [key, out] :
       {std::pair<StringRef, SmallVector<int64_t> *>{"outer_tiles",
                                                     &config.outerTiles},
        {"outer_interchange", &config.outerInterchange},
        {"reduction_tiles", &config.reductionTiles},
        {"register_tiles", &config.registerTiles},
        {"register_interchange", &config.registerInterchange}})
    if (Error err = readInts(object, key, *out))
      return std::move(err);
  config.threads = object.getInteger("threads").value_or(1);
  config.kUnroll = object.getInteger("k_unroll").value_or(1);
  config.decompose = object.getBoolean("decompose").value_or(false);
  return config;
}

} // namespace retune::cpu
