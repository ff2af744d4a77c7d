// The SyNAP compilation cache: a SQLite database of compiled NPU programs (synap-behaviors.md
// §2.2). Lookup keys (md5 of what a program was compiled from, see ModelKey.h) are entries; an
// entry names its program by the md5 of the program's bytes, which doubles as its checksum; a
// program is stored as content-defined chunks named by their md5, so identical programs, and
// identical runs inside different programs (shared layers and weights), are stored once.
// Capacity counts entries; beyond it the least recently used are evicted, and programs and
// chunks no entry needs any more go with them. Every change is one transaction, so a process
// killed in the middle leaves the database as it was; WAL and a busy timeout let several
// processes read and write at once.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace nnemu::cache {

class SqliteDatabase;

struct CacheEntryInfo {
    std::string key;
    std::string program;  // md5 of the program bytes
    uint64_t size = 0;    // program bytes
    uint64_t hits = 0;
    int64_t lastUseUs = 0;  // microseconds since the epoch
    int64_t createdUs = 0;
    uint32_t compilerVersion = 0;
};

struct CacheTotals {
    uint64_t entries = 0;
    uint64_t programs = 0;       // distinct programs
    uint64_t chunks = 0;         // distinct chunks
    uint64_t entryBytes = 0;     // program bytes summed over entries: the size without any sharing
    uint64_t programBytes = 0;   // bytes of the distinct programs
    uint64_t storedBytes = 0;    // bytes of the distinct chunks: what is actually kept
    uint64_t hits = 0;
    uint64_t fileBytes = 0;      // database pages in use, write-ahead log excluded
};

struct CacheVerifyReport {
    uint64_t programs = 0;  // programs checked
    uint64_t chunks = 0;    // chunks checked
    uint64_t damagedPrograms = 0;
    uint64_t damagedChunks = 0;
    uint64_t entriesDropped = 0;
    std::string integrity = "ok";  // SQLite's quick_check
};

class SynapCache {
public:
    enum class Status {
        OK,
        NOT_FOUND,
        DAMAGED,      // find: the entry was corrupt or foreign and has been dropped
        BUSY,         // other processes held the database beyond the busy timeout
        UNAVAILABLE,  // the database cannot be used (see error())
    };

    // Opens the cache database at `file`, creating it (and its schema) if `create`. nullptr and
    // `error` when it cannot be used: a directory that is missing or not writable, a file that
    // is corrupt or not a SyNAP cache, a database of another schema version.
    static std::unique_ptr<SynapCache> open(const std::string& file, bool create, std::string* error);
    ~SynapCache();
    SynapCache(const SynapCache&) = delete;
    SynapCache& operator=(const SynapCache&) = delete;

    // The program stored under `key`, verified: every chunk present, the size, the md5 of the
    // reassembled bytes and the compiler version. A hit counts and refreshes the entry; a
    // damaged entry is dropped (DAMAGED, with the reason in `problem`).
    Status find(const std::string& key, uint32_t compilerVersion, std::vector<uint8_t>* program,
                std::string* problem = nullptr);
    // Stores `program` under `key` (replacing what the key had), then evicts the least recently
    // used entries beyond `capacity`.
    Status store(const std::string& key, const std::vector<uint8_t>& program, uint32_t compilerVersion,
                 int64_t capacity);
    // Removes one entry (e.g. when the NPU core rejected its program).
    Status drop(const std::string& key);

    // Inspection and maintenance, for the synap_cache tool.
    std::vector<CacheEntryInfo> entries();  // most recently used first
    CacheTotals totals();
    // Checks every chunk and program; drops damaged programs with their entries.
    CacheVerifyReport verify();
    // Evicts least recently used entries until at most `count` remain; how many went.
    uint64_t evictTo(uint64_t count);
    bool clear();

    const std::string& file() const { return file_; }
    // What went wrong in the last call that returned BUSY or UNAVAILABLE (or failed).
    std::string error() const;
    // Whether that failure is damage to the database file itself (corrupt, not a database).
    bool errorIsDamage() const;

private:
    SynapCache();
    bool initialize(std::string* error);
    Status failure();
    bool removeEntry(const std::string& key);
    bool collectProgram(const std::string& program);
    bool evictBeyond(uint64_t count, uint64_t* evicted);
    bool assemble(const std::string& program, std::vector<uint8_t>* bytes, bool* complete);
    bool dropDamagedProgram(const std::string& program, uint64_t* entriesDropped, uint64_t* chunksDropped);

    std::mutex mutex_;  // one connection per cache; calls from several threads take turns
    std::unique_ptr<SqliteDatabase> db_;
    std::string file_;
};

const char* toString(SynapCache::Status status);

}  // namespace nnemu::cache
