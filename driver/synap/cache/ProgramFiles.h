// The SyNAP cache's program files: each stored program also lives, whole, in a file next to the
// database named after its identity (SynapCache.h; "<database name>.<identity>.npu", mode 0600 like the database: the
// weights are private), written when the program is stored (or by a hit that finds none) and mapped by
// the hits instead of reassembling the program's chunks from SQLite. The program starts the file (page-aligned
// once mapped); a trailer follows: magic, the program's size, its identity (as the database names it)
// and its lane CRC-32Cs (Crc32c.h, checked at each mapping: ~15 times faster than SHA-256 with
// the SHA extensions, which version 1 used).
// The database stays the source of truth: a program file is used only when the database names
// its identity, after checking that it is a regular file (never followed through a symbolic link)
// whose size, trailer and checksum agree with it. Anything else is refused and removed; the
// program then comes from the database and the file is written again. A hit through an entry
// index whose recorded stamp (ProgramFileStamp.h) the file still has skips the checksum.
//
// A file is never modified in place once linked (a new version is a new file under a private
// name, linked over nothing), and eviction or clearing only unlinks it, which leaves running
// processes their mapping. What a mapping cannot survive is someone else truncating the file
// while a process runs from it (the kernel then raises SIGBUS): the files are private (0600) in
// the driver's own directory, so only the same user bypassing the cache can do that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "nnemu/cache/ProgramImage.h"
#include "nnemu/synap/cache/ProgramFileStamp.h"

namespace nnemu::cache {

constexpr size_t kProgramFileTrailerSize = 64;

std::string programFileName(const std::string& databaseName, const std::string& programMd5);

// Maps the program file `name` of directory `dir` if it holds exactly the program: `size` bytes
// with md5 `programMd5`. NOT_FOUND when there is none; DAMAGED saying why when it is refused (the
// file has then been removed, unless `removeRefused` is false). A file whose stamp is exactly
// `known` (non-empty: an entry index's) has its size and trailer checked, not its checksum
// (counted in cacheCounters().programFileChecksums when it is). `verified` receives the stamp
// an index may record: the file's when it matched `known` or was checksummed in full and is
// settled, else an empty one.
Result<ProgramImage> mapProgramFile(int dir, const std::string& name, int64_t size, const std::string& programMd5,
                                    bool removeRefused = true, const ProgramFileStamp& known = {},
                                    ProgramFileStamp* verified = nullptr);

// Best effort: written under a private name, then linked into place; nothing is done when the
// name exists. Answers the stamp of the file it linked (empty when it linked none): an index may
// record it at once, settled or not, since only someone bypassing the cache writes a linked
// program file (the driver never does), as only someone bypassing it can truncate one.
ProgramFileStamp writeProgramFile(int dir, const std::string& name, std::span<const uint8_t> bytes,
                                  const std::string& programMd5);

// The stamp of the regular file `name` of `dir` (never followed), or an empty one.
ProgramFileStamp programFileStamp(int dir, const std::string& name);

// Removes the program files of the database `databaseName` (every one when `programMd5` is empty).
void removeProgramFiles(int dir, const std::string& databaseName, const std::string& programMd5 = {});

}  // namespace nnemu::cache
