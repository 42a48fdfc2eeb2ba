//===- IreeIr.cpp - IREE's IR read and written by IREE's own library ------===//
#include "stages/backends/iree/IreeIr.h"

#include "stages/support/FileUtil.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <map>
#include <mutex>

using namespace llvm;

// MLIR's C API as the library exports it. Only the declarations' types are
// used here (`decltype`); the functions are looked up in the loaded library,
// never linked from MLIR 22.
extern "C" {
struct iree_compiler_session_t;
MlirAttribute mlirLinalgGetIndexingMapsAttribute(MlirOperation op);
}

namespace retune::iree {

struct IreeIrLibrary::Api {
  void (*globalInitialize)();
  void (*globalShutdown)();
  iree_compiler_session_t *(*sessionCreate)();
  void (*sessionDestroy)(iree_compiler_session_t *);
  MlirContext (*sessionBorrowContext)(iree_compiler_session_t *);
#define RETUNE_MLIR_C_API(X)                                                   \
  X(mlirModuleCreateParse)                                                     \
  X(mlirModuleGetOperation)                                                    \
  X(mlirOperationDestroy)                                                      \
  X(mlirOperationGetName)                                                      \
  X(mlirIdentifierStr)                                                         \
  X(mlirOperationGetNumRegions)                                                \
  X(mlirOperationGetRegion)                                                    \
  X(mlirRegionGetFirstBlock)                                                   \
  X(mlirBlockGetNextInRegion)                                                  \
  X(mlirBlockGetFirstOperation)                                                \
  X(mlirOperationGetNextInBlock)                                               \
  X(mlirOperationGetAttributeByName)                                           \
  X(mlirOperationRemoveDiscardableAttributeByName)                             \
  X(mlirAttributePrint)                                                        \
  X(mlirTypePrint)                                                             \
  X(mlirStringAttrGetValue)                                                    \
  X(mlirAttributeIsAString)                                                    \
  X(mlirOperationGetNumOperands)                                               \
  X(mlirOperationGetNumResults)                                                \
  X(mlirOperationGetOperand)                                                   \
  X(mlirValueGetType)                                                          \
  X(mlirValueIsABlockArgument)                                                 \
  X(mlirBlockArgumentGetArgNumber)                                             \
  X(mlirBlockArgumentGetOwner)                                                 \
  X(mlirOperationGetBlock)                                                     \
  X(mlirOperationPrintWithFlags)                                               \
  X(mlirOpPrintingFlagsCreate)                                                 \
  X(mlirOpPrintingFlagsDestroy)                                                \
  X(mlirOpPrintingFlagsUseLocalScope)                                          \
  X(mlirOperationVerify)                                                       \
  X(mlirOperationGetLocation)                                                  \
  X(mlirLocationIsAFileLineColRange)                                           \
  X(mlirLocationFileLineColRangeGetStartLine)                                  \
  X(mlirLocationFileLineColRangeGetStartColumn)                                \
  X(mlirContextAttachDiagnosticHandler)                                        \
  X(mlirContextDetachDiagnosticHandler)                                        \
  X(mlirDiagnosticGetLocation)                                                 \
  X(mlirDiagnosticGetSeverity)                                                 \
  X(mlirDiagnosticPrint)                                                       \
  X(mlirContextEnableMultithreading)                                           \
  X(mlirOperationClone)                                                        \
  X(mlirOperationSetOperand)                                                   \
  X(mlirBlockGetArgument)                                                      \
  X(mlirBlockInsertOwnedOperationBefore)                                       \
  X(mlirOperationGetResult)                                                    \
  X(mlirValueReplaceAllUsesOfWith)                                             \
  X(mlirOperationStateGet)                                                     \
  X(mlirOperationStateAddOperands)                                             \
  X(mlirOperationStateAddResults)                                              \
  X(mlirOperationStateAddAttributes)                                           \
  X(mlirOperationCreate)                                                       \
  X(mlirAttributeParseGet)                                                     \
  X(mlirTypeParseGet)                                                          \
  X(mlirIdentifierGet)                                                         \
  X(mlirNamedAttributeGet)                                                     \
  X(mlirAttributeIsAArray)                                                     \
  X(mlirArrayAttrGetNumElements)                                               \
  X(mlirArrayAttrGetElement)                                                   \
  X(mlirAttributeIsAInteger)                                                   \
  X(mlirIntegerAttrGetValueSInt)                                               \
  X(mlirOperationMoveBefore)                                                   \
  X(mlirValueIsAOpResult)                                                      \
  X(mlirOpResultGetOwner)                                                      \
  X(mlirLinalgGetIndexingMapsAttribute)
#define RETUNE_DECLARE(name) decltype(&::name) name;
  RETUNE_MLIR_C_API(RETUNE_DECLARE)
#undef RETUNE_DECLARE
};

namespace {

MlirOperation wrapOp(void *op) { return MlirOperation{op}; }
MlirStringRef ref(StringRef s) { return MlirStringRef{s.data(), s.size()}; }

/// Attribute `name` of `op` (inherent or discardable), null when absent.
MlirAttribute attributeOf(const IreeIrLibrary::Api &api, void *op,
                          StringRef name) {
  return api.mlirOperationGetAttributeByName(wrapOp(op), ref(name));
}

void appendTo(MlirStringRef text, void *out) {
  static_cast<std::string *>(out)->append(text.data, text.length);
}

/// IREE's diagnostics while a handler is attached, as file:line:col lines.
class DiagnosticCollector {
public:
  DiagnosticCollector(const IreeIrLibrary::Api &api, MlirContext context,
                      StringRef fileName)
      : api(api), context(context), fileName(fileName.str()) {
    id = api.mlirContextAttachDiagnosticHandler(context, &handle, this,
                                                nullptr);
  }
  ~DiagnosticCollector() {
    api.mlirContextDetachDiagnosticHandler(context, id);
  }
  std::string text() const { return join(messages, "\n"); }

private:
  static MlirLogicalResult handle(MlirDiagnostic diagnostic, void *self) {
    auto *collector = static_cast<DiagnosticCollector *>(self);
    const IreeIrLibrary::Api &api = collector->api;
    std::string message;
    api.mlirDiagnosticPrint(diagnostic, appendTo, &message);
    MlirLocation loc = api.mlirDiagnosticGetLocation(diagnostic);
    std::string where = collector->fileName;
    if (api.mlirLocationIsAFileLineColRange(loc))
      where += formatv(":{0}:{1}",
                       api.mlirLocationFileLineColRangeGetStartLine(loc),
                       api.mlirLocationFileLineColRangeGetStartColumn(loc))
                   .str();
    StringRef severity =
        api.mlirDiagnosticGetSeverity(diagnostic) == MlirDiagnosticError
            ? "error"
            : "note";
    collector->messages.push_back(where + ": " + severity.str() + ": " +
                                  message);
    return MlirLogicalResult{1};
  }

