//===- StageRules.h - Ninja rule commands from stage descriptions -*- C++ -*-===//
//
// Every stage tool describes its options once (stages/tools/**/<Tool>.def,
// stages/tools/StageDefBegin.h); its main declares them from that file and
// the command line of its Ninja rule is generated from it here. The rule
// files (rules/*.ninja) hold the generated lines beside what is not the
// command (description, pool, restat, comments); StageRulesTest fails when a
// line differs and rewrites it with RETUNE_UPDATE_GOLDEN=1.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_PIPELINE_STAGERULES_H
#define RETUNE_PIPELINE_STAGERULES_H

#include <string>
#include <vector>

namespace retune {

/// One rule whose command runs a stage tool.
struct StageRule {
  /// rules/<file>.
  std::string file;
  std::string rule;
  std::string tool;
  /// The command as the rule must have it.
  std::string command;
};

/// The rule of every described stage, in a fixed order.
std::vector<StageRule> stageRules();

} // namespace retune

#endif // RETUNE_PIPELINE_STAGERULES_H
