#include "nnemu/synap/cache/SynapCache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

#include "CacheFile.h"
#include "EntryIndex.h"
#include "HitLog.h"
#include "ProgramFiles.h"
#include "nnemu/cache/SqliteDatabase.h"
#include "nnemu/cache/Chunking.h"
#include "nnemu/base/Digest.h"
#include "nnemu/base/Trace.h"

namespace nnemu::cache {
using base::Digest;
using base::DigestAlgorithm;
using base::md5;
using base::toHex;
namespace {

// No NPU program comes near this; a larger recorded size is damage.
constexpr int64_t kMaxProgramSize = int64_t{1} << 31;

int64_t nowUs() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
}

// The entry's new last use: now, or just after the latest use if the clock says otherwise, so
// the LRU order is exact even for uses within one microsecond or across a clock step.
constexpr const char* kNextUse = "MAX(?1, (SELECT COALESCE(MAX(last_use), 0) + 1 FROM entries))";

// Whether the stored chunk row holds exactly these bytes.
bool chunkHolds(const SqliteStatement& row, const uint8_t* data, size_t size) {
    size_t storedSize = 0;
    const uint8_t* stored = row.blob(1, &storedSize);
    return row.integer(0) == static_cast<int64_t>(size) && storedSize == size &&
           (size == 0 || std::memcmp(stored, data, size) == 0);
}

// One md5 pass over the program: its name is derived from its chunks' md5s (which name and check
// every chunk anyway), so a damaged chunk or link list changes what reassembly derives.
std::string programIdentity(uint64_t size, const std::vector<std::string>& chunkMd5s) {
    static constexpr char kDomain[] = "nnemu SyNAP program";  // the terminating zero separates
    const std::string length = std::to_string(size);
    Digest digest(DigestAlgorithm::MD5);
    digest.update(kDomain, sizeof kDomain);
    digest.update(length.data(), length.size() + 1);
    for (const std::string& chunk : chunkMd5s) digest.update(chunk.data(), chunk.size());
    return toHex(digest.finish());
}

std::vector<std::string> chunkDigests(std::span<const uint8_t> program, const std::vector<Chunk>& chunks) {
    std::vector<std::string> chunkMd5s;
    chunkMd5s.reserve(chunks.size());
    for (const Chunk& chunk : chunks) chunkMd5s.push_back(toHex(md5(program.data() + chunk.offset, chunk.size)));
    return chunkMd5s;
}

}  // namespace

std::string programIdentity(std::span<const uint8_t> program) {
    return programIdentity(program.size(), chunkDigests(program, contentDefinedChunks(program.data(), program.size())));
}

// A write transaction (BEGIN IMMEDIATE) whose first work is folding the hit log, so the hits
// found through entry indexes count before anything this transaction changes, in their order.
class SynapCache::Write {
public:
    explicit Write(SynapCache& cache) : cache_(cache), write_(*cache.db_, SqliteTransaction::Kind::WRITE) {
        active_ = write_.active() && cache_.foldHitLog();
    }
    ~Write() { cache_.finishFold(committed_); }
    Write(const Write&) = delete;
    Write& operator=(const Write&) = delete;
    bool active() const { return active_; }
    bool commit() {
        committed_ = active_ && write_.commit();
        return committed_;
    }

private:
    SynapCache& cache_;
    SqliteTransaction write_;
    bool active_ = false;
    bool committed_ = false;
};

SynapCache::SynapCache() : db_(std::make_unique<SqliteDatabase>()) {}
SynapCache::~SynapCache() {
    if (directory_ >= 0) close(directory_);
}

std::string SynapCache::error() const { return db_->error().message; }

bool SynapCache::errorIsDamage() const { return db_->error().damage(); }

std::string SynapCache::writeRefusal() const {
    const std::string refusal = db_->error().writeRefusal();
    if (refusal.empty()) return refusal;
    // A read-only or full file system is the cause whatever SQLite's errno says (it may not
    // name one, e.g. when sizing its WAL index).
    const std::string cause = fileSystemRefusal(directory_);
    return cause.empty() ? refusal : cause;
}

Status SynapCache::failure() {
    return {db_->error().transient() ? StatusCode::BUSY : StatusCode::UNAVAILABLE, db_->error().message};
}

// Reassembles `program` and derives its identity from the md5 of every chunk as read.
bool SynapCache::assemble(const std::string& program, std::vector<uint8_t>* bytes, bool* complete,
                          std::string& identity) {
    auto chunks = db_->prepare(
            "SELECT c.data FROM program_chunks pc LEFT JOIN chunks c ON c.md5 = pc.chunk "
            "WHERE pc.program = ?1 ORDER BY pc.position");
    chunks.bind(1, program);
    *complete = true;
    std::vector<std::string> chunkMd5s;
    while (chunks.step()) {
        if (chunks.isNull(0)) {
            *complete = false;
            continue;
        }
        size_t size = 0;
        const uint8_t* data = chunks.blob(0, &size);
        bytes->insert(bytes->end(), data, data + size);
        chunkMd5s.push_back(toHex(md5(data, size)));
    }
    identity = programIdentity(bytes->size(), chunkMd5s);
    return db_->error().ok();
}

