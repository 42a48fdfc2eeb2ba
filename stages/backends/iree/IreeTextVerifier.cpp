//===- IreeTextVerifier.cpp - IREE's spec rules checked as text -----------===//
#include "stages/backends/iree/IreeTextVerifier.h"

#include "stages/backends/iree/TransformText.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace llvm;

namespace retune::iree {

namespace {

constexpr StringLiteral kRequiredByEntry =
    " (required by 'iree_codegen.tuning_spec_entrypoint')";
constexpr StringLiteral kRequiredByDefault =
    " (required by 'iree_codegen.tuning_spec_with_default_entrypoint')";

class SpecVerifier {
public:
  explicit SpecVerifier(const TextFile &file) : file(file) {}

  void error(unsigned line, const Twine &message) {
    errors.push_back(file.where(line) + ": " + message.str());
  }

  /// IREE's attribute verifier, on every op carrying one of its attributes.
  void verifyIreeRules() {
    file.walk([&](const OpNode &op) {
      if (file.hasAttr(op, kEntrypointAttr))
        verifyEntrypoint(op);
      if (isModule(op) && file.hasAttr(op, kDefaultEntrypointAttr))
        verifyDefaultEntrypointModule(op);
    });
  }

  void verifyEntrypoint(const OpNode &op) {
    if (!file.hasUnitAttr(op, kEntrypointAttr)) {
      error(op.line, "'" + kEntrypointAttr + "' attribute must be a UnitAttr");
      return;
    }
    if (op.name != "transform.named_sequence")
      return;
    NamedSequence seq = readNamedSequence(file, op);
    if (seq.args.size() != 1 || seq.args[0].type != kAnyOp) {
      error(op.line, "Must take one 'any_op'" + kRequiredByEntry);
      return;
    }
    if (seq.resultTypes.size() != 1 || seq.resultTypes[0] != kAnyOp)
      error(op.line, "Must return one 'any_op'" + kRequiredByEntry);
  }

  void verifyDefaultEntrypointModule(const OpNode &module) {
    static const std::vector<OpNode> empty;
    const std::vector<OpNode> &body =
        module.regions.empty() ? empty : module.regions.front();
    const OpNode *kernelConfig = nullptr;
    unsigned entrypoints = 0;
    for (const OpNode &op : body) {
      if (op.name == "transform.named_sequence" &&
          file.symbolName(op) == std::optional<std::string>(kKernelConfig.str()))
        kernelConfig = &op;
      if (file.hasAttr(op, kEntrypointAttr))
        ++entrypoints;
    }
    if (!kernelConfig) {
      error(module.line, "Missing named sequence '" + kKernelConfig + "'" +
                             kRequiredByDefault);
      return;
    }
    if (!file.hasAttr(*kernelConfig, kEntrypointAttr)) {
      error(kernelConfig->line, "Missing attribute '" + kEntrypointAttr +
                                    "' in named sequence '" + kKernelConfig +
                                    "'" + kRequiredByDefault);
      return;
    }
    if (entrypoints != 1) {
      error(module.line,
            "Expected one named sequence with '" + kEntrypointAttr +
                "', but found " + Twine(entrypoints) + kRequiredByDefault);
      return;
    }
    if (kernelConfig->regions.empty()) {
      error(kernelConfig->line, "'" + kKernelConfig +
                                    "' must contain exactly one block" +
                                    kRequiredByDefault);
      return;
    }
    const std::vector<OpNode> &ops = kernelConfig->regions.front();
    if (ops.size() != 2) {
      error(kernelConfig->line, "'" + kKernelConfig +
                                    "' must contain exactly two operations" +
                                    kRequiredByDefault);
      return;
    }
    if (ops[0].name != "transform.foreach_match") {
      error(kernelConfig->line, "'" + kKernelConfig +
                                    "' must start with 'ForeachMatchOp'" +
                                    kRequiredByDefault);
      return;
    }
    const OpNode &fmOp = ops[0];
    ForeachMatch fm = readForeachMatch(file, fmOp);
    if (fm.restrictRoot) {
      error(fmOp.line, "'ForeachMatchOp' must not have 'restrict_root' "
                       "attribute" +
                           kRequiredByDefault);
      return;
    }
    if (fm.flattenResults) {
      error(fmOp.line, "'ForeachMatchOp' must not have 'flatten_results' "
                       "attribute" +
                           kRequiredByDefault);
      return;
    }
    if (fm.operandTypes.size() != 1 || fm.operandTypes[0] != kAnyOp) {
      error(fmOp.line, "'ForeachMatchOp' must take exactly one 'any_op' "
                       "argument" +
                           kRequiredByDefault);
      return;
    }
    if (fm.resultTypes.size() != 1 || fm.resultTypes[0] != kAnyOp)
      error(fmOp.line, "'ForeachMatchOp' must return exactly one 'any_op' "
                       "result" +
                           kRequiredByDefault);
  }

