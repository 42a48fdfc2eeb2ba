//===- MlirText.h - A focused reader for MLIR text with foreign dialects -*- C++ -*-===//
//
// IREE's dialects (hal, util, iree_codegen, iree_gpu, transform.iree.*) are not
// in upstream MLIR, so upstream's parser cannot read IREE's dumps or tuning
// specs in their custom form. This reader understands MLIR's lexical structure
// (strings, comments, symbols, SSA names, nested brackets, regions) and splits
// a file into a tree of operation statements without knowing any op's syntax.
// Callers then read the few things they need (an op's name, symbol, attribute
// values, its regions) and hand self-contained pieces (affine maps, types, an
// upstream linalg op) to MLIR's own parser.
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_MLIRTEXT_H
#define RETUNE_IREE_MLIRTEXT_H

#include "stages/support/LLVM.h"

#include "llvm/ADT/StringMap.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace retune::iree {

enum class TokKind {
  Ident,   ///< bare identifier, may contain dots: transform.yield, f16, tensor
  Value,   ///< %name, %name#1, %name:2
  Symbol,  ///< @name or @"name"
  Hash,    ///< #alias or #dialect.attr (the name only; `<...>` follows)
  Bang,    ///< !type or !dialect.type
  Caret,   ///< ^bb0
  String,  ///< "text" including quotes
  Number,  ///< 12, -3, 1.5e3, 0x1F
  Punct,   ///< ( ) [ ] { } < > , : = ? * + - ...
  Arrow,   ///< ->
};

struct Token {
  TokKind kind;
  StringRef text;
  unsigned line;
  /// Byte offset of the token in the source.
  size_t offset;
  /// True when this is the first token on its line.
  bool lineStart;
};

/// One operation statement. `regions` hold the nested statements of each
/// region (all blocks of a region flattened, block labels dropped).
struct OpNode {
  std::string name;
  SmallVector<std::string> results;
  /// Token range [begin, end) of the whole statement, regions included.
  size_t begin = 0, end = 0;
  unsigned line = 0;
  std::vector<std::vector<OpNode>> regions;
  /// Token index of each region's `{` and matching `}`.
  SmallVector<std::pair<size_t, size_t>> regionBraces;
};

/// A parsed file: owns its text, tokens and statement tree.
class TextFile {
public:
  static Expected<std::unique_ptr<TextFile>> parse(StringRef text,
                                                   StringRef fileName);

  StringRef fileName() const { return name; }
  StringRef text() const { return source; }
  const std::vector<Token> &tokens() const { return toks; }
  const std::vector<OpNode> &ops() const { return top; }

  /// Source text from token `b` to the end of token `e - 1`.
  StringRef slice(size_t b, size_t e) const;
  /// Source text of a statement, regions included.
  StringRef opText(const OpNode &op) const { return slice(op.begin, op.end); }
  /// True when token `i` belongs to `op` itself and not to one of its regions.
  bool isOwnToken(const OpNode &op, size_t i) const;
  /// The first `@symbol` of the op (its sym_name for module/func/sequence).
  std::optional<std::string> symbolName(const OpNode &op) const;
  /// Attribute `key` written `key = value` in one of the op's own attribute
  /// dictionaries (or properties): the token range of `value`.
  std::optional<std::pair<size_t, size_t>> attrValue(const OpNode &op,
                                                     StringRef key) const;
  /// True when `key` appears in the op's own tokens as an attribute name
  /// (`key` alone as a unit attribute, or `key = ...`).
  bool hasAttr(const OpNode &op, StringRef key) const;
  /// True when attribute `key` is present without a value (a UnitAttr).
  bool hasUnitAttr(const OpNode &op, StringRef key) const;
  /// Index of the bracket matching the opener at `i`.
  size_t matching(size_t i) const;
  /// Splits the token range [b, e) at top-level commas.
  SmallVector<std::pair<size_t, size_t>> splitTopLevel(size_t b, size_t e,
                                                       StringRef sep = ",") const;
  /// "file:line: message".
  std::string where(unsigned line) const;
  /// Walks every statement, pre-order.
  void walk(const std::function<void(const OpNode &)> &fn) const;

private:
  std::string name;
  std::string source;
  std::vector<Token> toks;
  std::vector<OpNode> top;
  std::vector<size_t> match;
};

/// Walks `ops` and their regions, pre-order.
void walkOps(const std::vector<OpNode> &ops,
             const std::function<void(const OpNode &)> &fn);

/// Splits a file at `// -----` lines (lit's --split-input-file), keeping line
/// numbers: every chunk is padded with the newlines that preceded it.
std::vector<std::string> splitInputFile(StringRef text);

} // namespace retune::iree

#endif // RETUNE_IREE_MLIRTEXT_H
