//===- SpecLinker.h - Many specs -> one foreach_match -----------*- C++ -*-===//
#ifndef RETUNE_LINK_SPECLINKER_H
#define RETUNE_LINK_SPECLINKER_H

#include "stages/support/LLVM.h"

#include <string>
#include <vector>

namespace retune::link {

/// Links the specs at `specPaths` into one spec module: every named sequence
/// other than a spec's `@__retune_config` is copied (a name already taken
/// gets the first free numeric suffix, `_1`, `_2`, ..., and that spec's own
/// references follow), and one `@__retune_config` runs all (matcher, action)
/// pairs in file order, so the first matcher wins. The result is parsed and
/// verified before it is returned. No specs give a pass-through entry.
Expected<std::string> linkSpecs(const std::vector<std::string> &specPaths,
                                StringRef headerComment = {});

} // namespace retune::link

#endif // RETUNE_LINK_SPECLINKER_H
