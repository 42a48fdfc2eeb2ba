//===- IreeIr.h - IREE's IR through IREE's own library ---------*- C++ -*-===//
//
// IREE's compiler ships as one shared library (libIREECompiler.so, beside
// iree-compile: `iree/compiler/_mlir_libs/` in a pip install, `lib/` in a
// source build) with MLIR's C API and every IREE dialect registered. Retune
// loads it at run time, so IREE's own parser, printer and verifiers read and
// edit IREE's files: a release's syntax is the release's business, not a
// table here. amdsharktuner does the same through IREE's Python bindings.
//
// The library is optional: where it is absent (the fakes in tests/fakes, an
// installation without it) the focused text reader (MlirText.h) reads the
// same files, and tests compare the two on recorded IREE 3.13 files.
//
// Not thread-safe: one context per process, used by one thread.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_IREEIR_H
#define RETUNE_IREE_IREEIR_H

#include "stages/support/LLVM.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace retune::iree {

/// libIREECompiler.so of the installation `compileTool` belongs to, or ""
/// when that installation has none.
std::string findCompilerLibrary(StringRef compileTool);

class IreeIrLibrary;

/// A value of a parsed file (an op's operand or result; a view).
struct IreeIrValue {
  const void *value = nullptr;
};

/// An op to create (IreeIrOp::insertBefore): its operands, and its result
/// types and attributes in IREE's syntax, which IREE parses.
struct IreeIrOpSpec {
  std::string name;
  std::vector<IreeIrValue> operands;
  std::vector<std::string> resultTypes;
  std::vector<std::pair<std::string, std::string>> attributes;
};

/// One operation of a parsed file (a view; the module owns it).
class IreeIrOp {
public:
  StringRef name() const;
  /// The op's `sym_name`, or "".
  std::string symbolName() const;
  /// Line of the op in the file it was parsed from, or 0.
  unsigned line() const;
  /// Whether the op has attribute `name` (inherent or discardable).
  bool hasAttr(StringRef name) const;
  /// Attribute `name` as IREE prints it, or "" when absent.
  std::string attr(StringRef name) const;
  /// Removes discardable attribute `name`; true when it was there.
  bool removeAttr(StringRef name) const;
  unsigned numOperands() const;
  unsigned numResults() const;
  /// The type of operand `i` as IREE prints it.
  std::string operandType(unsigned i) const;
  /// The type of result `i` as IREE prints it.
  std::string resultType(unsigned i) const;
  IreeIrValue operand(unsigned i) const;
  IreeIrValue result(unsigned i) const;
  /// Attribute `name` when it is an array of integers.
  std::optional<std::vector<int64_t>> intArrayAttr(StringRef name) const;
  /// Attribute `name` when it is a string.
  std::optional<std::string> stringAttr(StringRef name) const;
  /// Creates `spec` just before this op, at its location; an error (IREE's
  /// diagnostics) when a type or an attribute does not parse.
  Expected<IreeIrOp> insertBefore(const IreeIrOpSpec &spec) const;
  /// Every use of result `i` reads `with` instead.
  void replaceUsesOfResult(unsigned i, IreeIrValue with) const;
  /// Removes the op from its block and destroys it (no use may remain).
  void erase() const;
  /// Moves the op just before `other` (in `other`'s block).
  void moveBefore(const IreeIrOp &other) const;
  /// The op that defines `value`, or none for a block argument.
  std::optional<IreeIrOp> definingOp(IreeIrValue value) const;
  /// The op's identity (equal for views of the same op).
  const void *id() const { return op; }
  /// The indexing maps of a linalg op as IREE prints them (its
  /// `indexing_maps` attribute, implicit for named ops), or "".
  std::string linalgIndexingMaps() const;
  /// True when the op's one region is one block holding only a terminator
  /// that yields block argument `i` for some `i < numInputs`.
  bool onlyYieldsAnInput(unsigned numInputs) const;
  /// The op as IREE prints it, aliases written out.
  std::string print() const;
  /// The ops nested in the op's regions, in order (one level).
  std::vector<IreeIrOp> children() const;
  /// The library that parsed the op.
  const IreeIrLibrary &library() const { return *lib; }

private:
  friend class IreeIrModule;
  friend class IreeIrLibrary;
  IreeIrOp(const IreeIrLibrary &library, void *op) : lib(&library), op(op) {}
  const IreeIrLibrary *lib;
  void *op;
};

/// A file parsed by IREE.
class IreeIrModule {
public:
  ~IreeIrModule();
  IreeIrOp op() const { return IreeIrOp(*lib, module); }
  /// Every op, pre-order; `fn` gets the op and its ancestors (outermost
  /// first, the module excluded).
  void walk(const std::function<void(IreeIrOp, ArrayRef<IreeIrOp>)> &fn) const;
  /// Removes discardable attribute `name` from every op; how many had it.
  unsigned removeAttrEverywhere(StringRef name) const;
  /// The file as IREE prints it.
  std::string print() const;
  /// IREE's verifier; the error gives its diagnostics as file:line:col.
  Error verify() const;

private:
  friend class IreeIrLibrary;
  IreeIrModule(const IreeIrLibrary &library, void *module)
      : lib(&library), module(module) {}
  const IreeIrLibrary *lib;
  void *module;
};

/// IREE's compiler library, loaded once per process.
class IreeIrLibrary {
public:
  /// Loads the library at `path` (once; later calls return the same one).
  /// An error names the file and the missing symbol.
  static Expected<const IreeIrLibrary *> load(StringRef path);
  /// The library of `compileTool`'s installation, or null (with a note on
  /// stderr when it exists but cannot be loaded): callers then read IREE's
  /// files as text.
  static const IreeIrLibrary *forTool(StringRef compileTool);

  /// Parses `text` with every IREE dialect registered; an error gives IREE's
  /// diagnostics as `fileName:line:col: message`.
  Expected<std::unique_ptr<IreeIrModule>> parse(StringRef text,
                                                StringRef fileName) const;
  /// The library's path.
  StringRef path() const { return libraryPath; }

  /// `root` as a `transform.iree.match.cast_compatible_dag_from_root`
  /// statement (how a spec matches an op IREE has no named matcher for): a
  /// copy of it without `droppedAttrs`, its operands the matcher's block
  /// arguments, as IREE prints it. An error when IREE's verifier rejects it
  /// (a body that reads a value from outside the op).
  Expected<std::string> dagMatcher(const IreeIrOp &root,
                                   ArrayRef<StringRef> droppedAttrs) const;

  struct Api;
  const Api &api() const { return *functions; }
  ~IreeIrLibrary();

private:
  friend class IreeIrModule;
  friend class IreeIrOp;
  IreeIrLibrary() = default;
  /// Destroys the session and IREE's globals (at exit; no module may live).
  void shutdown();
  std::string libraryPath;
  std::unique_ptr<Api> functions;
  void *session = nullptr;
  /// The session's context (an MlirContext).
  void *context = nullptr;
};

} // namespace retune::iree

#endif // RETUNE_IREE_IREEIR_H