Status SynapCache::find(const std::string& key, uint32_t compilerVersion, std::vector<uint8_t>* program) {
    return findVerified(key, compilerVersion, program).status();
}

Result<std::string> SynapCache::findVerified(const std::string& key, uint32_t compilerVersion,
                                             std::vector<uint8_t>* program, bool count) {
    std::lock_guard<std::mutex> lock(mutex_);
    db_->clearError();
    program->clear();
    std::string programMd5, damage;
    bool entryOnly = false;  // the entry is bad, not its program (which other entries may use)
    {
        SqliteTransaction read(*db_, SqliteTransaction::Kind::READ);
        if (!read.active()) return failure();
        int64_t size = 0, version = 0, chunkCount = 0, links = 0;
        bool hasProgram = false;
        std::string seal;
        {
            auto entry = db_->prepare(
                    "SELECT e.program, e.seal, p.md5 IS NOT NULL, p.size, p.compiler_version, p.chunk_count, "
                    "(SELECT count(*) FROM program_chunks WHERE program = e.program) "
                    "FROM entries e LEFT JOIN programs p ON p.md5 = e.program WHERE e.key = ?1");
            entry.bind(1, key);
            if (!entry.step()) return db_->error().ok() ? Status(StatusCode::NOT_FOUND, {}) : failure();
            programMd5 = entry.text(0);
            seal = entry.text(1);
            hasProgram = entry.integer(2) != 0;
            size = entry.integer(3);
            version = entry.integer(4);
            chunkCount = entry.integer(5);
            links = entry.integer(6);
        }
        bool complete = false;
        std::string identity;
        if (hasProgram && size > 0 && size <= kMaxProgramSize) program->reserve(static_cast<size_t>(size));
        if (!hasProgram) {
            damage = "its program is missing";
        } else if (seal != entrySeal(key, programMd5, version)) {
            damage = "it does not match its key (its program was swapped or altered)";
            entryOnly = true;
        } else if (version != compilerVersion) {
            damage = "its program comes from compiler version " + std::to_string(version) + ", not " +
                     std::to_string(compilerVersion);
        } else if (chunkCount != links) {
            damage = "its program has lost chunks";
        } else if (size < 0 || size > kMaxProgramSize) {
            damage = "its program has an implausible size";
        } else if (trace::Span span("sqlite read", "cache"); !assemble(programMd5, program, &complete, identity)) {
            return failure();
        } else if (!complete) {
            damage = "its program has lost chunks";
        } else if (program->size() != static_cast<uint64_t>(size)) {
            damage = "its program is " + std::to_string(program->size()) + " bytes, not " + std::to_string(size);
        } else if (identity != programMd5) {
            damage = "its program fails its checksum";
        }
        read.commit();
    }
    if (!damage.empty()) {
        program->clear();
        if (!readOnly_.empty()) return Status(StatusCode::DAMAGED, damage);  // left as it is: nothing can be dropped
        // A bad program goes with every entry naming it and its chunks that fail their own
        // checksum, checked before anything is unlinked (a later store must not reuse them).
        uint64_t entriesDropped = 0, chunksDropped = 0;
        Write write(*this);
        if (!write.active()) return failure();
        const bool dropped =
                entryOnly ? removeEntry(key) : dropDamagedProgram(programMd5, &entriesDropped, &chunksDropped);
        if (!dropped || !write.commit()) return failure();
        return Status(StatusCode::DAMAGED, damage);
    }
    if (count && readOnly_.empty()) countHit(key, programMd5, static_cast<int64_t>(program->size()), compilerVersion);
    if (db_->error().damage()) return failure();
    db_->clearError();  // a hit not counted (busy, or the write refused) is still a hit
    return programMd5;
}

// A hit counts and becomes the most recent use, after the logged hits before it (the fold).
// Losing this update to a busy database only makes the LRU order slightly stale, so it does not
// fail the lookup. A hit that comes here found no usable entry index: it writes one.
void SynapCache::countHit(const std::string& key, const std::string& programMd5, int64_t size,
                          uint32_t compilerVersion, const ProgramFileStamp& verified) {
    Write write(*this);
    if (write.active()) {
        auto touch = db_->prepare(std::string("UPDATE entries SET hits = hits + 1, last_use = ") + kNextUse +
                                  " WHERE key = ?2");
        touch.bind(1, nowUs()).bind(2, key);
        if (touch.run()) {
            if (db_->changes() > 0) writeIndex(key, programMd5, size, compilerVersion, verified);
            write.commit();
        }
    }
    restartLogIfLong();
}

// Within the write transaction that inserts or counts the entry, once its program file exists.
// The index records `verified` only if the file still has it.
void SynapCache::writeIndex(const std::string& key, const std::string& programMd5, int64_t size,
                            uint32_t compilerVersion, const ProgramFileStamp& verified) {
    if (directory_ < 0 || !readOnly_.empty() || entryIndexName(name_, key).empty()) return;
    const ProgramFileStamp file = programFileStamp(directory_, programFileName(name_, programMd5));
    if (file.empty()) return;
    writeEntryIndex(directory_, name_,
                    {key, programMd5, size, compilerVersion, databaseDevice_, databaseInode_,
                     file == verified ? verified : ProgramFileStamp{}});
}

