//===- GpuTarget.cpp - GPU target from IREE attributes or TOML ------------===//
#include "stages/search/gpu/GpuTarget.h"

#include "stages/support/FileUtil.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <toml++/toml.h>

namespace retune::gpu {

int64_t GpuTarget::minSubgroupSize() const {
  if (subgroupSizeChoices.empty())
    return 64;
  return *std::min_element(subgroupSizeChoices.begin(), subgroupSizeChoices.end());
}

bool GpuTarget::hasIntrinsic(StringRef name) const {
  return llvm::is_contained(mmaIntrinsics, name);
}

/// Index just past the bracket that closes the one at `open`, skipping
/// string literals; npos when unbalanced.
static size_t matchClose(StringRef text, size_t open) {
  char openCh = text[open];
  char closeCh = openCh == '<' ? '>' : openCh == '[' ? ']' : ')';
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '"') {
      size_t end = text.find('"', i + 1);
      if (end == StringRef::npos)
        return StringRef::npos;
      i = end;
      continue;
    }
    // `->` inside affine maps is not a closing angle bracket.
    if (ch == '>' && i > 0 && text[i - 1] == '-')
      continue;
    if (ch == openCh)
      ++depth;
    else if (ch == closeCh && --depth == 0)
      return i + 1;
  }
  return StringRef::npos;
}

std::optional<StringRef> findGpuTargetAttr(StringRef text) {
  static constexpr llvm::StringLiteral kPrefix = "#iree_gpu.target<";
  size_t start = text.find(kPrefix);
  if (start == StringRef::npos)
    return std::nullopt;
  size_t end = matchClose(text, start + kPrefix.size() - 1);
  if (end == StringRef::npos)
    return std::nullopt;
  return text.slice(start, end);
}

/// The text right after `key =` (a whole word), or nullopt.
static std::optional<StringRef> valueOf(StringRef text, StringRef key) {
  size_t pos = 0;
  while ((pos = text.find(key, pos)) != StringRef::npos) {
    bool wordStart = pos == 0 || !(llvm::isAlnum(text[pos - 1]) || text[pos - 1] == '_');
    StringRef rest = text.drop_front(pos + key.size()).ltrim();
    pos += key.size();
    if (!wordStart || !rest.consume_front("="))
      continue;
    return rest.ltrim();
  }
  return std::nullopt;
}

static Expected<int64_t> intField(StringRef text, StringRef key, bool required,
                                  int64_t fallback) {
  std::optional<StringRef> value = valueOf(text, key);
  if (!value) {
    if (required)
      return makeError("#iree_gpu.target: missing '" + key + "'");
    return fallback;
  }
  StringRef digits = value->take_while([](char ch) { return llvm::isDigit(ch); });
  int64_t result = 0;
  if (digits.empty() || digits.getAsInteger(10, result))
    return makeError("#iree_gpu.target: '" + key + "' is not an integer");
  return result;
}

static Expected<SmallVector<int64_t>> intListField(StringRef text, StringRef key,
                                                   bool required) {
  std::optional<StringRef> value = valueOf(text, key);
  if (!value) {
    if (required)
      return makeError("#iree_gpu.target: missing '" + key + "'");
    return SmallVector<int64_t>{};
  }
  size_t end = value->starts_with("[") ? matchClose(*value, 0) : StringRef::npos;
  if (end == StringRef::npos)
    return makeError("#iree_gpu.target: '" + key + "' is not a list");
  SmallVector<StringRef> items;
  value->slice(1, end - 1).split(items, ',', -1, false);
  SmallVector<int64_t> result;
  for (StringRef item : items) {
    int64_t v = 0;
    if (item.trim().getAsInteger(10, v))
      return makeError("#iree_gpu.target: '" + key + "' holds '" + item.trim() +
                       "', not an integer");
    result.push_back(v);
  }
  return result;
}

