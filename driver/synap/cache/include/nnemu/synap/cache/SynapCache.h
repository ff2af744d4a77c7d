// The SyNAP compilation cache: a SQLite database of compiled NPU programs (synap-behaviors.md
// §2.2). Lookup keys (md5 of what a program was compiled from, see driver/synap/device/ModelKey.h) are entries; an
// entry names its program by its identity, an md5 over its size and its chunks' md5s (one md5
// pass over the bytes, schema version 3), which doubles as its checksum, and carries a seal (md5 of key, program and compiler version) that binds the program to its key; a
// program is stored as content-defined chunks named by their md5, so identical programs, and
// identical runs inside different programs (shared layers and weights), are stored once.
// Capacity counts entries; beyond it the least recently used are evicted, and programs and
// chunks no entry needs any more go with them. Every change is one transaction (BEGIN IMMEDIATE
// when it writes), so a process killed in the middle leaves the database as it was; WAL and a
// busy timeout let several processes read and write at once.
//
// The file is trusted only if it is ours: its SQLite header (read before SQLite opens it) must
// carry the cache's application id, and a file that does not is never written, not even to
// switch its journal. A new file is built under a private name (mode 0600) and linked into
// place complete, so no process ever sees a half-made cache.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <span>
#include <vector>

#include "nnemu/base/Status.h"
#include "nnemu/cache/ProgramImage.h"
#include "nnemu/synap/cache/ProgramFileStamp.h"

namespace nnemu::cache {

class SqliteDatabase;
struct Chunk;
struct LoggedHit;
class HitLog;

struct CacheEntryInfo {
    std::string key;
    std::string program;  // the program's identity (programIdentity)
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
    uint64_t mismatchedEntries = 0;  // entries whose seal does not match their key and program
    uint64_t entriesDropped = 0;
    std::string integrity = "ok";  // SQLite's quick_check
};

class SynapCache {
public:
    // Opens the cache database at `file`, creating it (and its schema) if `create` and nothing
    // has its name. Below a non-empty `root` (the device root) no symbolic link is followed, the
    // file's own name included anywhere. A failure saying why when it cannot be used: a directory
    // that is missing, a new file that cannot be created (the cause named), no file and no `create`
    // (NOT_FOUND), a file that is not a SyNAP cache (left untouched), a damaged one (DAMAGED: only
    // then does `synap_cache --clear` help), a database of a newer schema version. A cache of an older
    // schema version is emptied and upgraded. An existing cache that cannot be written (its
    // directory or file read-only, on a read-only file system or without write permission) is
    // opened read-only: see readOnly().
    static Result<std::unique_ptr<SynapCache>> open(const std::string& file, bool create,
                                                    const std::string& root = {});
    // Deletes the cache file (and its WAL files) if its header marks it as a SyNAP cache, damaged
    // or not; anything else is refused saying why (NOT_FOUND when there is no file).
    static Status removeFile(const std::string& file, const std::string& root);
    // A hit served without SQLite: the entry index of `key` beside the database `file`
    // (EntryIndex.h, reached by the same walk as open's) names a program file that checks out
    // (ProgramFiles.h), and the database file is the one the index was written for. The hit is
    // counted in the hit log (HitLog.h) when the cache can be written; `foldDue` then says the
    // log has grown long enough for this process to fold it (foldHits), and `recheck` (optional)
    // receives the program file's stamp when the file was checksummed in full (its stamp not
    // the one the index records) and may be recorded now (recordProgramFile). A program file
    // with the stamp the index records is not checksummed again. Any other answer (nothing
    // is removed): the lookup goes to the database (open, findImage), which checks, repairs or
    // removes what was refused here.
    static Status findIndexed(const std::string& file, const std::string& root, const std::string& key,
                              uint32_t compilerVersion, ProgramImage* program, bool* foldDue,
                              ProgramFileStamp* recheck = nullptr);
    ~SynapCache();
    SynapCache(const SynapCache&) = delete;
    SynapCache& operator=(const SynapCache&) = delete;