// The program file stamp the index of `key` records for `programMd5` (an alias of `key` may record it too).
ProgramFileStamp SynapCache::recordedStamp(const std::string& key, const std::string& programMd5, uint32_t compilerVersion) {
    if (directory_ < 0) return {};
    const Result<EntryIndex> index = readEntryIndex(directory_, name_, key, compilerVersion);
    return index.isOk() && index->program == programMd5 ? index->programFile : ProgramFileStamp{};
}

Status SynapCache::recordProgramFile(const std::string& key, uint32_t compilerVersion, const ProgramFileStamp& verified) {
    std::lock_guard<std::mutex> lock(mutex_);
    db_->clearError();
    if (directory_ < 0 || !readOnly_.empty()) return {};
    {
        Write write(*this);
        if (!write.active()) return failure();
        std::string programMd5;
        int64_t size = 0;
        if (soundEntryRow(key, compilerVersion, programMd5, &size)) writeIndex(key, programMd5, size, compilerVersion, verified);
        if (!db_->error().ok() || !write.commit()) return failure();
    }
    restartLogIfLong();
    return {};
}

bool SynapCache::foldHitLog() {
    foldLock_.reset();
    if (directory_ < 0 || !readOnly_.empty()) return true;
    Result<HitLog> opened = HitLog::open(directory_, name_, true);
    if (!opened.isOk()) return true;  // no log (or an unusable one, which appends refuse too)
    HitLog log = std::move(opened).value();
    // A log holding its header alone (the usual case at a store) has nothing to fold.
    if (!log.read() || (log.end() <= kHitLogRecordSize && !log.wantsRestart())) return true;
    if (!db_->execute("CREATE TABLE IF NOT EXISTS hit_log(id INTEGER PRIMARY KEY CHECK(id = 0), "
                      "generation INTEGER NOT NULL, folded INTEGER NOT NULL)")) {
        return false;
    }
    int64_t generation = 0, folded = 0;
    {
        auto row = db_->prepare("SELECT generation, folded FROM hit_log WHERE id = 0");
        if (row.step()) {
            generation = row.integer(0);
            folded = row.integer(1);
        }
        if (!db_->error().ok()) return false;
    }
    const bool sameLog = static_cast<uint64_t>(generation) == log.generation();
    const uint64_t from = sameLog ? static_cast<uint64_t>(std::max<int64_t>(folded, 0)) : 0;
    std::set<std::string> gone;
    {
        auto touch = db_->prepare(std::string("UPDATE entries SET hits = hits + 1, last_use = ") + kNextUse +
                                  " WHERE key = ?2");
        for (const LoggedHit& hit : log.hitsFrom(from)) {
            if (!touch.reset().bind(1, hit.timeUs).bind(2, hit.key).run()) return false;
            if (db_->changes() == 0) gone.insert(hit.key);  // evicted meanwhile: dropped
        }
    }
    if (!sameLog || from != log.end()) {
        auto mark = db_->prepare("INSERT OR REPLACE INTO hit_log(id, generation, folded) VALUES(0, ?1, ?2)");
        if (!mark.bind(1, static_cast<int64_t>(log.generation())).bind(2, static_cast<int64_t>(log.end())).run()) {
            return false;
        }
    }
    // An index whose entry is gone is stale (its entry was removed by a process that could not
    // remove it, or its store did not commit).
    for (const std::string& key : gone) removeEntryIndex(directory_, name_, key);
    if (log.wantsRestart()) foldLock_ = std::make_unique<HitLog>(std::move(log));
    return true;
}

void SynapCache::finishFold(bool committed) {
    if (foldLock_ != nullptr && committed) foldLock_->restart();
    foldLock_.reset();
}

Status SynapCache::foldHits() {
    std::lock_guard<std::mutex> lock(mutex_);
    db_->clearError();
    if (!readOnly_.empty()) return {};
    {
        Write write(*this);
        if (!write.active() || !write.commit()) return failure();
    }
    restartLogIfLong();
    return {};
}

// The records of `log` the database has not folded (read in the caller's transaction; `log` held
// with its shared lock, which excludes folds reading it).
std::vector<LoggedHit> SynapCache::unfoldedHits(HitLog& log) {
    if (!log.read()) return {};
    int64_t generation = 0, folded = 0;
    {
        auto row = db_->prepare("SELECT generation, folded FROM hit_log WHERE id = 0");
        if (row.valid() && row.step()) {
            generation = row.integer(0);
            folded = row.integer(1);
        }
        db_->clearError();  // no table yet: nothing folded
    }
    const bool sameLog = static_cast<uint64_t>(generation) == log.generation();
    return log.hitsFrom(sameLog ? static_cast<uint64_t>(std::max<int64_t>(folded, 0)) : 0);
}

// For synap_cache: folds the log when the cache can be written (so the file shows the hits), and
// opens what remains of it, shared, for the caller to count.
Result<HitLog> SynapCache::foldForInspection() {
    if (readOnly_.empty()) {
        Write write(*this);
        if (write.active()) write.commit();
        db_->clearError();
    }
    if (directory_ < 0) return Status(StatusCode::NOT_FOUND, {});
    return HitLog::open(directory_, name_, false);
}

