// One property file: the `key=value` line format and reading a file with the identity of what
// was read (for change detection).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nnemu/base/Status.h"

namespace nnemu::props {

struct PropertyLine {
    enum class Kind { kBlankOrComment, kEntry, kMalformed };
    Kind kind = Kind::kBlankOrComment;
    std::string name;     // kEntry
    std::string value;    // kEntry; empty means "unset" (it still overrides earlier files)
    std::string problem;  // kMalformed: why the line is skipped
};

PropertyLine parsePropertyLine(std::string_view line);

// The entries of a file's text in order (later duplicates win when applied). Each malformed line
// adds one message "<fileLabel>:<line>: ..." to `problems`.
std::vector<std::pair<std::string, std::string>> parsePropertyText(std::string_view text, std::string_view fileLabel,
                                                                   std::vector<std::string>* problems);

// What identifies one version of a file cheaply: a rename gives a new inode, an edit in place a
// new size or mtime. `exists` is false for a missing file.
struct FileSignature {
    bool exists = false;
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
    int64_t mtimeNs = 0;
    int64_t ctimeNs = 0;
    bool operator==(const FileSignature&) const = default;
};

// Of the name itself (lstat): a symlink is a file of its own, never its target.
FileSignature statSignature(const std::string& path);

// No real property file comes near this; a larger one is refused whole rather than read at every
// change.
inline constexpr off_t kMaxPropertyFileSize = off_t{1} << 20;

// Reads an open property file whole. Only a regular file of at most kMaxPropertyFileSize bytes
// that is not a /proc or /sys pseudo-file is read; anything else is an error naming `label`. The
// signature comes from the descriptor, so it describes exactly the text returned.
struct PropertyFileText {
    std::string text;
    FileSignature signature;
};
Result<PropertyFileText> readPropertyDescriptor(int fd, const std::string& label);

// Reads the property file `path` inside the device root `root`, refusing a symlink anywhere below
// the root and never blocking (a FIFO is refused, not waited on). A missing file is not an error
// (empty text, exists=false).
Result<PropertyFileText> readPropertyFile(const std::string& root, const std::string& path);

}  // namespace nnemu::props