  const IreeIrLibrary::Api &api;
  MlirContext context;
  std::string fileName;
  MlirDiagnosticHandlerID id;
  std::vector<std::string> messages;
};

/// The type of `value` as IREE prints it.
std::string printType(const IreeIrLibrary::Api &api, MlirValue value) {
  std::string out;
  api.mlirTypePrint(api.mlirValueGetType(value), appendTo, &out);
  return out;
}

std::string printAttribute(const IreeIrLibrary::Api &api, MlirAttribute attr) {
  std::string out;
  if (attr.ptr)
    api.mlirAttributePrint(attr, appendTo, &out);
  return out;
}

/// libIREECompiler.so of the installation whose tool is `bin` (an absolute
/// path, not resolved), or "".
std::string libraryOfInstall(StringRef bin) {
  StringRef dir = sys::path::parent_path(bin);
  // pip's own binary: .../iree/compiler/_mlir_libs/iree-compile, beside it.
  SmallString<256> beside(dir);
  sys::path::append(beside, "libIREECompiler.so");
  if (sys::fs::exists(beside))
    return beside.str().str();
  StringRef prefix = sys::path::parent_path(dir);
  // A source build or install: <prefix>/bin/iree-compile, <prefix>/lib/.
  SmallString<256> direct(prefix);
  sys::path::append(direct, "lib", "libIREECompiler.so");
  if (sys::fs::exists(direct))
    return direct.str().str();
  // A pip install: <prefix>/bin/iree-compile is a script; the library lives
  // in <prefix>/lib/python3.X/site-packages/iree/compiler/_mlir_libs/ (a
  // venv, pip --user), or dist-packages (Debian's system pip).
  SmallString<256> lib(prefix);
  sys::path::append(lib, "lib");
  std::error_code ec;
  for (sys::fs::directory_iterator it(lib, ec), end; it != end && !ec;
       it.increment(ec)) {
    if (!sys::path::filename(it->path()).starts_with("python"))
      continue;
    for (StringRef packages : {"site-packages", "dist-packages"}) {
      SmallString<256> candidate(it->path());
      sys::path::append(candidate, packages, "iree", "compiler");
      sys::path::append(candidate, "_mlir_libs", "libIREECompiler.so");
      if (sys::fs::exists(candidate))
        return candidate.str().str();
    }
  }
  return {};
}

} // namespace

std::string findCompilerLibrary(StringRef compileTool) {
  if (compileTool.empty())
    return {};
  SmallString<256> bin(compileTool);
  sys::fs::make_absolute(bin);
  std::string found = libraryOfInstall(bin);
  // A link to the tool (on PATH, in a tools_dir) names another directory
  // than the installation's: its target does not.
  SmallString<256> real;
  if (found.empty() && !sys::fs::real_path(bin, real) && real != bin)
    found = libraryOfInstall(real);
  return found;
}

//===----------------------------------------------------------------------===//
// IreeIrLibrary
//===----------------------------------------------------------------------===//

Expected<const IreeIrLibrary *> IreeIrLibrary::load(StringRef path) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<IreeIrLibrary>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = loaded.find(path.str()); it != loaded.end())
    return it->second.get();
  std::string error;
  sys::DynamicLibrary handle =
      sys::DynamicLibrary::getPermanentLibrary(path.str().c_str(), &error);
  if (!handle.isValid())
    return makeError(path + ": cannot load IREE's compiler library: " + error);
  auto library = std::unique_ptr<IreeIrLibrary>(new IreeIrLibrary());
  library->libraryPath = path.str();
  library->functions = std::make_unique<Api>();
  Api &api = *library->functions;
  std::string missing;
  auto find = [&](auto &slot, const char *symbol) {
    void *address = handle.getAddressOfSymbol(symbol);
    if (!address && missing.empty())
      missing = symbol;
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(address);
  };
  find(api.globalInitialize, "ireeCompilerGlobalInitialize");
  find(api.globalShutdown, "ireeCompilerGlobalShutdown");
  find(api.sessionCreate, "ireeCompilerSessionCreate");
  find(api.sessionDestroy, "ireeCompilerSessionDestroy");
  find(api.sessionBorrowContext, "ireeCompilerSessionBorrowContext");
