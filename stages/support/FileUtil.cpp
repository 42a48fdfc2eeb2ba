//===- FileUtil.cpp - Atomic, write-if-changed file output ----------------===//
#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/time.h>

using namespace llvm;

namespace retune {

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

Expected<std::string> readFile(StringRef path) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError(path + ": cannot read: " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

Error createParentDirs(StringRef path) {
  StringRef parent = sys::path::parent_path(path);
  if (parent.empty())
    return Error::success();
  if (std::error_code ec = sys::fs::create_directories(parent))
    return makeError(parent + ": cannot create directory: " + ec.message());
  return Error::success();
}

Error writeFileAtomic(StringRef path, StringRef bytes) {
  if (Error err = createParentDirs(path))
    return err;
  // The temp file lives beside the target so that rename() stays atomic.
  SmallString<256> tempPath;
  int fd = -1;
  if (std::error_code ec = sys::fs::createUniqueFile(path + ".tmp-%%%%%%", fd,
                                                     tempPath))
    return makeError(path + ": cannot create temp file: " + ec.message());
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << bytes;
    os.flush();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      sys::fs::remove(tempPath);
      return makeError(path + ": write failed: " + message);
    }
  }
  if (std::error_code ec = sys::fs::rename(tempPath, path)) {
    sys::fs::remove(tempPath);
    return makeError(path + ": cannot rename into place: " + ec.message());
  }
  return Error::success();
}

Error writeFileIfChanged(StringRef path, StringRef bytes, bool *changed) {
  if (changed)
    *changed = false;
  if (auto existing = MemoryBuffer::getFile(path, false, false))
    if ((*existing)->getBuffer() == bytes)
      return Error::success();
  if (changed)
    *changed = true;
  return writeFileAtomic(path, bytes);
}

Expected<std::vector<std::string>> listFiles(StringRef dir, StringRef suffix) {
  std::vector<std::string> files;
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (StringRef(it->path()).ends_with(suffix))
      files.push_back(it->path());
  if (ec)
    return makeError("cannot list " + dir + ": " + ec.message());
  llvm::sort(files);
  return files;
}

void removeNumberedFiles(StringRef dir, StringRef suffix, unsigned keep) {
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    unsigned index = 0;
    if (!name.consume_back(suffix) || name.getAsInteger(10, index))
      continue;
    if (index >= keep)
      sys::fs::remove(it->path());
  }
}

void keepNewerThanInputs(StringRef output, ArrayRef<std::string> inputs) {
  sys::fs::file_status out;
  if (sys::fs::status(output, out))
    return;
  for (const std::string &input : inputs) {
    sys::fs::file_status in;
    if (!sys::fs::status(input, in) &&
        in.getLastModificationTime() > out.getLastModificationTime()) {
      ::utimes(output.str().c_str(), nullptr);
      return;
    }
  }
}

} // namespace retune