bool SynapCache::soundEntry(const std::string& key, uint32_t compilerVersion, std::string& programMd5, int64_t* size) {
    SqliteTransaction read(*db_, SqliteTransaction::Kind::READ);
    return read.active() && soundEntryRow(key, compilerVersion, programMd5, size);
}

bool SynapCache::soundEntryRow(const std::string& key, uint32_t compilerVersion, std::string& programMd5,
                               int64_t* size) {
    auto entry = db_->prepare(
            "SELECT e.program, e.seal, p.size, p.compiler_version FROM entries e JOIN programs p ON p.md5 = e.program "
            "WHERE e.key = ?1");
    entry.bind(1, key);
    if (!entry.step()) return false;
    programMd5 = entry.text(0);
    *size = entry.integer(2);
    const int64_t version = entry.integer(3);
    return entry.text(1) == entrySeal(key, programMd5, version) && version == compilerVersion && *size > 0 &&
           *size <= kMaxProgramSize;
}

Status SynapCache::findImage(const std::string& key, uint32_t compilerVersion, ProgramImage* program,
                             Status* refusedFile) {
    std::string programMd5;
    int64_t size = 0;
    if (directory_ >= 0) {
        std::unique_lock<std::mutex> lock(mutex_);
        db_->clearError();
        if (soundEntry(key, compilerVersion, programMd5, &size)) {
            const std::string name = programFileName(name_, programMd5);
            trace::Span mapping("map program file", "cache");
            ProgramFileStamp verified;
            Result<ProgramImage> mapped = mapProgramFile(directory_, name, size, programMd5, true, {}, &verified);
            mapping.end();
            if (mapped.isOk()) {
                *program = std::move(mapped).value();
                trace::Span hit("count hit", "cache");
                if (readOnly_.empty()) countHit(key, programMd5, size, compilerVersion, verified);
                return {};
            }
            if (mapped.code() == StatusCode::DAMAGED && refusedFile != nullptr) *refusedFile = mapped.status();
        }
    }
    std::vector<uint8_t> bytes;
    Result<std::string> found = findVerified(key, compilerVersion, &bytes, false);
    if (!found.isOk()) {
        // No entry: an index left for the key is stale.
        if (found.code() == StatusCode::NOT_FOUND && directory_ >= 0 && readOnly_.empty()) {
            removeEntryIndex(directory_, name_, key);
        }
        return found.status();
    }
    programMd5 = std::move(found).value();
    size = static_cast<int64_t>(bytes.size());
    std::lock_guard<std::mutex> lock(mutex_);
    bool fromFile = false;
    ProgramFileStamp verified;
    if (directory_ >= 0 && readOnly_.empty()) {
        // The process that writes the program file maps it too, sharing its pages with the
        // processes that map it later rather than holding a copy of its own (the bytes it
        // wrote: not checksummed again).
        trace::Span span("program file write", "cache");
        const std::string name = programFileName(name_, programMd5);
        const ProgramFileStamp written = writeProgramFile(directory_, name, bytes, programMd5);
        if (Result<ProgramImage> mapped = mapProgramFile(directory_, name, size, programMd5, true, written, &verified);
            mapped.isOk()) {
            *program = std::move(mapped).value();
            fromFile = true;
        }
    }
    if (!fromFile) *program = ProgramImage(std::move(bytes));
    if (readOnly_.empty()) countHit(key, programMd5, size, compilerVersion, verified);  // after the file: its index follows it
    db_->clearError();
    return {};
}

void SynapCache::keepLogOnClose() {
    std::lock_guard<std::mutex> lock(mutex_);
    db_->keepLogOnClose();
}

void SynapCache::checkpoint() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (readOnly_.empty()) {  // the hits logged so far go into the database being checkpointed
        Write write(*this);
        if (write.active()) write.commit();
    }
    restartLog();
}

void SynapCache::restartLogIfLong() {
    if (db_->walFrames() >= kLogRestartFrames) restartLog();
}

void SynapCache::restartLog() {
    db_->execute("PRAGMA wal_checkpoint(TRUNCATE)");
    // Start the next log now: the first frame written into an emptied log makes SQLite sync the
    // log's header (and that first sync, the directory), which would otherwise fall on the next
    // process's hit count, inside its first inference. Writing the schema version back as it is
    // changes page 1 only, into a one-frame log.
    {
        SqliteTransaction write(*db_, SqliteTransaction::Kind::WRITE);
        int64_t version = 0;
        if (write.active() && db_->integer("PRAGMA user_version", &version) &&
            db_->execute("PRAGMA user_version=" + std::to_string(version))) {
            write.commit();
        }
    }
    db_->clearError();
}

bool SynapCache::removeEntry(const std::string& key) {
    // Its index goes first, whether the entry is there or not (a stale one too): a transaction
    // rolled back leaves an entry without index, which the next hit through SQLite writes again.
    if (directory_ >= 0) removeEntryIndex(directory_, name_, key);
    std::string program;
    {
        auto select = db_->prepare("SELECT program FROM entries WHERE key = ?1");
        select.bind(1, key);
        if (!select.step()) return db_->error().ok();
        program = select.text(0);
    }
    auto remove = db_->prepare("DELETE FROM entries WHERE key = ?1");
    remove.bind(1, key);
    return remove.run() && collectProgram(program);
}

