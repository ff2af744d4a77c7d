// Opening, creating, upgrading and removing the SyNAP cache file (see CacheFile.h for the file
// system side): nothing is written before the header says the file is ours.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "CacheFile.h"
#include "nnemu/synap/cache/ModelCacheSeals.h"
#include "EntryIndex.h"
#include "HitLog.h"
#include "ProgramFiles.h"
#include "nnemu/cache/SqliteDatabase.h"
#include "nnemu/synap/cache/SynapCache.h"

namespace nnemu::cache {
namespace {

constexpr int kBusyTimeoutMs = 10000;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS entries(
  key TEXT PRIMARY KEY,           -- digest of what the program was compiled from (ModelKey.h)
  program TEXT NOT NULL,          -- the program's identity (programs.md5)
  seal TEXT NOT NULL,             -- md5 of key, program and compiler version (see entrySeal)
  created INTEGER NOT NULL,       -- microseconds since the epoch
  last_use INTEGER NOT NULL,      -- likewise, and strictly increasing: the LRU order
  hits INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS entries_by_last_use ON entries(last_use);
CREATE INDEX IF NOT EXISTS entries_by_program ON entries(program);
CREATE TABLE IF NOT EXISTS programs(
  md5 TEXT PRIMARY KEY,           -- identity: md5 of size and chunk md5s (programIdentity)
  size INTEGER NOT NULL,
  compiler_version INTEGER NOT NULL,
  chunk_count INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS program_chunks(
  program TEXT NOT NULL,
  position INTEGER NOT NULL,
  chunk TEXT NOT NULL,            -- chunks.md5
  PRIMARY KEY(program, position)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS program_chunks_by_chunk ON program_chunks(chunk);
CREATE TABLE IF NOT EXISTS chunks(
  md5 TEXT PRIMARY KEY,           -- checksum of data
  size INTEGER NOT NULL,
  data BLOB NOT NULL);
)sql";

// Every table and column the cache uses: preparing these fails on a damaged schema.
constexpr const char* kSchemaProbes[] = {
        "SELECT key, program, seal, created, last_use, hits FROM entries LIMIT 0",
        "SELECT md5, size, compiler_version, chunk_count FROM programs LIMIT 0",
        "SELECT program, position, chunk FROM program_chunks LIMIT 0",
        "SELECT md5, size, data FROM chunks LIMIT 0",
};

std::string versionMismatch(int64_t version) {
    return "the cache has schema version " + std::to_string(version) + "; this build reads version " +
           std::to_string(kSchemaVersion);
}

// The schema and marks of a new file (still under its private name). 16 KiB pages hold a
// typical 8 KiB chunk without overflow pages.
bool initializeNewFile(SqliteDatabase& db) {
    if (!db.execute("PRAGMA page_size=16384")) return false;
    SqliteTransaction write(db, SqliteTransaction::Kind::WRITE);
    const std::string marks = "PRAGMA application_id=" + std::to_string(kApplicationId) +
                              "; PRAGMA user_version=" + std::to_string(kSchemaVersion) + ";";
    return write.active() && db.execute(kSchema) && db.execute(marks) && write.commit();
}

// Why nothing can be written to the cache (its directory, for the WAL files and program files,
// or the file itself): the system's cause, or "" when both are writable.
std::string whyUnwritable(const CacheDirectory& directory, bool fileExists) {
    if (faccessat(directory.fd(), ".", W_OK, AT_EACCESS) != 0 ||
        (fileExists && faccessat(directory.fd(), directory.name().c_str(), W_OK, AT_EACCESS | AT_SYMLINK_NOFOLLOW) != 0)) {
        return std::strerror(errno);
    }
    return {};
}

}  // namespace

Result<std::unique_ptr<SynapCache>> SynapCache::open(const std::string& file, bool create, const std::string& root) {
    CacheDirectory directory;
    NNEMU_RETURN_IF_ERROR(directory.open(root, file));
    CacheFileHeader header = inspectCacheFile(directory);
    std::string readOnly = whyUnwritable(directory, header.kind != CacheFileHeader::Kind::MISSING);
    if (header.kind == CacheFileHeader::Kind::MISSING && create) {
        if (!readOnly.empty()) return unavailable("cannot create it: " + readOnly);
        NNEMU_RETURN_IF_ERROR(createCacheFile(directory, initializeNewFile));
        header = inspectCacheFile(directory);
    }
    if (header.kind == CacheFileHeader::Kind::MISSING) return Status(StatusCode::NOT_FOUND, "no cache database at " + file);
    if (header.kind != CacheFileHeader::Kind::SYNAP_CACHE) return unavailable(header.why);
    if (header.schemaVersion > kSchemaVersion) return unavailable(versionMismatch(header.schemaVersion));
    // One attempt to open the database: read-write, or read-only when `readOnly` names why it
    // cannot be written. `refused`: it failed because the system refused a write.
    auto attempt = [&](const std::string& readOnly, bool* refused) -> Result<std::unique_ptr<SynapCache>> {
        *refused = false;
        std::unique_ptr<SynapCache> cache(new SynapCache());
        cache->file_ = file;
        cache->readOnly_ = readOnly;
        SqliteDatabase& db = *cache->db_;
        auto failed = [&](const std::string& why) -> Status {
            const bool damage = db.error().damage() || why.find("damaged") != std::string::npos;
            *refused = !damage && !db.error().writeRefusal().empty();
            // Read without locks (immutable), a file another process is checkpointing into may look
            // damaged, and nothing read-only could be cleared anyway: no advice then.
            return {damage && readOnly.empty() ? StatusCode::DAMAGED : StatusCode::UNAVAILABLE, why};
        };
        if (!db.open(directory.pathOf(directory.name()), kBusyTimeoutMs, !readOnly.empty())) {
            return failed(db.error().message);
        }
        // A connection lives for one lookup, or until exit in a process that stored
        // (SharedSynapCache.h): keep few clean pages (a warm start reads a handful; the pages stay
        // in the OS's cache, shared), but let a program's store keep up to 16 MiB of dirty pages
        // before spilling them to the WAL, as the open's cache allowed. The release drops the
        // 20-page block SQLite allocated for the open's larger cache.
        if (!db.execute("PRAGMA cache_size=-64; PRAGMA cache_spill=1024")) return failed(db.error().message);
        sqlite3_db_release_memory(db.handle());
        if (!stillNames(directory, header)) return unavailable("the file was replaced while it was being opened");
        if (readOnly.empty() && sqlite3_db_readonly(db.handle(), "main") == 1) {
            return unavailable("the database is not writable");
        }
        // Ours but not in WAL mode (e.g. rewritten by a tool): switch, waiting out readers.
        if (readOnly.empty() && !header.wal && !db.switchToWal(kBusyTimeoutMs)) return failed(db.error().message);
        // The program files live beside the database, reached through the same checked directory.
        cache->directory_ = fcntl(directory.fd(), F_DUPFD_CLOEXEC, 0);
        cache->name_ = directory.name();
        cache->databaseDevice_ = header.device;
        cache->databaseInode_ = header.inode;
        if (const Status schema = cache->checkSchema(); !schema) return failed(schema.message());
        return cache;
    };
    bool refused = false;
    Result<std::unique_ptr<SynapCache>> cache = attempt(readOnly, &refused);
    // Writable by its modes, yet the system refuses to write (a full disk: SQLite cannot make its
    // WAL index, or a read-only mount faccessat did not see): read it as it is.
    if (!cache.isOk() && refused && readOnly.empty()) {
        const std::string cause = fileSystemRefusal(directory.fd());
        cache = attempt(cause.empty() ? cache.message() : cause, &refused);
    }
    return cache;
}

Status SynapCache::checkSchema() {
    int64_t version = 0;
    if (!db_->integer("PRAGMA user_version", &version)) return unavailable(db_->error().message);
    if (version > kSchemaVersion) return unavailable(versionMismatch(version));
    if (version < kSchemaVersion && !readOnly_.empty()) {
        return unavailable("the cache has schema version " + std::to_string(version) +
                           " and cannot be upgraded: " + readOnly_);
    }
    if (version < kSchemaVersion) NNEMU_RETURN_IF_ERROR(upgrade());
    for (const char* probe : kSchemaProbes) {
        if (!db_->prepare(probe).valid()) return unavailable("the cache's schema is damaged: " + db_->error().message);
    }
    return {};
}

// Version 1 entries carry no seal, so nothing in them can be trusted to belong to its key;
// version 2 names programs by the md5 of their bytes, which this build does not check. Either
// cache is emptied (every network compiles once more, its program files go) and given the
// current schema; the file itself stays.
Status SynapCache::upgrade() {
    SqliteTransaction write(*db_, SqliteTransaction::Kind::WRITE);
    int64_t version = 0;
    if (!write.active() || !db_->integer("PRAGMA user_version", &version)) return unavailable(db_->error().message);
    if (version == kSchemaVersion) return {};  // another process upgraded it meanwhile
    if (version != 1 && version != 2) {
        return unavailable(version < 1 ? "the cache has no schema version; it is damaged" : versionMismatch(version));
    }
    const std::string empty =
            "DROP TABLE IF EXISTS entries; DELETE FROM program_chunks; DELETE FROM programs; DELETE FROM chunks;";
    if (!db_->execute(empty) || !db_->execute(kSchema) ||
        !db_->execute("PRAGMA user_version=" + std::to_string(kSchemaVersion)) || !write.commit()) {
        return unavailable("cannot upgrade the cache from schema version " + std::to_string(version) + ": " +
                           db_->error().message);
    }
    if (directory_ >= 0) {
        removeEntryIndexes(directory_, name_);
        removeProgramFiles(directory_, name_);
    }
    return {};
}

Status SynapCache::removeFile(const std::string& file, const std::string& root) {
    CacheDirectory directory;
    NNEMU_RETURN_IF_ERROR(directory.open(root, file));
    NNEMU_RETURN_IF_ERROR(removeCacheFile(directory));
    removeEntryIndexes(directory.fd(), directory.name());
    removeHitLog(directory.fd(), directory.name());
    removeProgramFiles(directory.fd(), directory.name());
    removeModelCacheSeals(directory.fd(), directory.name());
    return {};
}

}  // namespace nnemu::cache
