//===- StageDefEnd.h - Ends a stage description (.def) ----------*- C++ -*-===//
#undef RETUNE_STAGE_RULE
#undef RETUNE_STAGE_OPTION
#undef RETUNE_STAGE_LIST
#undef RETUNE_STAGE_POSITIONAL
#undef RETUNE_STAGE_ARG
#undef RETUNE_STAGE_PASS
