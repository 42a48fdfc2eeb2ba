//===- StageRulesTest.cpp - Rule files run stages as they are described ---===//
#include "pipeline/StageRules.h"

#include "stages/support/FileUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <cstdlib>
#include <gtest/gtest.h>

using namespace retune;

namespace {

std::string rulesDir() { return std::string(RETUNE_SOURCE_DIR) + "/rules/"; }

/// The `command = ` line of `rule` in `text`: its index, or npos.
size_t commandLine(llvm::ArrayRef<std::string> lines, llvm::StringRef rule) {
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] != ("rule " + rule).str())
      continue;
    for (size_t j = i + 1;
         j < lines.size() && llvm::StringRef(lines[j]).starts_with("  "); ++j)
      if (llvm::StringRef(lines[j]).trim().starts_with("command ="))
        return j;
  }
  return std::string::npos;
}

/// Every rule that runs a stage tool has the command its description
/// generates: the option names the rule passes are the ones the tool
/// declares, from the same file. RETUNE_UPDATE_GOLDEN=1 rewrites the lines.
TEST(StageRules, EveryRuleRunsItsStageAsTheStageDescribesIt) {
  bool update = std::getenv("RETUNE_UPDATE_GOLDEN") != nullptr;
  llvm::StringMap<std::vector<std::string>> files;
  std::vector<StageRule> rules = stageRules();
  ASSERT_EQ(rules.size(), 17u);
  for (const StageRule &rule : rules) {
    SCOPED_TRACE("rules/" + rule.file + ": rule " + rule.rule);
    auto [it, fresh] = files.try_emplace(rule.file);
    if (fresh) {
      llvm::Expected<std::string> text = readFile(rulesDir() + rule.file);
      ASSERT_TRUE(static_cast<bool>(text)) << toString(text.takeError());
      llvm::SmallVector<llvm::StringRef> lines;
      llvm::StringRef(*text).split(lines, '\n');
      for (llvm::StringRef line : lines)
        it->second.push_back(line.str());
    }
    std::vector<std::string> &lines = it->second;
    size_t at = commandLine(lines, rule.rule);
    ASSERT_NE(at, std::string::npos) << "no such rule";
    std::string expected = "  command = " + rule.command;
    if (update)
      lines[at] = expected;
    else
      EXPECT_EQ(lines[at], expected);
  }
  if (!update)
    return;
  for (const auto &file : files) {
    llvm::Error err = writeFileAtomic(rulesDir() + file.getKey().str(),
                                      llvm::join(file.getValue(), "\n"));
    ASSERT_FALSE(static_cast<bool>(err)) << toString(std::move(err));
  }
}

} // namespace
