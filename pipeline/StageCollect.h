//===- StageCollect.h - A stage description's entries as rule arguments ---===//
//
// Included before each stage description (.def) in stageRules(): each entry
// adds its part of the rule's command to `builder`. Not guarded, because
// StageDefEnd.h undefines the entries after every description.
//
//===----------------------------------------------------------------------===//
#define RETUNE_STAGE_RULE(File, Rule, Prefix, Tool)                            \
  builder.start(File, Rule, Prefix, Tool);
#define RETUNE_STAGE_OPTION(Type, Var, Flag, Value, ...)                       \
  builder.add(optionArg(Flag, Value));
#define RETUNE_STAGE_LIST(Type, Var, Flag, Value, ...)                         \
  builder.add(optionArg(Flag, Value));
#define RETUNE_STAGE_POSITIONAL(Type, Var, Value, ...) builder.add(Value);
#define RETUNE_STAGE_ARG(Flag, Value) builder.add(optionArg(Flag, Value));
#define RETUNE_STAGE_PASS(Value) builder.add(Value);
