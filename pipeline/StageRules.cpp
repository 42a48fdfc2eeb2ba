//===- StageRules.cpp - Ninja rule commands from stage descriptions -------===//
#include "pipeline/StageRules.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

using namespace llvm;

namespace retune {

namespace {

/// `--flag value`, `--flag=value` (value "=..."), `--flag` (value "@"), or
/// nothing (value "": the rule leaves the option at its default).
std::string optionArg(StringRef flag, StringRef value) {
  if (value.empty())
    return {};
  if (value == "@")
    return ("--" + Twine(flag)).str();
  if (value.starts_with("="))
    return ("--" + Twine(flag) + value).str();
  return ("--" + Twine(flag) + " " + value).str();
}

class RuleBuilder {
public:
  explicit RuleBuilder(std::vector<StageRule> &rules) : rules(rules) {}
  void start(StringRef file, StringRef rule, StringRef prefix, StringRef tool) {
    rules.push_back({file.str(), rule.str(), tool.str(),
                     (Twine(prefix) + "$retune_bin/" + tool).str()});
  }
  void add(const std::string &arg) {
    if (!arg.empty())
      rules.back().command += " " + arg;
  }

private:
  std::vector<StageRule> &rules;
};

} // namespace

std::vector<StageRule> stageRules() {
  std::vector<StageRule> rules;
  RuleBuilder builder(rules);
#include "pipeline/StageCollect.h"
#include "stages/tools/Select.def"
#include "pipeline/StageCollect.h"
#include "stages/tools/Report.def"
#include "pipeline/StageCollect.h"
#include "stages/tools/iree/IreeFlags.def"
#include "pipeline/StageCollect.h"
#include "stages/tools/iree/IreeDump.def"
#include "pipeline/StageCollect.h"
#include "stages/tools/iree/IreeCandidates.def"
#include "pipeline/StageCollect.h"
#include "stages/tools/iree/IreeCompile.def"
#include "pipeline/StageCollect.h"
#include "stages/tools/iree/IreeBench.def"
#include "pipeline/StageCollect.h"
#include "stages/tools/iree/IreeRank.def"
#include "pipeline/StageCollect.h"
#include "stages/tools/iree/IreeLink.def"
#include "pipeline/StageCollect.h"
#include "stages/tools/iree/IreeModel.def"
#include "pipeline/StageCollect.h"
#include "stages/tools/mlircpu/Dump.def"
#include "pipeline/StageCollect.h"
#include "stages/tools/mlircpu/Candidates.def"
#include "pipeline/StageCollect.h"
#include "stages/tools/mlircpu/Compile.def"
#include "pipeline/StageCollect.h"
#include "stages/tools/mlircpu/Bench.def"
#include "pipeline/StageCollect.h"
#include "stages/tools/mlircpu/ModelBaseline.def"
#include "pipeline/StageCollect.h"
#include "stages/tools/mlircpu/Model.def"
#include "pipeline/StageCollect.h"
#include "stages/tools/mlircpu/Link.def"
  return rules;
}

} // namespace retune