/// `mma = [<MFMA_F32_16x16x16_F16>, #iree_gpu.mma_layout<...>, ...]`: the
/// first identifier inside each `<...>`.
static Expected<SmallVector<std::string>> mmaField(StringRef text) {
  std::optional<StringRef> value = valueOf(text, "mma");
  if (!value)
    return SmallVector<std::string>{};
  size_t end = value->starts_with("[") ? matchClose(*value, 0) : StringRef::npos;
  if (end == StringRef::npos)
    return makeError("#iree_gpu.target: 'mma' is not a list");
  StringRef list = value->slice(1, end - 1);
  SmallVector<std::string> names;
  for (size_t pos = 0; (pos = list.find('<', pos)) != StringRef::npos;) {
    size_t close = matchClose(list, pos);
    if (close == StringRef::npos)
      return makeError("#iree_gpu.target: unbalanced 'mma' entry");
    StringRef inner = list.slice(pos + 1, close - 1).ltrim();
    names.push_back(inner.take_while([](char ch) { return llvm::isAlnum(ch) || ch == '_'; }).str());
    pos = close;
  }
  return names;
}

Expected<GpuTarget> parseGpuTargetAttr(StringRef text) {
  std::optional<StringRef> attr = findGpuTargetAttr(text);
  if (!attr)
    return makeError("no balanced #iree_gpu.target<...> attribute in the text");
  GpuTarget target;
  std::optional<StringRef> arch = valueOf(*attr, "arch");
  if (!arch || !arch->starts_with("\""))
    return makeError("#iree_gpu.target: missing 'arch'");
  target.arch = arch->drop_front().take_until([](char ch) { return ch == '"'; }).str();
  if (std::optional<StringRef> sku = valueOf(*attr, "sku"); sku && sku->starts_with("\""))
    target.sku = sku->drop_front().take_until([](char ch) { return ch == '"'; }).str();

  auto assign = [](auto &field, auto value) -> Error {
    if (!value)
      return value.takeError();
    field = std::move(*value);
    return Error::success();
  };
  if (Error e = assign(target.subgroupSizeChoices,
                       intListField(*attr, "subgroup_size_choices", true)))
    return std::move(e);
  if (Error e = assign(target.maxWorkgroupSizes, intListField(*attr, "max_workgroup_sizes", false)))
    return std::move(e);
  if (Error e = assign(target.mmaIntrinsics, mmaField(*attr)))
    return std::move(e);
  if (Error e = assign(target.maxThreadsPerWorkgroup,
                       intField(*attr, "max_thread_count_per_workgroup", true, 0)))
    return std::move(e);
  if (Error e = assign(target.maxWorkgroupMemoryBytes,
                       intField(*attr, "max_workgroup_memory_bytes", true, 0)))
    return std::move(e);
  if (Error e = assign(target.maxLoadInstructionBits,
                       intField(*attr, "max_load_instruction_bits", false, 128)))
    return std::move(e);
  if (Error e = assign(target.simdsPerWgp, intField(*attr, "simds_per_wgp", false, 0)))
    return std::move(e);
  if (Error e = assign(target.vgprSpaceBits, intField(*attr, "vgpr_space_bits", false, 0)))
    return std::move(e);
  if (Error e = assign(target.wgpCount, intField(*attr, "wgp_count", false, 0)))
    return std::move(e);
  return target;
}

/// Reads an integer array key of a TOML table.
static Expected<SmallVector<int64_t>> tomlInts(const toml::table &table, StringRef key,
                                               StringRef path) {
  SmallVector<int64_t> result;
  const toml::array *array = table[std::string_view(key.data(), key.size())].as_array();
  if (!array)
    return makeError(path + ": missing integer array '" + key + "'");
  for (const toml::node &node : *array) {
    std::optional<int64_t> value = node.value<int64_t>();
    if (!value)
      return makeError(path + ":" + Twine(node.source().begin.line) + ": '" + key +
                       "' must hold integers");
    result.push_back(*value);
  }
  return result;
}

static Expected<int64_t> tomlInt(const toml::table &table, StringRef key, StringRef path) {
  std::optional<int64_t> value = table[std::string_view(key.data(), key.size())].value<int64_t>();
  if (!value)
    return makeError(path + ": missing integer '" + key + "'");
  return *value;
}

