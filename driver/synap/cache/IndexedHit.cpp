// A SyNAP cache hit without SQLite (SynapCache::findIndexed): the entry index names the program
// file (and the stamp it had when its bytes were known to be right: then it is not checksummed
// again), the hit goes into the hit log.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include "CacheFile.h"
#include "EntryIndex.h"
#include "HitLog.h"
#include "ProgramFiles.h"
#include "nnemu/base/Trace.h"
#include "nnemu/synap/cache/SynapCache.h"

namespace nnemu::cache {

Status SynapCache::findIndexed(const std::string& file, const std::string& root, const std::string& key,
                               uint32_t compilerVersion, ProgramImage* program, bool* foldDue,
                               ProgramFileStamp* recheck) {
    *foldDue = false;
    if (recheck != nullptr) *recheck = {};
    CacheDirectory directory;
    NNEMU_RETURN_IF_ERROR(directory.open(root, file, CacheDirectory::Path::kNone));
    const int dir = directory.fd();
    // The database the index was written for, still in place (never followed).
    struct stat database {};
    if (fstatat(dir, directory.name().c_str(), &database, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(database.st_mode)) {
        return Status(StatusCode::NOT_FOUND, {});
    }
    NNEMU_ASSIGN_OR_RETURN(const EntryIndex index, readEntryIndex(dir, directory.name(), key, compilerVersion));
    if (index.databaseDevice != database.st_dev || index.databaseInode != database.st_ino) {
        return Status(StatusCode::DAMAGED, "the entry index of " + key + " was written for another database file");
    }
    ProgramFileStamp verified;
    {
        trace::Span mapping("map program file", "cache");
        NNEMU_ASSIGN_OR_RETURN(*program, mapProgramFile(dir, programFileName(directory.name(), index.program), index.size,
                                                        index.program, false, index.programFile, &verified));
    }
    // Counted only where the cache can be written, as a hit through the database is (its
    // directory and file writable); a read-only cache gets no log, and records no stamp.
    if (faccessat(dir, ".", W_OK, AT_EACCESS) == 0 &&
        faccessat(dir, directory.name().c_str(), W_OK, AT_EACCESS | AT_SYMLINK_NOFOLLOW) == 0) {
        if (recheck != nullptr && verified != index.programFile) *recheck = verified;
        trace::Span hit("log hit", "cache");
        const int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
        if (Result<uint64_t> records = appendHit(dir, directory.name(), key, now); records.isOk()) {
            *foldDue = *records >= kHitLogFoldRecords;
        }
    }
    return {};
}

}  // namespace nnemu::cache