#define RETUNE_FIND(name) find(api.name, #name);
  RETUNE_MLIR_C_API(RETUNE_FIND)
#undef RETUNE_FIND
  if (!missing.empty())
    return makeError(path + ": IREE's compiler library lacks '" + missing +
                     "' (a release older than this Retune knows?)");
  api.globalInitialize();
  iree_compiler_session_t *session = api.sessionCreate();
  MlirContext context = api.sessionBorrowContext(session);
  if (!context.ptr)
    return makeError(path + ": IREE's compiler library gave no context");
  // Reading needs no thread pool; a pool's workers still running while the
  // process exits crashed it (the library's static destructors).
  api.mlirContextEnableMultithreading(context, false);
  library->session = session;
  library->context = context.ptr;
  const IreeIrLibrary *result = library.get();
  loaded[path.str()] = std::move(library);
  // Registered after the library's own static destructors, so it runs
  // before them: the session and IREE's globals go first.
  static bool registered = [] {
    return std::atexit([] {
      for (auto &[path, library] : loaded)
        library->shutdown();
    }) == 0;
  }();
  (void)registered;
  return result;
}

const IreeIrLibrary *IreeIrLibrary::forTool(StringRef compileTool) {
  std::string path = findCompilerLibrary(compileTool);
  if (path.empty())
    return nullptr;
  Expected<const IreeIrLibrary *> library = load(path);
  if (!library) {
    static std::once_flag noted;
    std::string message = toString(library.takeError());
    std::call_once(noted, [&] {
      errs() << "retune: note: " << message
             << "; IREE's files are read as text instead\n";
    });
    return nullptr;
  }
  return *library;
}

