//===- StageDeclare.h - A stage description's options as cl::opts -*- C++ -*-===//
//
// Included (with RETUNE_STAGE_CATEGORY set to the tool's option category)
// right before a stage's .def in its main: each entry becomes the cl::opt or
// cl::list it describes (StageDefBegin.h). Not guarded: a main may include it
// before each .def it declares.
//
//===----------------------------------------------------------------------===//
#define RETUNE_STAGE_OPTION(Type, Var, Flag, Value, ...)                       \
  static llvm::cl::opt<Type> Var(Flag, __VA_ARGS__,                            \
                                 llvm::cl::cat(RETUNE_STAGE_CATEGORY));
#define RETUNE_STAGE_LIST(Type, Var, Flag, Value, ...)                         \
  static llvm::cl::list<Type> Var(Flag, __VA_ARGS__,                           \
                                  llvm::cl::cat(RETUNE_STAGE_CATEGORY));
#define RETUNE_STAGE_POSITIONAL(Type, Var, Value, ...)                         \
  static llvm::cl::list<Type> Var(llvm::cl::Positional, __VA_ARGS__,           \
                                  llvm::cl::cat(RETUNE_STAGE_CATEGORY));