// Deletes `program` if no entry names it any more, and its chunks no other program uses.
bool SynapCache::collectProgram(const std::string& program) {
    {
        auto used = db_->prepare("SELECT 1 FROM entries WHERE program = ?1 LIMIT 1");
        used.bind(1, program);
        if (used.step()) return true;
        if (!db_->error().ok()) return false;
    }
    std::set<std::string> chunks;
    {
        auto list = db_->prepare("SELECT chunk FROM program_chunks WHERE program = ?1");
        list.bind(1, program);
        while (list.step()) chunks.insert(list.text(0));
        if (!db_->error().ok()) return false;
    }
    auto removeProgram = db_->prepare("DELETE FROM programs WHERE md5 = ?1");
    auto removeList = db_->prepare("DELETE FROM program_chunks WHERE program = ?1");
    if (!removeProgram.bind(1, program).run() || !removeList.bind(1, program).run()) return false;
    if (directory_ >= 0) removeProgramFiles(directory_, name_, program);
    auto removeChunk = db_->prepare(
            "DELETE FROM chunks WHERE md5 = ?1 AND NOT EXISTS (SELECT 1 FROM program_chunks WHERE chunk = ?1)");
    for (const auto& chunk : chunks) {
        if (!removeChunk.reset().bind(1, chunk).run()) return false;
    }
    return true;
}

bool SynapCache::dropDamagedProgram(const std::string& program, uint64_t* entriesDropped, uint64_t* chunksDropped) {
    std::set<std::string> chunks;
    {
        auto list = db_->prepare("SELECT chunk FROM program_chunks WHERE program = ?1");
        list.bind(1, program);
        while (list.step()) chunks.insert(list.text(0));
        if (!db_->error().ok()) return false;
    }
    auto select = db_->prepare("SELECT size, data FROM chunks WHERE md5 = ?1");
    auto remove = db_->prepare("DELETE FROM chunks WHERE md5 = ?1");
    for (const auto& chunk : chunks) {
        if (!select.reset().bind(1, chunk).step()) {
            if (!db_->error().ok()) return false;
            continue;
        }
        size_t size = 0;
        const uint8_t* data = select.blob(1, &size);
        if (select.integer(0) == static_cast<int64_t>(size) && toHex(md5(data, size)) == chunk) continue;
        select.reset();
        if (!remove.reset().bind(1, chunk).run()) return false;
        ++*chunksDropped;
    }
    if (directory_ >= 0) {
        auto keys = db_->prepare("SELECT key FROM entries WHERE program = ?1");
        keys.bind(1, program);
        while (keys.step()) removeEntryIndex(directory_, name_, keys.text(0));
        if (!db_->error().ok()) return false;
    }
    auto removeEntries = db_->prepare("DELETE FROM entries WHERE program = ?1");
    if (!removeEntries.bind(1, program).run()) return false;
    *entriesDropped += static_cast<uint64_t>(db_->changes());
    return collectProgram(program);
}

bool SynapCache::evictBeyond(uint64_t count, uint64_t* evicted) {
    int64_t entries = 0;
    {
        auto total = db_->prepare("SELECT count(*) FROM entries");
        if (!total.step()) return false;
        entries = total.integer(0);
    }
    if (static_cast<uint64_t>(entries) <= count) return true;
    std::vector<std::string> oldest;
    {
        auto select = db_->prepare("SELECT key FROM entries ORDER BY last_use ASC LIMIT ?1");
        select.bind(1, entries - static_cast<int64_t>(count));
        while (select.step()) oldest.push_back(select.text(0));
        if (!db_->error().ok()) return false;
    }
    for (const auto& key : oldest) {
        if (!removeEntry(key)) return false;
        ++*evicted;
    }
    return true;
}

Status SynapCache::store(const std::string& key, std::span<const uint8_t> program, uint32_t compilerVersion,
                         int64_t capacity) {
    if (capacity <= 0) return {};
    // Hashing and chunking happen before the write lock is taken.
    const std::vector<Chunk> chunks = contentDefinedChunks(program.data(), program.size());
    const std::vector<std::string> chunkMd5s = chunkDigests(program, chunks);
    const std::string programMd5 = programIdentity(program.size(), chunkMd5s);

    std::lock_guard<std::mutex> lock(mutex_);
    db_->clearError();
    Write write(*this);
    if (!write.active()) return failure();
    const int64_t now = nowUs();
    std::string previous;
    {
        auto existing = db_->prepare("SELECT program FROM entries WHERE key = ?1");
        existing.bind(1, key);
        if (existing.step()) previous = existing.text(0);
        if (!db_->error().ok()) return failure();
    }
    // The key compiled differently before (e.g. into a damaged program): replace it.
    if (!previous.empty() && previous != programMd5 && !removeEntry(key)) return failure();
    if (!storeProgram(programMd5, program, chunks, chunkMd5s, compilerVersion)) return failure();
    uint64_t evicted = 0;
    if (!insertEntry(key, programMd5, compilerVersion, now) || !evictBeyond(static_cast<uint64_t>(capacity), &evicted)) {
        return failure();
    }
    // The program's file is written now, in the transaction that names it, so the next process
    // maps it rather than reassembling the program from its chunks (and writing the file then);
    // then the entry's index, so the next process finds the file without SQLite.
    if (directory_ >= 0 && readOnly_.empty()) {
        trace::Span span("program file write", "cache");
        const ProgramFileStamp written = writeProgramFile(directory_, programFileName(name_, programMd5), program, programMd5);
        writeIndex(key, programMd5, static_cast<int64_t>(program.size()), compilerVersion, written);
    }
    if (!write.commit()) {
        if (directory_ >= 0) removeEntryIndex(directory_, name_, key);
        return failure();
    }
    if (directory_ >= 0 && readOnly_.empty()) createHitLog(directory_, name_);  // for the next process's first hit
    restartLogIfLong();
    return {};
}

