// The SyNAP cache's entry index files: one small file per entry beside the database
// ("<database name>.<key>.entry", mode 0600), which lets a hit find its program file from the key
// without opening SQLite. Fixed size; it holds a magic, its format version, the key, the
// program's identity and size, the compiler version, the entry's seal (the database's, recomputed
// on reading), the identity (device, inode) of the database file it belongs to and the stamp of
// the program file when its bytes were known to be right (ProgramFileStamp.h; format version 2),
// under a CRC-32C. An index of another format version is refused like a damaged one. Written (under a private name, renamed into place) in the write transaction that
// inserts or counts the entry, once its program file exists; removed with the entry (eviction,
// drop, clear, upgrade). The database stays the source of truth: an index that is missing, of
// the wrong size, foreign, damaged, sealed for another key or compiler, or written for another
// database file is not used (the lookup goes through SQLite, which rewrites it); a stale one
// (its entry evicted by a process that could not remove it) still names a program compiled from
// its key, checked like any program file, and is removed at the next fold of the hit log.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "nnemu/base/Status.h"
#include "nnemu/synap/cache/ProgramFileStamp.h"

namespace nnemu::cache {

// The seal binding an entry to its key (SynapCache.h): md5 of key, program identity and compiler version.
std::string entrySeal(const std::string& key, const std::string& program, int64_t compilerVersion);

struct EntryIndex {
    std::string key;
    std::string program;  // identity, 32 hexadecimal digits
    int64_t size = 0;     // program bytes
    uint32_t compilerVersion = 0;
    dev_t databaseDevice = 0;
    ino_t databaseInode = 0;
    ProgramFileStamp programFile;  // empty: its next hit checksums the file
};

// The index file's name for `key`, or "" when the key cannot have one (an index holds keys of
// 1-64 letters, digits, '_' or '-': the driver's md5 keys, and the tests').
std::string entryIndexName(const std::string& databaseName, const std::string& key);

// Reads and checks the index of `key` in directory `dir`: NOT_FOUND when there is none (or the
// key cannot have one), DAMAGED saying why when it is refused. Nothing is removed.
Result<EntryIndex> readEntryIndex(int dir, const std::string& databaseName, const std::string& key,
                                  uint32_t compilerVersion);

// Best effort: writes the index under a private name, then renames it over `key`'s.
bool writeEntryIndex(int dir, const std::string& databaseName, const EntryIndex& index);

void removeEntryIndex(int dir, const std::string& databaseName, const std::string& key);
// Removes every index file of the database `databaseName`.
void removeEntryIndexes(int dir, const std::string& databaseName);

}  // namespace nnemu::cache