  /// What loading the spec into IREE needs beyond the attribute verifier.
  void verifyLoadable() {
    const OpNode *spec = nullptr;
    for (const OpNode &op : file.ops())
      if (isModule(op)) {
        spec = &op;
        break;
      }
    if (!spec) {
      error(1, "no spec module: a tuning spec is a 'module attributes {" +
                   kWithNamedSequenceAttr + "} { ... }'");
      return;
    }
    if (!file.hasAttr(*spec, kWithNamedSequenceAttr))
      error(spec->line, "the spec module lacks '" + kWithNamedSequenceAttr +
                            "'; IREE refuses to load it (add the attribute)");
    if (spec->regions.empty())
      return;
    SmallVector<const OpNode *> entries;
    for (const OpNode &op : spec->regions.front())
      if (op.name == "transform.named_sequence" &&
          file.hasAttr(op, kEntrypointAttr))
        entries.push_back(&op);
    if (entries.empty())
      error(spec->line, "no named sequence carries '" + kEntrypointAttr +
                            "'; IREE would apply nothing (mark the entry "
                            "point, usually @__kernel_config)");
    for (const OpNode *entry : entries) {
      NamedSequence seq = readNamedSequence(file, *entry);
      if (!seq.args.empty() && !seq.args[0].consumed() &&
          !seq.args[0].readonly())
        error(entry->line, "the argument of entry point @" + seq.name +
                               " must be {transform.readonly} or "
                               "{transform.consumed}");
    }
    verifySymbols(*spec);
  }

  /// foreach_match names resolve in the module that holds them.
  void verifySymbols(const OpNode &module) {
    if (module.regions.empty())
      return;
    StringSet<> sequences;
    for (const OpNode &op : module.regions.front())
      if (op.name == "transform.named_sequence")
        if (std::optional<std::string> name = file.symbolName(op))
          sequences.insert(*name);
    for (const OpNode &op : module.regions.front()) {
      if (isModule(op)) {
        verifySymbols(op);
        continue;
      }
      walkOps({op}, [&](const OpNode &inner) {
        if (inner.name != "transform.foreach_match")
          return;
        for (auto &[matcher, action] : readForeachMatch(file, inner).pairs)
          for (const std::string &name : {matcher, action})
            if (!sequences.contains(name))
              error(inner.line, "foreach_match refers to @" + name +
                                    ", which is not a named sequence of its "
                                    "module");
      });
    }
  }

  const TextFile &file;
  std::vector<std::string> errors;
};

} // namespace

Error verifySpecAsText(StringRef specText, StringRef fileName) {
  Expected<std::unique_ptr<TextFile>> file = TextFile::parse(specText, fileName);
  if (!file)
    return file.takeError();
  SpecVerifier verifier(**file);
  verifier.verifyIreeRules();
  if (verifier.errors.empty())
    verifier.verifyLoadable();
  if (verifier.errors.empty())
    return Error::success();
  return makeError(join(verifier.errors, "\n"));
}

} // namespace retune::iree
