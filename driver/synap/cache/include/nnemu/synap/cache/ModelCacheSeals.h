// The seals (nnemu/cache/ModelCacheFile.h: stamp and header checksum) of the NNAPI model cache
// files synap-npu knows to be right, kept on the driver's side since the application's file
// cannot hold them (any write changes its times): one small file per cache file in the SyNAP
// cache database's directory, reached by the same no-symlink walk (CacheFile.h), named
// `<database>.<device>-<inode>.nnapi` (hexadecimal) after the cache file it seals. A seal is
// recorded when the driver has written the cache file, or has checksummed in full a file whose
// times are settled; a prepare-from-cache that finds its file still so sealed skips the payload's
// checksum. Every failure here (no directory, read-only, a damaged, foreign or linked seal file)
// only means no seal: the file is checksummed as without one.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <string>

#include "nnemu/cache/ModelCacheFile.h"

namespace nnemu::cache {

// Seal files kept beside one database; recording one more removes the least recently written.
inline constexpr size_t kMaxModelCacheSeals = 64;

// The seal recorded for the cache file whose status is `file`, beside the SyNAP cache database
// `databaseFile` (below `root` nothing is followed), or an empty one.
ModelCacheSeal recordedModelCacheSeal(const std::string& databaseFile, const std::string& root, const struct stat& file);

// Records `seal` there (best effort, written whole under a private name then renamed).
void recordModelCacheSeal(const std::string& databaseFile, const std::string& root, const ModelCacheSeal& seal);

// The name of the seal file of the cache file (device, inode) beside the database `databaseName`.
std::string modelCacheSealName(const std::string& databaseName, uint64_t device, uint64_t inode);

// Removes every seal file of directory `dir` beside the database `databaseName`.
void removeModelCacheSeals(int dir, const std::string& databaseName);

}  // namespace nnemu::cache