// Makes the program's rows describe exactly `program`: rows that disagree (damage) are replaced,
// and every chunk is checked or written by storeChunks.
bool SynapCache::storeProgram(const std::string& programMd5, std::span<const uint8_t> program,
                              const std::vector<Chunk>& chunks, const std::vector<std::string>& chunkMd5s,
                              uint32_t compilerVersion) {
    bool intact = false;
    {
        auto row = db_->prepare("SELECT size, compiler_version, chunk_count FROM programs WHERE md5 = ?1");
        if (row.bind(1, programMd5).step()) {
            intact = row.integer(0) == static_cast<int64_t>(program.size()) && row.integer(1) == compilerVersion &&
                     row.integer(2) == static_cast<int64_t>(chunks.size());
        }
        if (!db_->error().ok()) return false;
    }
    std::vector<std::string> linked;
    {
        auto list = db_->prepare("SELECT chunk FROM program_chunks WHERE program = ?1 ORDER BY position");
        list.bind(1, programMd5);
        while (list.step()) linked.push_back(list.text(0));
        if (!db_->error().ok()) return false;
    }
    const bool rewrite = !intact || linked != chunkMd5s;
    if (rewrite) {
        auto removeList = db_->prepare("DELETE FROM program_chunks WHERE program = ?1");
        auto removeProgram = db_->prepare("DELETE FROM programs WHERE md5 = ?1");
        auto addProgram = db_->prepare(
                "INSERT INTO programs(md5, size, compiler_version, chunk_count) VALUES(?1, ?2, ?3, ?4)");
        addProgram.bind(1, programMd5)
                .bind(2, static_cast<int64_t>(program.size()))
                .bind(3, int64_t{compilerVersion})
                .bind(4, static_cast<int64_t>(chunks.size()));
        auto link = db_->prepare("INSERT INTO program_chunks(program, position, chunk) VALUES(?1, ?2, ?3)");
        if (!removeList.bind(1, programMd5).run() || !removeProgram.bind(1, programMd5).run() || !addProgram.run()) {
            return false;
        }
        for (size_t i = 0; i < chunks.size(); ++i) {
            if (!link.reset().bind(1, programMd5).bind(2, static_cast<int64_t>(i)).bind(3, chunkMd5s[i]).run()) {
                return false;
            }
        }
    }
    if (!storeChunks(program, chunks, chunkMd5s)) return false;
    if (!rewrite) return true;
    // Chunks only the replaced (damaged) link list named go now.
    auto removeChunk = db_->prepare(
            "DELETE FROM chunks WHERE md5 = ?1 AND NOT EXISTS (SELECT 1 FROM program_chunks WHERE chunk = ?1)");
    for (const auto& chunk : linked) {
        if (!removeChunk.reset().bind(1, chunk).run()) return false;
    }
    return true;
}

// A chunk already stored under a name is reused only if it holds these very bytes; otherwise
// (damage) it is rewritten, which repairs every program sharing it.
bool SynapCache::storeChunks(std::span<const uint8_t> program, const std::vector<Chunk>& chunks,
                             const std::vector<std::string>& chunkMd5s) {
    auto stored = db_->prepare("SELECT size, data FROM chunks WHERE md5 = ?1");
    auto write = db_->prepare("INSERT OR REPLACE INTO chunks(md5, size, data) VALUES(?1, ?2, ?3)");
    for (size_t i = 0; i < chunks.size(); ++i) {
        const uint8_t* data = program.data() + chunks[i].offset;
        const bool found = stored.reset().bind(1, chunkMd5s[i]).step();
        if (!db_->error().ok()) return false;
        const bool intact = found && chunkHolds(stored, data, chunks[i].size);
        stored.reset();
        if (intact) continue;
        write.reset().bind(1, chunkMd5s[i]).bind(2, static_cast<int64_t>(chunks[i].size));
        if (!write.bindBlob(3, data, chunks[i].size).run()) return false;
    }
    return true;
}

// Adds (or refreshes) the entry `key` naming `programMd5`, sealed.
bool SynapCache::insertEntry(const std::string& key, const std::string& programMd5, int64_t compilerVersion, int64_t now) {
    auto addEntry = db_->prepare(std::string("INSERT INTO entries(key, program, seal, created, last_use, hits) "
                                             "VALUES(?2, ?3, ?4, ?1, ") +
                                 kNextUse +
                                 ", 0) ON CONFLICT(key) DO UPDATE SET last_use = excluded.last_use, "
                                 "seal = excluded.seal");
    return addEntry.bind(1, now).bind(2, key).bind(3, programMd5).bind(4, entrySeal(key, programMd5, compilerVersion)).run();
}