IreeIrLibrary::~IreeIrLibrary() = default;

void IreeIrLibrary::shutdown() {
  if (!session)
    return;
  functions->sessionDestroy(static_cast<iree_compiler_session_t *>(session));
  functions->globalShutdown();
  session = nullptr;
  context = nullptr;
}

Expected<std::unique_ptr<IreeIrModule>>
IreeIrLibrary::parse(StringRef text, StringRef fileName) const {
  MlirContext ctx{context};
  DiagnosticCollector diagnostics(*functions, ctx, fileName);
  // As iree-opt reads a file: several top-level ops go into one module.
  MlirModule module = functions->mlirModuleCreateParse(ctx, ref(text));
  MlirOperation op = module.ptr ? functions->mlirModuleGetOperation(module)
                                : MlirOperation{nullptr};
  if (!op.ptr)
    return makeError(diagnostics.text().empty()
                         ? (fileName + ": IREE could not parse the file").str()
                         : diagnostics.text());
  return std::unique_ptr<IreeIrModule>(new IreeIrModule(*this, op.ptr));
}

Expected<std::string>
IreeIrLibrary::dagMatcher(const IreeIrOp &root,
                          ArrayRef<StringRef> droppedAttrs) const {
  // The matcher is parsed by IREE from this template; IREE's verifier wants
  // one op at least in the DAG's region, so the template holds a seed op
  // that the root's copy, reading the block's arguments, then replaces.
  std::string args;
  for (unsigned i = 0; i < root.numOperands(); ++i)
    args += (i ? ", %a" : "%a") + std::to_string(i) + ": " +
            root.operandType(i);
  std::string text =
      "module attributes {transform.with_named_sequence} {\n"
      "  transform.named_sequence @retune_dag(%arg0: !transform.any_op "
      "{transform.readonly}) -> !transform.any_op {\n"
      "    %inputs, %outputs = "
      "transform.iree.match.cast_compatible_dag_from_root %arg0 {\n"
      "    ^bb0(" + args + "):\n"
      "      %seed = tensor.empty() : tensor<1xf32>\n"
      "    } : (!transform.any_op) -> (!transform.any_value, "
      "!transform.any_value)\n"
      "    transform.yield %arg0 : !transform.any_op\n"
      "  }\n"
      "}\n";
  Expected<std::unique_ptr<IreeIrModule>> module = parse(text, "retune_dag");
  if (!module)
    return module.takeError();
  std::optional<IreeIrOp> match;
  (*module)->walk([&](IreeIrOp op, ArrayRef<IreeIrOp>) {
    if (op.name() == "transform.iree.match.cast_compatible_dag_from_root")
      match = op;
  });
  const Api &api = *functions;
  MlirBlock block = api.mlirRegionGetFirstBlock(
      api.mlirOperationGetRegion(wrapOp(match->op), 0));
  MlirOperation seed = api.mlirBlockGetFirstOperation(block);
  MlirOperation copy = api.mlirOperationClone(wrapOp(root.op));
  IreeIrOp copyView(*this, copy.ptr);
  for (StringRef name : droppedAttrs)
    copyView.removeAttr(name);
  for (unsigned i = 0; i < root.numOperands(); ++i)
    api.mlirOperationSetOperand(copy, i, api.mlirBlockGetArgument(block, i));
  api.mlirBlockInsertOwnedOperationBefore(block, seed, copy);
  api.mlirOperationDestroy(seed);
  // A body that reads a value defined outside the op cannot be matched.
  if (Error err = (*module)->verify())
    return makeError("the root op cannot be matched as a DAG: " +
                     toString(std::move(err)));
  // The statement's lines, as IREE prints the whole matcher (printed alone,
  // its operand, the sequence's argument, would have no name).
  SmallVector<StringRef> lines;
  std::string printed = (*module)->op().print();
  StringRef(printed).split(lines, '\n');
  std::string statement;
  bool inside = false;
  for (StringRef line : lines) {
    inside = inside || line.contains(
                           "transform.iree.match.cast_compatible_dag_from_root");
    if (!inside)
      continue;
    statement += line.str() + "\n";
    if (line.ltrim().starts_with("} : (!transform.any_op)"))
      return statement;
  }
  return makeError("IREE printed no cast_compatible_dag_from_root statement");
}

