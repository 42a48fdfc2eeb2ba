//===- HashedFile.cpp - Outputs that carry their own hash -----------------===//
#include "stages/support/HashedFile.h"

#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace retune {
namespace {

/// The hash line stored beside a file: 32 bytes of BLAKE3, in hex.
std::string hashLine(StringRef bytes) { return blake3Hex(bytes, 32) + "\n"; }

} // namespace

std::string hashPathOf(StringRef path) {
  SmallString<256> hashPath = sys::path::parent_path(path);
  sys::path::append(hashPath, "." + sys::path::filename(path) + ".blake3");
  return hashPath.str().str();
}

Error writeHashedFile(StringRef path, StringRef bytes, bool *changed) {
  if (Error err = writeFileIfChanged(path, bytes, changed))
    return err;
  return writeFileIfChanged(hashPathOf(path), hashLine(bytes));
}

std::string verifyHashedFile(StringRef path) {
  Expected<std::string> bytes = readFile(path);
  if (!bytes) {
    consumeError(bytes.takeError());
    return "is missing";
  }
  if (!sys::fs::exists(hashPathOf(path))) {
    if (Error err = writeFileIfChanged(hashPathOf(path), hashLine(*bytes)))
      return toString(std::move(err));
    return "";
  }
  Expected<std::string> hash = readFile(hashPathOf(path));
  if (!hash) {
    consumeError(hash.takeError());
    return "has an unreadable hash";
  }
  if (*hash != hashLine(*bytes))
    return "does not match the hash its step wrote";
  return "";
}

void removeHashedFile(StringRef path) {
  sys::fs::remove(path);
  sys::fs::remove(hashPathOf(path));
}

bool isDamagedInput(StringRef path, StringRef tool) {
  std::string problem;
  if (!sys::fs::exists(path))
    problem = "is missing";
  else if (sys::fs::exists(hashPathOf(path)))
    problem = verifyHashedFile(path);
  if (problem.empty())
    return false;
  errs() << tool << ": note: " << path << " " << problem
         << "; skipped: this build redoes the step that writes it first\n";
  return true;
}

} // namespace retune
