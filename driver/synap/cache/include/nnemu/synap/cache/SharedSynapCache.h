// The SyNAP cache as the synap-npu driver uses it at each first-inference JIT. A lookup first
// tries the entry's index file and the hit log (SynapCache::findIndexed: no SQLite at all); when
// they do not serve, a connection to the cache file is opened for the use and closed after it (a
// process running a network from the cache holds no SQLite memory), except in a process that
// stored into it: that one keeps it until exit, which folds what it wrote into the file. Whatever makes the cache unusable (a
// missing or unwritable directory, a full disk, a corrupt or foreign database file) disables
// that file for the rest of the process with one warning; inference goes on without it. A
// damaged entry is dropped with a warning and the network is compiled again.
#pragma once

#include <cstdint>
#include <string>
#include <span>
#include <vector>

#include "nnemu/cache/ProgramImage.h"

namespace nnemu::cache {

struct SynapCacheLocation {
    std::string file;       // host path of the database
    int64_t capacity = 0;   // entries; 0 turns the cache off (no file is created)
    // Missing directories under this one (the emulated board's file system, where the board has
    // /data/vendor/synap) are created; elsewhere the directory must exist. Empty: never create.
    // Below it no symbolic link is followed (see SynapCache::open).
    std::string boardRoot;
};

// True and `program` when `key` has a verified program: mapped from its program file when that
// file checks out (a refused one is removed with a warning), read from the database otherwise.
bool findCompiledProgram(const SynapCacheLocation& location, const std::string& key, uint32_t compilerVersion,
                         ProgramImage* program);
void storeCompiledProgram(const SynapCacheLocation& location, const std::string& key,
                          std::span<const uint8_t> program, uint32_t compilerVersion);
// Records `alias` (a key standing for `key` that is cheaper to compute) as an entry naming the
// program of `key`, when `key` has one.
void aliasCompiledProgram(const SynapCacheLocation& location, const std::string& alias, const std::string& key);
// Drops an entry whose program passed the checksum but that the NPU core refused.
void dropCompiledProgram(const SynapCacheLocation& location, const std::string& key, const std::string& why);

}  // namespace nnemu::cache
