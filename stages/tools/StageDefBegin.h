//===- StageDefBegin.h - Defaults for a stage description (.def) -*- C++ -*-===//
//
// A stage tool's description, stages/tools/<backend>/<Tool>.def, lists its
// options once: its main declares them (cl::opt) and its Ninja rule's command
// line is generated from the same entries (stages/tools/StageRules.cpp;
// rules/*.ninja hold the generated lines, StageRulesTest keeps them equal).
// A .def includes this header first and StageDefEnd.h last; the includer
// defines the entries it needs:
//
//   RETUNE_STAGE_RULE(File, Rule, Prefix, Tool)
//       the rule in rules/<File> that runs `<Prefix>$retune_bin/<Tool>`;
//   RETUNE_STAGE_OPTION(Type, Var, Flag, Value, cl-modifiers...)
//       an option the tool declares; the rule passes `--Flag Value` (nothing
//       when Value is "", `--Flag=Value` when Value starts with '=', `--Flag`
//       alone when Value is "@");
//   RETUNE_STAGE_LIST(Type, Var, Flag, Value, cl-modifiers...)
//       the same for a repeatable option (cl::list);
//   RETUNE_STAGE_POSITIONAL(Type, Var, Value, cl-modifiers...)
//       the tool's positional inputs; the rule passes `Value`;
//   RETUNE_STAGE_ARG(Flag, Value)
//       an option declared by code the tool shares with others (the IREE
//       tools, the model run, the cache); the rule passes `--Flag Value`;
//   RETUNE_STAGE_PASS(Value)
//       a variable the planner fills with options (`$iree_tools`,
//       `$skip_flag`): the rule passes it as it is.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_STAGE_RULE
#define RETUNE_STAGE_RULE(File, Rule, Prefix, Tool)
#endif
#ifndef RETUNE_STAGE_OPTION
#define RETUNE_STAGE_OPTION(Type, Var, Flag, Value, ...)
#endif
#ifndef RETUNE_STAGE_LIST
#define RETUNE_STAGE_LIST(Type, Var, Flag, Value, ...)
#endif
#ifndef RETUNE_STAGE_POSITIONAL
#define RETUNE_STAGE_POSITIONAL(Type, Var, Value, ...)
#endif
#ifndef RETUNE_STAGE_ARG
#define RETUNE_STAGE_ARG(Flag, Value)
#endif
#ifndef RETUNE_STAGE_PASS
#define RETUNE_STAGE_PASS(Value)
#endif
