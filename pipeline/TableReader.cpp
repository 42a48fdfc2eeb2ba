//===- TableReader.cpp - One tune.toml table, key by key ------------------===//
#include "pipeline/TableReader.h"

#include "stages/support/FileUtil.h"
#include "stages/support/RunBudget.h"
#include "stages/support/Text.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace retune::pipeline {
namespace {

/// Newlines and other control characters cannot be passed through a Ninja
/// variable to a command line; no key has a use for them.
bool hasControlCharacter(StringRef value) {
  return llvm::any_of(value, [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

} // namespace

/// A name from tune.toml as messages show it: long ones are cut, so that a
/// huge key does not flood the terminal.
std::string abbreviate(StringRef name) {
  constexpr size_t kMax = 64;
  if (name.size() <= kMax)
    return name.str();
  return formatv("{0}... ({1} bytes)", name.take_front(kMax), name.size())
      .str();
}

Error TableReader::unsignedKey(StringRef key, unsigned &out, int64_t min,
                               int64_t max) {
  const toml::node *node = find(key);
  if (!node)
    return Error::success();
  std::optional<int64_t> value = node->value<int64_t>();
  if (!node->is_integer() || !value || *value < min || *value > max)
    return bad(*node, key,
               formatv("an integer from {0} to {1}", min, max).str());
  out = static_cast<unsigned>(*value);
  return Error::success();
}

Error TableReader::boolKey(StringRef key, bool &out) {
  const toml::node *node = find(key);
  if (!node)
    return Error::success();
  std::optional<bool> value = node->value<bool>();
  if (!node->is_boolean() || !value)
    return bad(*node, key, "true or false");
  out = *value;
  return Error::success();
}

Error TableReader::durationKey(StringRef key, double &out) {
  const toml::node *node = find(key);
  if (!node)
    return Error::success();
  std::optional<std::string> text = node->value<std::string>();
  std::optional<double> seconds =
      node->is_string() && text ? parseDuration(*text) : std::nullopt;
  if (!seconds)
    return bad(*node, key, "a duration such as \"90s\", \"30m\" or \"2h\" (\"0\": none)");
  out = *seconds;
  return Error::success();
}

Error TableReader::realKey(StringRef key, double &out, double min,
                           double max) {
  const toml::node *node = find(key);
  if (!node)
    return Error::success();
  std::optional<double> value = node->value<double>();
  // Written so that nan and inf fail too: they compare false to anything.
  if (!(node->is_floating_point() || node->is_integer()) || !value ||
      !(*value >= min && *value <= max))
    return bad(*node, key, "a number from " + formatNumber(min) + " to " + formatNumber(max));
  out = *value;
  return Error::success();
}

Error TableReader::stringKey(StringRef key, std::string &out,
                             ArrayRef<StringRef> allowed) {
  const toml::node *node = find(key);
  if (!node)
    return Error::success();
  std::optional<std::string> value = node->value<std::string>();
  if (!node->is_string() || !value || value->empty() ||
      hasControlCharacter(*value))
    return bad(*node, key, "a non-empty string on one line");
  if (!allowed.empty() && !llvm::is_contained(allowed, *value))
    return bad(*node, key, "one of: " + join(allowed, ", "));
  out = *value;
  return Error::success();
}

Error TableReader::stringListKey(StringRef key, std::vector<std::string> &out,
                                 bool nonEmpty) {
  const toml::node *node = find(key);
  if (!node)
    return Error::success();
  const toml::array *array = node->as_array();
  std::vector<std::string> values;
  if (array)
    for (const toml::node &element : *array) {
      std::optional<std::string> value = element.value<std::string>();
      if (!element.is_string() || !value || value->empty() ||
          hasControlCharacter(*value)) {
        array = nullptr;
        break;
      }
      values.push_back(*value);
    }
  if (!array || (nonEmpty && values.empty()))
    return bad(*node, key,
               nonEmpty ? "a non-empty array of non-empty one-line strings"
                        : "an array of non-empty one-line strings");
  out = std::move(values);
  return Error::success();
}

Error TableReader::stringListsKey(
    StringRef key, std::optional<std::vector<std::vector<std::string>>> &out) {
  claimed.push_back(key.str());
  const toml::node *node = table.get(std::string_view(key.data(), key.size()));
  if (!node)
    return Error::success();
  const toml::array *array = node->as_array();
  std::vector<std::vector<std::string>> lists;
  for (size_t i = 0; array && i < array->size(); ++i) {
    const toml::array *inner = (*array)[i].as_array();
    lists.emplace_back();
    for (size_t j = 0; inner && j < inner->size(); ++j) {
      std::optional<std::string> value = (*inner)[j].value<std::string>();
      if (!(*inner)[j].is_string() || !value || value->empty())
        inner = nullptr;
      else
        lists.back().push_back(*value);
    }
    if (!inner || lists.back().empty())
      array = nullptr;
  }
  if (!array)
    return bad(*node, key,
               "an array of non-empty arrays of non-empty strings, e.g. "
               "[[\"--iree-opt-data-tiling\"]]");
  out = std::move(lists);
  return Error::success();
}

Error TableReader::rejectUnknown() {
  for (const auto &[key, node] : table) {
    std::string name(key.str());
    if (llvm::is_contained(claimed, name))
      continue;
    return makeError(formatv("{0}:{1}: unknown key '{2}' in [{3}]; known "
                             "keys: {4}",
                             file, node.source().begin.line,
                             abbreviate(name), tableName,
                             join(claimed, ", "))
                         .str());
  }
  return Error::success();
}

const toml::node *TableReader::find(StringRef key) {
  claimed.push_back(key.str());
  const toml::node *node =
      table.get(std::string_view(key.data(), key.size()));
  if (node)
    keyLines[tableName + "." + key.str()] = node->source().begin.line;
  return node;
}

Error TableReader::bad(const toml::node &node, StringRef key,
                       StringRef expected) {
  return makeError(formatv("{0}:{1}: [{2}] {3} must be {4}", file,
                           node.source().begin.line, tableName, key, expected)
                       .str());
}

} // namespace retune::pipeline