Status SynapCache::alias(const std::string& alias, const std::string& key, int64_t capacity) {
    if (capacity <= 0 || alias == key) return {};
    std::lock_guard<std::mutex> lock(mutex_);
    db_->clearError();
    Write write(*this);
    if (!write.active()) return failure();
    std::string programMd5;
    int64_t version = 0;
    {
        auto source = db_->prepare("SELECT e.program, p.compiler_version FROM entries e JOIN programs p "
                                   "ON p.md5 = e.program WHERE e.key = ?1");
        if (source.bind(1, key).step()) {
            programMd5 = source.text(0);
            version = source.integer(1);
        }
        if (!db_->error().ok()) return failure();
    }
    if (programMd5.empty()) return {StatusCode::NOT_FOUND, "no entry " + key};
    std::string previous;
    {
        auto existing = db_->prepare("SELECT program FROM entries WHERE key = ?1");
        if (existing.bind(1, alias).step()) previous = existing.text(0);
        if (!db_->error().ok()) return failure();
    }
    if (!previous.empty() && previous != programMd5 && !removeEntry(alias)) return failure();
    uint64_t evicted = 0;
    if (!insertEntry(alias, programMd5, version, nowUs()) || !evictBeyond(static_cast<uint64_t>(capacity), &evicted)) {
        return failure();
    }
    int64_t size = 0;
    {
        auto row = db_->prepare("SELECT size FROM programs WHERE md5 = ?1");
        if (row.bind(1, programMd5).step()) size = row.integer(0);
    }
    if (size > 0) writeIndex(alias, programMd5, size, static_cast<uint32_t>(version), recordedStamp(key, programMd5, static_cast<uint32_t>(version)));
    if (!write.commit()) {
        if (directory_ >= 0) removeEntryIndex(directory_, name_, alias);
        return failure();
    }
    return {};
}

Status SynapCache::drop(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    db_->clearError();
    Write write(*this);
    if (!write.active() || !removeEntry(key) || !write.commit()) return failure();
    return {};
}

std::vector<CacheEntryInfo> SynapCache::entries() {
    std::lock_guard<std::mutex> lock(mutex_);
    db_->clearError();
    Result<HitLog> log = foldForInspection();
    std::vector<CacheEntryInfo> list;
    SqliteTransaction read(*db_, SqliteTransaction::Kind::READ);
    const std::vector<LoggedHit> pending = log.isOk() ? unfoldedHits(*log) : std::vector<LoggedHit>();
    auto select = db_->prepare(
            "SELECT e.key, e.program, COALESCE(p.size, 0), e.hits, e.last_use, e.created, "
            "COALESCE(p.compiler_version, 0) FROM entries e LEFT JOIN programs p ON p.md5 = e.program "
            "ORDER BY e.last_use DESC");
    int64_t latest = 0;
    std::map<std::string, size_t> byKey;
    while (select.step()) {
        CacheEntryInfo info;
        info.key = select.text(0);
        info.program = select.text(1);
        info.size = static_cast<uint64_t>(select.integer(2));
        info.hits = static_cast<uint64_t>(select.integer(3));
        info.lastUseUs = select.integer(4);
        info.createdUs = select.integer(5);
        info.compilerVersion = static_cast<uint32_t>(select.integer(6));
        latest = std::max(latest, info.lastUseUs);
        byKey[info.key] = list.size();
        list.push_back(std::move(info));
    }
    read.commit();
    // The hits not folded yet count as a fold would count them.
    for (const LoggedHit& hit : pending) {
        auto found = byKey.find(hit.key);
        if (found == byKey.end()) continue;
        CacheEntryInfo& info = list[found->second];
        ++info.hits;
        info.lastUseUs = latest = std::max(hit.timeUs, latest + 1);
    }
    if (!pending.empty()) {
        std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.lastUseUs > b.lastUseUs; });
    }
    return list;
}

CacheTotals SynapCache::totals() {
    std::lock_guard<std::mutex> lock(mutex_);
    db_->clearError();
    Result<HitLog> log = foldForInspection();
    CacheTotals totals;
    SqliteTransaction read(*db_, SqliteTransaction::Kind::READ);
    const std::vector<LoggedHit> pending = log.isOk() ? unfoldedHits(*log) : std::vector<LoggedHit>();
    auto number = [&](const char* sql) -> uint64_t {
        auto statement = db_->prepare(sql);
        return statement.step() ? static_cast<uint64_t>(statement.integer(0)) : 0;
    };
    totals.entries = number("SELECT count(*) FROM entries");
    totals.programs = number("SELECT count(*) FROM programs");
    totals.chunks = number("SELECT count(*) FROM chunks");
    totals.entryBytes =
            number("SELECT COALESCE(SUM(p.size), 0) FROM entries e JOIN programs p ON p.md5 = e.program");
    totals.programBytes = number("SELECT COALESCE(SUM(size), 0) FROM programs");
    totals.storedBytes = number("SELECT COALESCE(SUM(size), 0) FROM chunks");
    totals.hits = number("SELECT COALESCE(SUM(hits), 0) FROM entries");
    auto exists = db_->prepare("SELECT 1 FROM entries WHERE key = ?1");
    for (const LoggedHit& hit : pending) totals.hits += exists.reset().bind(1, hit.key).step() ? 1 : 0;
    const uint64_t pages = number("PRAGMA page_count"), freePages = number("PRAGMA freelist_count");
    totals.fileBytes = (pages - std::min(pages, freePages)) * number("PRAGMA page_size");
    read.commit();
    return totals;
}