    // Every call below answers a Status: OK; NOT_FOUND; DAMAGED (find: the entry was corrupt,
    // swapped or foreign and has been dropped; the message says why); BUSY (other processes held
    // the database beyond the busy timeout) or UNAVAILABLE (the database cannot be used), both
    // with error() as their message.
    //
    // The program stored under `key`, verified: the entry's seal, every chunk present, the size,
    // the identity derived from the md5s of the chunks read and the compiler version. A hit counts and refreshes the
    // entry. A damaged entry is dropped (DAMAGED): an entry whose
    // seal fails alone; a damaged program with every entry naming it and every chunk of it that
    // fails its own md5 (so no later store can reuse it).
    Status find(const std::string& key, uint32_t compilerVersion, std::vector<uint8_t>* program);
    // find, preferring the program's file next to the database (ProgramFiles.h), mapped and
    // checked against the entry's program identity and size. Without a usable file (none yet, or one refused:
    // removed, and its DAMAGED Status naming it left in `refusedFile`, whatever find answers) the
    // program comes from the database, and the file is written for the next hit.
    Status findImage(const std::string& key, uint32_t compilerVersion, ProgramImage* program,
                     Status* refusedFile = nullptr);
    // Stores `program` under `key` (replacing what the key had), then evicts the least recently
    // used entries beyond `capacity`. Rows already stored for the same program are reused only
    // if they describe these bytes exactly (chunk contents compared); others are rewritten.
    Status store(const std::string& key, std::span<const uint8_t> program, uint32_t compilerVersion,
                 int64_t capacity);
    // Adds the entry `alias` naming the program of the entry `key` (sealed like any entry; replacing
    // what the alias had), then evicts beyond `capacity` as store does. NOT_FOUND without `key`.
    Status alias(const std::string& alias, const std::string& key, int64_t capacity);
    // Folds the hit log into the database (every write transaction does so first).
    Status foldHits();
    // Writes the index of the sound entry `key` again, recording `verified` (findIndexed's
    // `recheck`) if its program file still has that stamp; folds the hit log like any write.
    Status recordProgramFile(const std::string& key, uint32_t compilerVersion, const ProgramFileStamp& verified);
    // Closing this connection leaves the write-ahead log to a later checkpoint (a lookup's hit
    // count then costs no sync at close).
    void keepLogOnClose();
    // Copies the write-ahead log into the database file and truncates it (best effort: readers
    // in other processes may keep it partial), then starts the next log with one frame, so that
    // the next process's hit count does not restart it (a restart syncs the log and directory).
    void checkpoint();
    // A write that leaves this many frames or more in the log restarts it (restartLogIfLong).
    static constexpr int kLogRestartFrames = 64;
    // Removes one entry (e.g. when the NPU core rejected its program).
    Status drop(const std::string& key);

    // Inspection and maintenance, for the synap_cache tool. entries() and totals() fold the hit
    // log first when the cache can be written, and count what remains in it (or all of it,
    // read-only) without writing.
    std::vector<CacheEntryInfo> entries();  // most recently used first
    CacheTotals totals();
    // Checks every chunk, program and entry seal; drops damaged chunks, damaged programs with
    // their entries, and entries that do not match their key.
    CacheVerifyReport verify();
    // Evicts least recently used entries until at most `count` remain; how many went.
    uint64_t evictTo(uint64_t count);
    bool clear();

