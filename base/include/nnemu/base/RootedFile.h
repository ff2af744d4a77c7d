// The device root is a trust boundary: files the emulated board owns (statistics, caches,
// property files, their locks) are opened by walking from the root one component at a time with
// O_NOFOLLOW, so a symlink planted anywhere below the root (the final name included) is refused
// instead of redirecting a write to a file outside it. The root itself and the path above it are
// the user's choice and resolve normally.
#pragma once

#include <sys/types.h>

#include <string>

#include "nnemu/base/Status.h"

namespace nnemu::base {

// Opens `path`, which must lie inside `root` (both absolute, as devicePath() builds them). `flags`
// are open(2) flags (O_NOFOLLOW and O_CLOEXEC are added). With `makeParents`, missing directories
// between the root and the file are created with mode 0755, and so is a root that does not exist
// yet (with its missing parents, resolved normally: that path is the user's choice). Returns the descriptor, or
// UNAVAILABLE saying which component was refused and why, with errno set.
Result<int> openInsideRoot(const std::string& root, const std::string& path, int flags, mode_t mode, bool makeParents);

// Creates `directory` (inside `root`) and its missing parents, refusing symlinked components
// below the root; a missing root is created first, as openInsideRoot does.
Status makeDirectoriesInsideRoot(const std::string& root, const std::string& directory);

}  // namespace nnemu::base