CacheVerifyReport SynapCache::verify() {
    std::lock_guard<std::mutex> lock(mutex_);
    db_->clearError();
    CacheVerifyReport report;
    {
        auto check = db_->prepare("PRAGMA quick_check");
        std::string result;
        while (check.step()) result += (result.empty() ? "" : "; ") + check.text(0);
        report.integrity = db_->error().ok() ? result : db_->error().message;
        if (!db_->error().ok()) return report;
    }
    Write write(*this);
    if (!write.active()) {
        report.integrity = db_->error().message;
        return report;
    }
    std::set<std::string> damagedChunks;
    {
        auto chunks = db_->prepare("SELECT md5, size, data FROM chunks");
        while (chunks.step()) {
            size_t size = 0;
            const uint8_t* data = chunks.blob(2, &size);
            ++report.chunks;
            if (size != static_cast<uint64_t>(chunks.integer(1)) || toHex(md5(data, size)) != chunks.text(0)) {
                damagedChunks.insert(chunks.text(0));
            }
        }
    }
    std::vector<std::string> damagedPrograms;
    {
        std::vector<std::tuple<std::string, int64_t, int64_t>> programs;
        auto list = db_->prepare("SELECT md5, size, chunk_count FROM programs");
        while (list.step()) programs.emplace_back(list.text(0), list.integer(1), list.integer(2));
        for (const auto& [program, size, chunkCount] : programs) {
            ++report.programs;
            std::vector<uint8_t> bytes;
            std::string identity;
            bool complete = false;
            int64_t links = 0;
            {
                auto count = db_->prepare("SELECT count(*) FROM program_chunks WHERE program = ?1");
                count.bind(1, program);
                if (count.step()) links = count.integer(0);
            }
            if (!assemble(program, &bytes, &complete, identity) || !complete || links != chunkCount ||
                bytes.size() != static_cast<uint64_t>(size) || identity != program) {
                damagedPrograms.push_back(program);
            }
        }
    }
    const std::vector<std::string> mismatched = entriesNotMatchingTheirKey();
    for (const auto& chunk : damagedChunks) {
        auto remove = db_->prepare("DELETE FROM chunks WHERE md5 = ?1");
        remove.bind(1, chunk).run();
    }
    report.damagedChunks = damagedChunks.size();
    report.damagedPrograms = damagedPrograms.size();
    report.mismatchedEntries = mismatched.size();
    for (const auto& key : mismatched) {
        if (removeEntry(key)) ++report.entriesDropped;
    }
    uint64_t ignored = 0;
    for (const auto& program : damagedPrograms) dropDamagedProgram(program, &report.entriesDropped, &ignored);
    // Entries whose program row is gone entirely are damaged too.
    if (directory_ >= 0) {
        auto keys = db_->prepare("SELECT key FROM entries WHERE program NOT IN (SELECT md5 FROM programs)");
        while (keys.step()) removeEntryIndex(directory_, name_, keys.text(0));
    }
    auto orphans = db_->prepare("DELETE FROM entries WHERE program NOT IN (SELECT md5 FROM programs)");
    if (orphans.run()) report.entriesDropped += static_cast<uint64_t>(db_->changes());
    if (!write.commit()) report.integrity = db_->error().message;
    return report;
}

std::vector<std::string> SynapCache::entriesNotMatchingTheirKey() {
    std::vector<std::string> keys;
    auto list = db_->prepare(
            "SELECT e.key, e.program, e.seal, p.compiler_version FROM entries e JOIN programs p ON p.md5 = e.program");
    while (list.step()) {
        if (list.text(2) != entrySeal(list.text(0), list.text(1), list.integer(3))) keys.push_back(list.text(0));
    }
    return keys;
}

uint64_t SynapCache::evictTo(uint64_t count) {
    std::lock_guard<std::mutex> lock(mutex_);
    db_->clearError();
    uint64_t evicted = 0;
    Write write(*this);
    if (!write.active() || !evictBeyond(count, &evicted) || !write.commit()) return 0;
    return evicted;
}

bool SynapCache::clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    db_->clearError();
    {
        Write write(*this);
        if (!write.active() ||
            !db_->execute("DELETE FROM entries; DELETE FROM program_chunks; DELETE FROM programs; DELETE FROM chunks;") ||
            !write.commit()) {
            return false;
        }
    }
    if (directory_ >= 0) {
        removeEntryIndexes(directory_, name_);
        removeProgramFiles(directory_, name_);
    }
    // Give the space back; another process reading at this moment only makes this a no-op.
    db_->execute("VACUUM");
    db_->execute("PRAGMA wal_checkpoint(TRUNCATE)");
    db_->clearError();
    return true;
}

}  // namespace nnemu::cache
