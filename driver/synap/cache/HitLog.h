// The SyNAP cache's hit log ("<database name>.hits", mode 0600, beside the database): a hit
// found through an entry index (EntryIndex.h) is counted by appending one fixed-size record (the
// key and the time) with one O_APPEND write under a shared flock, instead of a write
// transaction. The next write transaction of any process folds the records into the database in
// their order (each one counts a hit and makes its entry the most recent use, as a counted hit
// does; a record whose entry is gone is dropped), and so does synap_cache when it lists or
// reports (a read-only view adds them without writing).
//
// Exactly once, across processes and crashes: the log starts with a header holding a random
// generation, and the database keeps (generation, offset) of what it folded, committed with the
// counts; a fold applies only the records past that offset of the same generation, under the
// exclusive flock (so no record is appended while it reads). A log grown past kHitLogRestartRecords
// records is replaced by an empty one of a new generation once the fold has committed, still under
// the exclusive lock (so it holds nothing unfolded); an appender that finds its file replaced
// (no link left) appends to the new one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nnemu/base/Status.h"

namespace nnemu::cache {

// Bytes of a record (the header is one).
inline constexpr uint64_t kHitLogRecordSize = 128;
// A process whose append leaves this many hit records in the log folds it (taking the write path).
inline constexpr uint64_t kHitLogFoldRecords = 256;
// A fold that finds this many records (or a damaged record) replaces the log after its commit.
inline constexpr uint64_t kHitLogRestartRecords = 64;

std::string hitLogName(const std::string& databaseName);

// Appends a hit of `key` at `timeUs` (the log is created, header first, when there is none).
// Returns how many hit records the log holds after it.
Result<uint64_t> appendHit(int dir, const std::string& databaseName, const std::string& key, int64_t timeUs);

// Creates the log (its header only) when there is none, so that the first hit does not pay for it.
void createHitLog(int dir, const std::string& databaseName);

struct LoggedHit {
    std::string key;
    int64_t timeUs = 0;
};

// The log, open and locked (shared or exclusive) until destroyed.
class HitLog {
public:
    // NOT_FOUND when there is no log; an error when it cannot be used.
    static Result<HitLog> open(int dir, const std::string& databaseName, bool exclusive);
    HitLog(HitLog&& other) noexcept;
    HitLog& operator=(HitLog&& other) noexcept;
    ~HitLog();

    // Reads the log: its generation (0 without a valid header) and byte length.
    bool read();
    uint64_t generation() const { return generation_; }
    uint64_t end() const { return end_; }
    // Whether the log should be replaced after the fold (long, or holding damaged records).
    bool wantsRestart() const { return restart_; }
    // The valid hit records at offsets >= `from`, in order.
    std::vector<LoggedHit> hitsFrom(uint64_t from) const;
    // Replaces the log by an empty one of a new generation (exclusive lock only).
    bool restart();

private:
    HitLog() = default;
    int dir_ = -1;
    int fd_ = -1;
    std::string databaseName_;
    std::vector<uint8_t> bytes_;
    uint64_t generation_ = 0;
    uint64_t end_ = 0;
    bool restart_ = false;
};

// Removes the log of the database `databaseName`.
void removeHitLog(int dir, const std::string& databaseName);

}  // namespace nnemu::cache