    const std::string& file() const { return file_; }
    // Why the cache is open read-only ("Read-only file system", "Permission denied"); empty when
    // it is writable. A read-only cache finds programs (and maps their files when they exist) but
    // neither counts hits nor writes program files; store and drop are the caller's to skip.
    const std::string& readOnly() const { return readOnly_; }
    // Why the last failed write was refused by the system (full disk, read-only...), or empty.
    std::string writeRefusal() const;
    // What went wrong in the last call that returned BUSY or UNAVAILABLE (or failed).
    std::string error() const;
    // Whether that failure is damage to the database file itself (corrupt, not a database).
    bool errorIsDamage() const;

private:
    class Write;  // a write transaction that folds the hit log first
    SynapCache();
    Status checkSchema();
    Status upgrade();
    Status failure();
    bool removeEntry(const std::string& key);
    bool insertEntry(const std::string& key, const std::string& programMd5, int64_t compilerVersion, int64_t now);
    bool collectProgram(const std::string& program);
    bool evictBeyond(uint64_t count, uint64_t* evicted);
    bool assemble(const std::string& program, std::vector<uint8_t>* bytes, bool* complete, std::string& identity);
    bool dropDamagedProgram(const std::string& program, uint64_t* entriesDropped, uint64_t* chunksDropped);
    // find, answering the program identity it verified (so the first hit does not hash the program again).
    Result<std::string> findVerified(const std::string& key, uint32_t compilerVersion, std::vector<uint8_t>* program,
                                     bool count = true);
    // The identity and size of the program a sound entry of `key` names; false when the entry is
    // missing or anything about it needs find's full check.
    bool soundEntry(const std::string& key, uint32_t compilerVersion, std::string& programMd5, int64_t* size);
    // The same inside the caller's transaction.
    bool soundEntryRow(const std::string& key, uint32_t compilerVersion, std::string& programMd5, int64_t* size);
    // Counts a hit of the sound entry `key` (naming `programMd5` of `size` bytes) in the database,
    // and writes its index when the program file is there (recording `verified`, the stamp the
    // file was written or checked with, if the file still has it).
    void countHit(const std::string& key, const std::string& programMd5, int64_t size, uint32_t compilerVersion,
                  const ProgramFileStamp& verified = {});
    void writeIndex(const std::string& key, const std::string& programMd5, int64_t size, uint32_t compilerVersion,
                    const ProgramFileStamp& verified);
    ProgramFileStamp recordedStamp(const std::string& key, const std::string& programMd5, uint32_t compilerVersion);
    // With mutex_ held, inside a write transaction: applies the hit log's unfolded records.
    bool foldHitLog();
    // After that transaction: replaces a long log once the fold is committed, and unlocks it.
    void finishFold(bool committed);
    std::vector<LoggedHit> unfoldedHits(HitLog& log);
    Result<HitLog> foldForInspection();
    // After a write, with mutex_ held: a log of kLogRestartFrames frames or more is copied into
    // the database and restarted (checkpoint's work). Each process that finds the program counts
    // a hit (two frames), so a lookup pays the copy and its syncs once every ~32 processes, and
    // reads back at most ~1 MiB of log when it opens the database.
    void restartLogIfLong();
    void restartLog();
    bool storeProgram(const std::string& programMd5, std::span<const uint8_t> program,
                      const std::vector<Chunk>& chunks, const std::vector<std::string>& chunkMd5s,
                      uint32_t compilerVersion);
    bool storeChunks(std::span<const uint8_t> program, const std::vector<Chunk>& chunks,
                     const std::vector<std::string>& chunkMd5s);
    std::vector<std::string> entriesNotMatchingTheirKey();

    std::mutex mutex_;  // one connection per cache; calls from several threads take turns
    std::unique_ptr<SqliteDatabase> db_;
    std::string file_;
    int directory_ = -1;  // the database's directory, for its program files
    std::string name_;    // the database's file name
    std::string readOnly_;
    dev_t databaseDevice_ = 0;  // the database file's identity, recorded in its entry indexes
    ino_t databaseInode_ = 0;
    std::unique_ptr<HitLog> foldLock_;  // a folded log to replace after the commit
};

// A program's name in the cache (and in its file's name): md5 over its size and the md5s of its
// content-defined chunks, in order.
std::string programIdentity(std::span<const uint8_t> program);

}  // namespace nnemu::cache
