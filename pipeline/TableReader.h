//===- TableReader.h - One tune.toml table, key by key ----------*- C++ -*-===//
//
// Every tune.toml table is read through a TableReader: each key is claimed by
// a field, checked against its type and range, and its line remembered for
// later messages (TuneConfig::where); a key no field claimed is an error
// naming its line and the known keys. Config.cpp reads the shared tables, a
// backend its own (Backend::readTable).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_PIPELINE_TABLEREADER_H
#define RETUNE_PIPELINE_TABLEREADER_H

#include "stages/support/LLVM.h"

#include <map>
#include <optional>
#include <string>
#include <toml++/toml.h>
#include <vector>

namespace retune::pipeline {

/// A name from tune.toml as messages show it: long ones are cut, so that a
/// huge key does not flood the terminal.
std::string abbreviate(llvm::StringRef name);

/// Reads one table's keys; every key must be claimed by a field.
class TableReader {
public:
  TableReader(llvm::StringRef file, llvm::StringRef tableName,
              const toml::table &table,
              std::map<std::string, unsigned> &keyLines)
      : file(file), tableName(tableName), table(table), keyLines(keyLines) {}

  Error unsignedKey(llvm::StringRef key, unsigned &out, int64_t min,
                    int64_t max);
  /// A duration: "90s", "30m", "2h", "1h30m" or "0" (none).
  Error durationKey(llvm::StringRef key, double &out);
  Error realKey(llvm::StringRef key, double &out, double min, double max);
  Error boolKey(llvm::StringRef key, bool &out);
  /// A non-empty one-line string, one of `allowed` when that is not empty.
  Error stringKey(llvm::StringRef key, std::string &out,
                  llvm::ArrayRef<llvm::StringRef> allowed = {});
  /// An array of strings; `nonEmpty` also rejects `[]`.
  Error stringListKey(llvm::StringRef key, std::vector<std::string> &out,
                      bool nonEmpty = false);
  /// An array of arrays of strings (e.g. flag sets); `[]` is allowed.
  Error
  stringListsKey(llvm::StringRef key,
                 std::optional<std::vector<std::vector<std::string>>> &out);
  /// Errors for the first key no field claimed.
  Error rejectUnknown();

private:
  /// The node of `key` (claimed, and its line remembered), or null.
  const toml::node *find(llvm::StringRef key);
  Error bad(const toml::node &node, llvm::StringRef key,
            llvm::StringRef expected);

  std::string file, tableName;
  const toml::table &table;
  std::map<std::string, unsigned> &keyLines;
  std::vector<std::string> claimed;
};

} // namespace retune::pipeline

#endif // RETUNE_PIPELINE_TABLEREADER_H