Expected<GpuTarget> loadTargetFile(StringRef path, StringRef sku) {
  Expected<std::string> text = readFile(path);
  if (!text)
    return text.takeError();
  toml::parse_result parsed = toml::parse(*text, std::string_view(path.data(), path.size()));
  if (!parsed)
    return makeError(path + ":" + Twine(parsed.error().source().begin.line) + ": " +
                     std::string(parsed.error().description()));
  const toml::table &root = parsed.table();
  GpuTarget target;
  target.arch = root["arch"].value_or(std::string());
  if (target.arch.empty())
    return makeError(path + ": missing string 'arch'");
  const toml::array *mma = root["mma"].as_array();
  if (!mma)
    return makeError(path + ": missing string array 'mma'");
  for (const toml::node &node : *mma)
    target.mmaIntrinsics.push_back(node.value_or(std::string()));

  auto ints = [&](SmallVector<int64_t> &field, StringRef key) -> Error {
    Expected<SmallVector<int64_t>> value = tomlInts(root, key, path);
    if (!value)
      return value.takeError();
    field = std::move(*value);
    return Error::success();
  };
  auto one = [&](int64_t &field, StringRef key) -> Error {
    Expected<int64_t> value = tomlInt(root, key, path);
    if (!value)
      return value.takeError();
    field = *value;
    return Error::success();
  };
  if (Error e = ints(target.subgroupSizeChoices, "subgroup_size_choices"))
    return std::move(e);
  if (Error e = ints(target.maxWorkgroupSizes, "max_workgroup_sizes"))
    return std::move(e);
  for (auto [field, key] : {std::pair{&target.maxThreadsPerWorkgroup, "max_thread_count_per_workgroup"},
                            std::pair{&target.maxWorkgroupMemoryBytes, "max_workgroup_memory_bytes"},
                            std::pair{&target.maxLoadInstructionBits, "max_load_instruction_bits"},
                            std::pair{&target.simdsPerWgp, "simds_per_wgp"},
                            std::pair{&target.vgprSpaceBits, "vgpr_space_bits"}})
    if (Error e = one(*field, key))
      return std::move(e);

  std::string chosen = sku.empty() ? root["default_sku"].value_or(std::string()) : sku.str();
  if (!chosen.empty()) {
    const toml::table *skuTable = root["sku"][chosen].as_table();
    if (!skuTable)
      return makeError(path + ": no [sku." + chosen + "] table");
    target.sku = chosen;
    std::optional<int64_t> count = (*skuTable)["wgp_count"].value<int64_t>();
    if (!count)
      return makeError(path + ": [sku." + chosen + "] needs an integer 'wgp_count'");
    target.wgpCount = *count;
  }
  return target;
}

Expected<GpuTarget> loadKnownTarget(StringRef name, StringRef dir) {
  std::error_code ec;
  std::string lowered = name.lower();
  SmallVector<std::string> files;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".toml")
      files.push_back(it->path());
  if (ec)
    return makeError("cannot list target descriptions in '" + dir + "': " + ec.message());
  llvm::sort(files);
  for (const std::string &file : files) {
    if (llvm::sys::path::stem(file) == lowered)
      return loadTargetFile(file);
  }
  // Not an arch: look for a SKU table of that name in every file.
  for (const std::string &file : files) {
    Expected<std::string> text = readFile(file);
    if (!text)
      return text.takeError();
    toml::parse_result parsed = toml::parse(*text, file);
    if (parsed && parsed.table()["sku"][lowered].as_table())
      return loadTargetFile(file, lowered);
  }
  return makeError("unknown GPU target '" + name + "': no " + lowered +
                   ".toml and no [sku." + lowered + "] table in '" + dir + "'");
}

Expected<GpuTarget> resolveTarget(StringRef dispatchText, StringRef fallbackName,
                                  StringRef dir) {
  if (findGpuTargetAttr(dispatchText))
    return parseGpuTargetAttr(dispatchText);
  return loadKnownTarget(fallbackName, dir);
}

} // namespace retune::gpu