//===----------------------------------------------------------------------===//
// IreeIrModule
//===----------------------------------------------------------------------===//

IreeIrModule::~IreeIrModule() {
  lib->api().mlirOperationDestroy(wrapOp(module));
}

void IreeIrModule::walk(
    const std::function<void(IreeIrOp, ArrayRef<IreeIrOp>)> &fn) const {
  std::vector<IreeIrOp> ancestors;
  std::function<void(IreeIrOp)> visit = [&](IreeIrOp parent) {
    for (IreeIrOp child : parent.children()) {
      fn(child, ancestors);
      ancestors.push_back(child);
      visit(child);
      ancestors.pop_back();
    }
  };
  visit(op());
}

unsigned IreeIrModule::removeAttrEverywhere(StringRef name) const {
  unsigned removed = 0;
  walk([&](IreeIrOp op, ArrayRef<IreeIrOp>) {
    removed += op.removeAttr(name);
  });
  return removed;
}

std::string IreeIrModule::print() const {
  const IreeIrLibrary::Api &api = lib->api();
  MlirOpPrintingFlags flags = api.mlirOpPrintingFlagsCreate();
  std::string out;
  api.mlirOperationPrintWithFlags(wrapOp(module), flags, appendTo, &out);
  api.mlirOpPrintingFlagsDestroy(flags);
  if (!out.empty() && out.back() != '\n')
    out += '\n';
  return out;
}

Error IreeIrModule::verify() const {
  const IreeIrLibrary::Api &api = lib->api();
  DiagnosticCollector diagnostics(api, MlirContext{lib->context}, "");
  if (api.mlirOperationVerify(wrapOp(module)))
    return Error::success();
  return makeError(diagnostics.text());
}

//===----------------------------------------------------------------------===//
// IreeIrOp
//===----------------------------------------------------------------------===//

StringRef IreeIrOp::name() const {
  const IreeIrLibrary::Api &api = lib->api();
  MlirStringRef s = api.mlirIdentifierStr(api.mlirOperationGetName(wrapOp(op)));
  return StringRef(s.data, s.length);
}

std::string IreeIrOp::symbolName() const {
  const IreeIrLibrary::Api &api = lib->api();
  MlirAttribute attr =
      api.mlirOperationGetAttributeByName(wrapOp(op), ref("sym_name"));
  if (!attr.ptr || !api.mlirAttributeIsAString(attr))
    return {};
  MlirStringRef s = api.mlirStringAttrGetValue(attr);
  return std::string(s.data, s.length);
}

unsigned IreeIrOp::line() const {
  const IreeIrLibrary::Api &api = lib->api();
  MlirLocation loc = api.mlirOperationGetLocation(wrapOp(op));
  if (!api.mlirLocationIsAFileLineColRange(loc))
    return 0;
  return api.mlirLocationFileLineColRangeGetStartLine(loc);
}

bool IreeIrOp::hasAttr(StringRef name) const {
  return attributeOf(lib->api(), op, name).ptr;
}

