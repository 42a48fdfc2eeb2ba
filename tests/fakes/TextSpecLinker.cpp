//===- TextSpecLinker.cpp - IREE's spec linking, for the fake iree-opt ----===//
#include "tests/fakes/TextSpecLinker.h"

#include "stages/backends/iree/IreeSpec.h"
#include "stages/backends/iree/TransformText.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace llvm;

namespace retune::iree::fakes {

namespace {

/// Re-emits the source of tokens [b, e), replacing symbol tokens found in
/// `renames`, and indents continuation lines by `indent` extra spaces.
std::string rewrite(const TextFile &file, size_t b, size_t e,
                    const StringMap<std::string> &renames,
                    StringRef indent = "") {
  const std::vector<Token> &toks = file.tokens();
  std::string out;
  StringRef src = file.text();
  size_t pos = toks[b].offset;
  for (size_t i = b; i < e; ++i) {
    const Token &t = toks[i];
    out += src.slice(pos, t.offset).str();
    StringRef name = t.text.drop_front();
    auto it = t.kind == TokKind::Symbol ? renames.find(name) : renames.end();
    out += it != renames.end() ? "@" + it->second : t.text.str();
    pos = t.offset + t.text.size();
  }
  if (indent.empty())
    return out;
  std::string indented;
  for (char c : out) {
    indented += c;
    if (c == '\n')
      indented += indent.str();
  }
  return indented;
}

struct ParsedSpec {
  const SpecInput *input;
  std::unique_ptr<TextFile> file;
  const OpNode *module = nullptr;
};

const std::vector<OpNode> &bodyOf(const OpNode &op) {
  static const std::vector<OpNode> empty;
  return op.regions.empty() ? empty : op.regions.front();
}

constexpr StringLiteral kEntrySignature =
    "(%arg0: !transform.any_op {transform.ARG}) -> !transform.any_op "
    "attributes {iree_codegen.tuning_spec_entrypoint}";

std::string entrySignature(bool consumed) {
  std::string sig = kEntrySignature.str();
  sig.replace(sig.find("ARG"), 3, consumed ? "consumed" : "readonly");
  return sig;
}

/// Merge mode; returns the reason when it does not apply.
Expected<std::string> merge(ArrayRef<ParsedSpec> specs,
                            std::vector<std::string> &notes) {
  StringSet<> used;
  StringSet<> otherSymbols;
  std::string hoisted;
  SmallVector<std::pair<std::string, std::string>> pairs;
  bool consumed = false;
  std::optional<bool> restrictRoot, flattenResults;
  for (const ParsedSpec &spec : specs) {
    const TextFile &file = *spec.file;
    const OpNode *kernelConfig = nullptr;
    StringSet<> own;
    for (const OpNode &op : bodyOf(*spec.module)) {
      std::optional<std::string> sym = file.symbolName(op);
      if (op.name == "transform.named_sequence") {
        if (sym && *sym == kKernelConfig)
          kernelConfig = &op;
        else if (sym)
          own.insert(*sym);
        continue;
      }
      if (sym && !isModule(op) && !otherSymbols.insert(*sym).second)
        return makeError("symbol @" + *sym + " of " + spec.input->name +
                         " clashes with another spec's symbol");
    }
    if (!kernelConfig)
      return makeError(spec.input->name + " has no @__kernel_config");
    SmallVector<const OpNode *> matches;
    for (const OpNode &op : bodyOf(*kernelConfig))
      if (op.name == "transform.foreach_match")
        matches.push_back(&op);
    if (matches.size() != 1)
      return makeError("expected 1 foreach_match in @__kernel_config of " +
                       spec.input->name + ", found " +
                       Twine(matches.size()));
    ForeachMatch fm = readForeachMatch(file, *matches.front());
    if (fm.operandTypes.size() != 1 || fm.operandTypes[0] != kAnyOp ||
        fm.resultTypes.size() != 1 || fm.resultTypes[0] != kAnyOp)
      return makeError("the foreach_match of " + spec.input->name +
                       " does not take and return one !transform.any_op");
    if ((restrictRoot && *restrictRoot != fm.restrictRoot) ||
        (flattenResults && *flattenResults != fm.flattenResults))
      return makeError("mismatched restrict_root/flatten_results in " +
                       spec.input->name);
    restrictRoot = fm.restrictRoot;
    flattenResults = fm.flattenResults;
    NamedSequence entry = readNamedSequence(file, *kernelConfig);
    if (!fm.operands.empty())
      for (const SequenceArg &arg : entry.args)
        if (arg.name == fm.operands.front() && arg.consumed())
          consumed = true;

    StringMap<std::string> renames;
    for (const OpNode &op : bodyOf(*spec.module)) {
      std::optional<std::string> sym = file.symbolName(op);
      if (op.name != "transform.named_sequence" || !sym ||
          *sym == kKernelConfig)
        continue;
      std::string name = *sym;
      if (used.contains(name)) {
        for (unsigned k = 0;; ++k) {
          std::string candidate = *sym + "_" + std::to_string(k);
          if (!used.contains(candidate) && !own.contains(candidate)) {
            name = candidate;
            break;
          }
        }
        renames[*sym] = name;
        notes.push_back("renamed @" + *sym + " of " + spec.input->name +
                        " to @" + name);
      }
      used.insert(name);
    }
    for (const OpNode &op : bodyOf(*spec.module)) {
      std::optional<std::string> sym = file.symbolName(op);
      if (op.name != "transform.named_sequence" || !sym ||
          *sym == kKernelConfig)
        continue;
      hoisted += "  " + rewrite(file, op.begin, op.end, renames) + "\n";
    }
    for (auto &[matcher, action] : fm.pairs) {
      auto rn = [&](const std::string &n) {
        auto it = renames.find(n);
        return it == renames.end() ? n : it->second;
      };
      pairs.push_back({rn(matcher), rn(action)});
    }
  }
  std::string out =
      "module attributes {iree_codegen.tuning_spec_with_default_entrypoint, "
      "transform.with_named_sequence} {\n" +
      hoisted;
  out += "  transform.named_sequence @__kernel_config" +
         entrySignature(consumed) + " {\n";
  out += "    %0 = transform.foreach_match ";
  if (restrictRoot && *restrictRoot)
    out += "restrict_root ";
  if (flattenResults && *flattenResults)
    out += "flatten_results ";
  out += "in %arg0\n";
  for (auto [index, pair] : enumerate(pairs))
    out += "        @" + pair.first + " -> @" + pair.second +
           (index + 1 < pairs.size() ? ",\n" : "\n");
  out += "      : (!transform.any_op) -> !transform.any_op\n"
         "    transform.yield %0 : !transform.any_op\n"
         "  }\n}\n";
  return out;
}

std::string sanitizeSymbol(StringRef text) {
  std::string out;
  for (char c : text)
    out += (isAlnum(c) || c == '_') ? c : '_';
  if (out.empty() || isDigit(out[0]))
    out = "spec_" + out;
  return out;
}

Expected<std::string> include(ArrayRef<ParsedSpec> specs,
                              std::vector<std::string> &notes) {
  StringMap<unsigned> counts;
  counts[kKernelConfig] = 1;
  StringSet<> moduleNames;
  std::string nested, chain;
  unsigned numConsumed = 0, numEntries = 0;
  std::string operand = "%arg0";
  unsigned result = 0;
  for (const ParsedSpec &spec : specs) {
    const TextFile &file = *spec.file;
    const OpNode &module = *spec.module;
    std::string moduleName =
        file.symbolName(module).value_or(sanitizeSymbol(spec.input->name));
    for (unsigned k = 1; moduleNames.contains(moduleName); ++k)
      moduleName = moduleName + "_" + std::to_string(k);
    moduleNames.insert(moduleName);
    StringMap<std::string> renames;
    SmallVector<std::string> entries;
    for (const OpNode &op : bodyOf(module)) {
      if (op.name != "transform.named_sequence" ||
          !file.hasAttr(op, kEntrypointAttr))
        continue;
      NamedSequence seq = readNamedSequence(file, op);
      ++numEntries;
      if (!seq.args.empty() && seq.args[0].consumed())
        ++numConsumed;
      unsigned seen = counts[seq.name]++;
      std::string name =
          seen ? seq.name + "_" + std::to_string(seen) : seq.name;
      if (name != seq.name)
        renames[seq.name] = name;
      entries.push_back(name);
    }
    // Module header without the default-entrypoint attribute.
    SmallVector<std::string> attrs;
    const std::vector<Token> &toks = file.tokens();
    size_t open = module.regionBraces.empty() ? module.end
                                              : module.regionBraces[0].first;
    for (size_t i = module.begin; i < open; ++i) {
      if (toks[i].kind == TokKind::Ident && toks[i].text == "attributes" &&
          i + 1 < open && toks[i + 1].text == "{") {
        size_t close = file.matching(i + 1);
        for (auto [b, e] : file.splitTopLevel(i + 2, close)) {
          std::string attr = file.slice(b, e).str();
          if (StringRef(attr).trim() != kDefaultEntrypointAttr)
            attrs.push_back(attr);
        }
        break;
      }
    }
    nested += "  module @" + moduleName;
    if (!attrs.empty())
      nested += " attributes {" + join(attrs, ", ") + "}";
    nested += " {\n";
    if (!module.regionBraces.empty()) {
      auto [rb, re] = module.regionBraces[0];
      if (rb + 1 < re)
        nested += "    " + rewrite(file, rb + 1, re, renames, "  ") + "\n";
    }
    nested += "  }\n";
    for (const std::string &entry : entries) {
      std::string res = "%" + std::to_string(result++);
      chain += "    " + res + " = transform.include @" + moduleName + "::@" +
               entry + " failures(suppress) (" + operand +
               ") : (!transform.any_op) -> !transform.any_op\n";
      operand = res;
    }
  }
  if (numConsumed > 0 && numConsumed != numEntries)
    return makeError("Expected the argument in all tuning specs to be "
                     "consistently readonly or consumed (" +
                     Twine(numConsumed) + " of " + Twine(numEntries) +
                     " entry points consume it); make them agree");
  if (numEntries == 0)
    return makeError("no spec has an entry point marked '" + kEntrypointAttr +
                     "'; nothing to link");
  std::string out = "module attributes {transform.with_named_sequence} {\n" +
                    nested + "  transform.named_sequence @__kernel_config" +
                    entrySignature(numConsumed > 0) + " {\n" + chain +
                    "    transform.yield " + operand +
                    " : !transform.any_op\n  }\n}\n";
  notes.push_back("linked " + std::to_string(specs.size()) +
                  " specs in include mode");
  return out;
}

} // namespace

Expected<LinkResult> linkTuningSpecs(ArrayRef<SpecInput> specs) {
  if (specs.empty())
    return makeError("no tuning specs to link");
  if (specs.size() == 1) {
    if (Error err = verifyTuningSpec(specs[0].text, specs[0].name))
      return std::move(err);
    return LinkResult{specs[0].text, LinkMode::Single, {}};
  }
  std::vector<ParsedSpec> parsed;
  bool allDefault = true;
  for (const SpecInput &input : specs) {
    if (Error err = verifyTuningSpec(input.text, input.name))
      return std::move(err);
    Expected<std::unique_ptr<TextFile>> file =
        TextFile::parse(input.text, input.name);
    if (!file)
      return file.takeError();
    ParsedSpec spec{&input, std::move(*file), nullptr};
    for (const OpNode &op : spec.file->ops())
      if (isModule(op)) {
        spec.module = &op;
        break;
      }
    if (!spec.module)
      return makeError(input.name + ": no spec module to link");
    allDefault &= spec.file->hasAttr(*spec.module, kDefaultEntrypointAttr);
    parsed.push_back(std::move(spec));
  }
  LinkResult result;
  if (allDefault) {
    Expected<std::string> merged = merge(parsed, result.notes);
    if (merged) {
      result.text = std::move(*merged);
      result.mode = LinkMode::Merge;
    } else {
      result.notes.push_back("merge not possible, including instead: " +
                             toString(merged.takeError()));
    }
  }
  if (result.text.empty()) {
    Expected<std::string> included = include(parsed, result.notes);
    if (!included)
      return included.takeError();
    result.text = std::move(*included);
    result.mode = LinkMode::Include;
  }
  if (Error err = verifyTuningSpec(result.text, "<linked spec>"))
    return makeError("the linked spec does not verify (a linker bug): " +
                     toString(std::move(err)));
  return result;
}

Expected<LinkResult> linkTuningSpecFiles(ArrayRef<std::string> paths) {
  std::vector<SpecInput> specs;
  for (const std::string &path : paths) {
    Expected<std::string> text = readFile(path);
    if (!text)
      return text.takeError();
    specs.push_back({path, std::move(*text)});
  }
  return linkTuningSpecs(specs);
}

} // namespace retune::iree::fakes
