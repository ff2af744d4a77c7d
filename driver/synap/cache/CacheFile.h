// The SyNAP cache database as a file: found without following symbolic links below the device
// root, recognised by its SQLite header alone (read, never written) before SQLite opens it, born
// complete under its name (built under a private name, then linked into place), and removed only
// when it is recognisably ours.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>

#include "nnemu/base/Status.h"
#include "nnemu/cache/Crc32c.h"

namespace nnemu::cache {

class SqliteDatabase;

// PRAGMA application_id marks the file as ours ("NNSC"); user_version is the schema version
// (3: programs named by the md5 of their chunks' md5s; 2: by the md5 of their bytes).
inline constexpr int64_t kApplicationId = 0x4E4E5343;
inline constexpr int64_t kSchemaVersion = 3;

// The cache's small fixed-size record files (entry indexes, hit log records, NNAPI cache seals)
// end in `uint32_t crc32c[4]`, the lane CRC-32C of every byte before it.
template <typename Record>
void sealRecord(Record& record) {
    const LaneCrcs crc = laneCrc32c({reinterpret_cast<const uint8_t*>(&record), offsetof(Record, crc32c)});
    std::memcpy(record.crc32c, crc.data(), sizeof record.crc32c);
}
template <typename Record>
bool recordSealed(const Record& record) {
    const LaneCrcs crc = laneCrc32c({reinterpret_cast<const uint8_t*>(&record), offsetof(Record, crc32c)});
    return std::memcmp(crc.data(), record.crc32c, sizeof record.crc32c) == 0;
}

// The directory holding the cache file, open; closed on destruction.
class CacheDirectory {
public:
    CacheDirectory() = default;
    ~CacheDirectory();
    CacheDirectory(const CacheDirectory&) = delete;
    CacheDirectory& operator=(const CacheDirectory&) = delete;

    // Below a non-empty `root` the directory is reached by an O_NOFOLLOW walk from the root;
    // elsewhere (or without a root) it resolves normally. The file name itself is never followed.
    // With Path::kNone, pathOf() is not available: the directory's path is read back from
    // /proc/self/fd, which costs 40-70 us the first time in a process, and users of fd() and
    // name() alone (a hit through the entry index, the model cache seals) need none.
    enum class Path { kResolved, kNone };
    Status open(const std::string& root, const std::string& file, Path path = Path::kResolved);

    int fd() const { return fd_; }
    const std::string& name() const { return name_; }
    // A path of `name` in this directory with no symbolic link anywhere, for SQLite to open with
    // SQLITE_OPEN_NOFOLLOW. Not after open() with Path::kNone.
    std::string pathOf(const std::string& name) const { return path_ + "/" + name; }

private:
    int fd_ = -1;
    std::string path_;
    std::string name_;
};

struct CacheFileHeader {
    enum class Kind { MISSING, SYNAP_CACHE, NOT_A_CACHE, UNREADABLE };
    Kind kind = Kind::MISSING;
    std::string why;  // for NOT_A_CACHE and UNREADABLE
    int64_t schemaVersion = 0;
    bool wal = false;  // the header says WAL journal
    dev_t device = 0;
    ino_t inode = 0;
};

// Reads the first 100 bytes of the file `directory` names, nothing more.
CacheFileHeader inspectCacheFile(const CacheDirectory& directory);

// Whether the directory still names the file `header` was read from.
bool stillNames(const CacheDirectory& directory, const CacheFileHeader& header);

// Creates the cache file if nothing has its name: a new database (mode 0600) under a private
// name is given its schema by `initialize`, switched to WAL, closed, then linked into place. If
// another process got there first, its file stays and this one is discarded (OK either way).
Status createCacheFile(const CacheDirectory& directory, const std::function<bool(SqliteDatabase&)>& initialize);

// Why the file system holding the directory `dirfd` refuses writes, when it does as a whole: a
// read-only mount ("Read-only file system") or no space left ("No space left on device"); "" when
// neither (the cause of a failed write SQLite could not name is looked up here).
std::string fileSystemRefusal(int dirfd);

// Deletes the file and its WAL companions, but only if its header marks it as a SyNAP cache.
Status removeCacheFile(const CacheDirectory& directory);

// The files beside the database (program files, entry indexes): every byte written, retrying
// interrupted and short writes; and removing those of directory `dir` whose name `matches`.
bool writeAll(int fd, std::span<const uint8_t> bytes);
// Gives the file `name` of `dir` exactly `bytes`, written under a private name of this process
// and renamed into place (which replaces whatever has the name, a link itself, never its
// target), so no reader sees it half written. False when it could not (nothing is left behind).
bool replaceFile(int dir, const std::string& name, std::span<const uint8_t> bytes);
void removeFilesMatching(int dir, const std::function<bool(const std::string&)>& matches);

}  // namespace nnemu::cache