std::string IreeIrOp::attr(StringRef name) const {
  const IreeIrLibrary::Api &api = lib->api();
  return printAttribute(
      api, attributeOf(api, op, name));
}

bool IreeIrOp::removeAttr(StringRef name) const {
  return lib->api().mlirOperationRemoveDiscardableAttributeByName(wrapOp(op),
                                                                  ref(name));
}

unsigned IreeIrOp::numOperands() const {
  return lib->api().mlirOperationGetNumOperands(wrapOp(op));
}

unsigned IreeIrOp::numResults() const {
  return lib->api().mlirOperationGetNumResults(wrapOp(op));
}

std::string IreeIrOp::operandType(unsigned i) const {
  const IreeIrLibrary::Api &api = lib->api();
  return printType(api, api.mlirOperationGetOperand(wrapOp(op), i));
}

std::string IreeIrOp::resultType(unsigned i) const {
  const IreeIrLibrary::Api &api = lib->api();
  return printType(api, api.mlirOperationGetResult(wrapOp(op), i));
}

IreeIrValue IreeIrOp::operand(unsigned i) const {
  return {lib->api().mlirOperationGetOperand(wrapOp(op), i).ptr};
}

IreeIrValue IreeIrOp::result(unsigned i) const {
  return {lib->api().mlirOperationGetResult(wrapOp(op), i).ptr};
}

std::optional<std::vector<int64_t>>
IreeIrOp::intArrayAttr(StringRef name) const {
  const IreeIrLibrary::Api &api = lib->api();
  MlirAttribute attr = attributeOf(api, op, name);
  if (!attr.ptr || !api.mlirAttributeIsAArray(attr))
    return std::nullopt;
  std::vector<int64_t> values;
  for (intptr_t i = 0, e = api.mlirArrayAttrGetNumElements(attr); i < e; ++i) {
    MlirAttribute element = api.mlirArrayAttrGetElement(attr, i);
    if (!api.mlirAttributeIsAInteger(element))
      return std::nullopt;
    values.push_back(api.mlirIntegerAttrGetValueSInt(element));
  }
  return values;
}

std::optional<std::string> IreeIrOp::stringAttr(StringRef name) const {
  const IreeIrLibrary::Api &api = lib->api();
  MlirAttribute attr = attributeOf(api, op, name);
  if (!attr.ptr || !api.mlirAttributeIsAString(attr))
    return std::nullopt;
  MlirStringRef s = api.mlirStringAttrGetValue(attr);
  return std::string(s.data, s.length);
}

Expected<IreeIrOp> IreeIrOp::insertBefore(const IreeIrOpSpec &spec) const {
  const IreeIrLibrary::Api &api = lib->api();
  MlirContext context{lib->context};
  DiagnosticCollector diagnostics(api, context, spec.name);
  auto failed = [&](StringRef what, StringRef text) {
    return makeError(formatv("{0}: IREE cannot parse the {1} '{2}'{3}{4}",
                             spec.name, what, text,
                             diagnostics.text().empty() ? "" : ": ",
                             diagnostics.text())
                         .str());
  };
  std::vector<MlirType> types;
  for (const std::string &text : spec.resultTypes) {
    MlirType type = api.mlirTypeParseGet(context, ref(StringRef(text)));
    if (!type.ptr)
      return failed("type", text);
    types.push_back(type);
  }
  std::vector<MlirNamedAttribute> attributes;
  for (const auto &[name, text] : spec.attributes) {
    MlirAttribute attr = api.mlirAttributeParseGet(context, ref(StringRef(text)));
    if (!attr.ptr)
      return failed("attribute", text);
    attributes.push_back(api.mlirNamedAttributeGet(
        api.mlirIdentifierGet(context, ref(StringRef(name))), attr));
  }
  std::vector<MlirValue> operands;
  for (IreeIrValue value : spec.operands)
    operands.push_back(MlirValue{value.value});
  MlirOperationState state = api.mlirOperationStateGet(
      ref(StringRef(spec.name)), api.mlirOperationGetLocation(wrapOp(op)));
  api.mlirOperationStateAddOperands(&state, operands.size(), operands.data());
  api.mlirOperationStateAddResults(&state, types.size(), types.data());
  api.mlirOperationStateAddAttributes(&state, attributes.size(),
                                      attributes.data());
  MlirOperation created = api.mlirOperationCreate(&state);
  if (!created.ptr)
    return makeError(spec.name + ": IREE could not create the op" +
                     (diagnostics.text().empty() ? "" : ": ") +
                     diagnostics.text());
  api.mlirBlockInsertOwnedOperationBefore(api.mlirOperationGetBlock(wrapOp(op)),
                                          wrapOp(op), created);
  return IreeIrOp(*lib, created.ptr);
}

void IreeIrOp::replaceUsesOfResult(unsigned i, IreeIrValue with) const {
  const IreeIrLibrary::Api &api = lib->api();
  api.mlirValueReplaceAllUsesOfWith(api.mlirOperationGetResult(wrapOp(op), i),
                                    MlirValue{with.value});
}

void IreeIrOp::erase() const { lib->api().mlirOperationDestroy(wrapOp(op)); }

void IreeIrOp::moveBefore(const IreeIrOp &other) const {
  lib->api().mlirOperationMoveBefore(wrapOp(op), wrapOp(other.op));
}

std::optional<IreeIrOp> IreeIrOp::definingOp(IreeIrValue value) const {
  const IreeIrLibrary::Api &api = lib->api();
  MlirValue v{value.value};
  if (!api.mlirValueIsAOpResult(v))
    return std::nullopt;
  return IreeIrOp(*lib, api.mlirOpResultGetOwner(v).ptr);
}

std::string IreeIrOp::linalgIndexingMaps() const {
  const IreeIrLibrary::Api &api = lib->api();
  if (!name().starts_with("linalg."))
    return attr("indexing_maps");
  return printAttribute(api,
                        api.mlirLinalgGetIndexingMapsAttribute(wrapOp(op)));
}

bool IreeIrOp::onlyYieldsAnInput(unsigned numInputs) const {
  const IreeIrLibrary::Api &api = lib->api();
  std::vector<IreeIrOp> body = children();
  if (api.mlirOperationGetNumRegions(wrapOp(op)) != 1 || body.size() != 1 ||
      body.front().numOperands() != 1 || body.front().numResults() != 0)
    return false;
  MlirOperation terminator = wrapOp(body.front().op);
  MlirValue yielded = api.mlirOperationGetOperand(terminator, 0);
  return api.mlirValueIsABlockArgument(yielded) &&
         api.mlirBlockArgumentGetOwner(yielded).ptr ==
             api.mlirOperationGetBlock(terminator).ptr &&
         api.mlirBlockArgumentGetArgNumber(yielded) < numInputs;
}

std::string IreeIrOp::print() const {
  const IreeIrLibrary::Api &api = lib->api();
  MlirOpPrintingFlags flags = api.mlirOpPrintingFlagsCreate();
  api.mlirOpPrintingFlagsUseLocalScope(flags);
  std::string out;
  api.mlirOperationPrintWithFlags(wrapOp(op), flags, appendTo, &out);
  api.mlirOpPrintingFlagsDestroy(flags);
  return out;
}

std::vector<IreeIrOp> IreeIrOp::children() const {
  const IreeIrLibrary::Api &api = lib->api();
  std::vector<IreeIrOp> out;
  MlirOperation self = wrapOp(op);
  for (intptr_t r = 0, e = api.mlirOperationGetNumRegions(self); r < e; ++r)
    for (MlirBlock block =
             api.mlirRegionGetFirstBlock(api.mlirOperationGetRegion(self, r));
         block.ptr; block = api.mlirBlockGetNextInRegion(block))
      for (MlirOperation child = api.mlirBlockGetFirstOperation(block);
           child.ptr; child = api.mlirOperationGetNextInBlock(child))
        out.push_back(IreeIrOp(*lib, child.ptr));
  return out;
}

} // namespace retune::iree
