// A thin RAII layer over the SQLite C API for the cache: one connection, prepared statements
// with typed binds and columns, and transactions that roll back unless committed. Failures
// carry SQLite's extended result code so callers can tell a busy database from a broken one.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nnemu::cache {

class SqliteError {
public:
    int code = SQLITE_OK;  // extended result code
    std::string message;
    int systemErrno = 0;  // the operating system's error behind it (sqlite3_system_errno), if any

    bool ok() const { return code == SQLITE_OK; }
    // Another process holds the lock beyond the busy timeout: worth retrying later.
    bool transient() const;
    // The database file's own content is damaged (corrupt, not a database).
    bool damage() const;
    // What refused a write, named by its cause ("No space left on device", "Read-only file
    // system", ...); empty when the failure is not a refused write (busy, damage, misuse).
    std::string writeRefusal() const;
};

class SqliteStatement {
public:
    SqliteStatement(sqlite3* db, std::string_view sql, SqliteError* error);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;

    bool valid() const { return statement_ != nullptr; }
    SqliteStatement& bind(int index, int64_t value);
    SqliteStatement& bind(int index, std::string_view text);
    SqliteStatement& bindBlob(int index, const void* data, size_t size);
    // One step: true while a row is available; false when done or failed (see `error`).
    bool step();
    bool run();  // steps to the end; false on failure
    // Makes the statement ready to bind and run again (prepared once, run per row).
    SqliteStatement& reset();
    int64_t integer(int column) const;
    std::string text(int column) const;
    // A view of a blob column, valid until the next step.
    const uint8_t* blob(int column, size_t* size) const;
    bool isNull(int column) const;

private:
    sqlite3* db_;
    sqlite3_stmt* statement_ = nullptr;
    SqliteError* error_;
};

class SqliteDatabase {
public:
    // Opens the existing `file` read-write: never creates it, refuses a path with a symbolic link
    // anywhere in it (SQLITE_OPEN_NOFOLLOW), and writes nothing (only connection settings: a busy
    // timeout, syncs at checkpoints, the page cache size). `readOnly` opens it read-only, for a
    // file or directory that cannot be written: where SQLite cannot make its WAL index beside the
    // file (a read-only file system, a directory without write permission), the file is opened
    // immutable (no locks, no WAL: only the committed database file is read).
    bool open(const std::string& file, int busyTimeoutMs, bool readOnly = false);
    ~SqliteDatabase();
    SqliteDatabase() = default;
    SqliteDatabase(const SqliteDatabase&) = delete;
    SqliteDatabase& operator=(const SqliteDatabase&) = delete;

    // Closing leaves the write-ahead log as it is instead of checkpointing it into the file (the
    // last connection's close would otherwise copy it and sync both files), and commits no longer
    // checkpoint by themselves: the owner reads walFrames() after its writes and restarts the log
    // when it has grown (see SynapCache::restartLogIfLong).
    void keepLogOnClose();
    // Frames in the write-ahead log after this connection's last commit (0 before any; counted
    // once keepLogOnClose is set).
    int walFrames() const { return walFrames_; }
    sqlite3* handle() const { return db_; }
    bool execute(std::string_view sql);
    // The first column of the first row of `sql` (a pragma, a count); false on failure.
    bool integer(std::string_view sql, int64_t* value);
    // Switches to the WAL journal. SQLite upgrades a read to a write transaction for it, which
    // fails at once (no busy handler) while another connection reads, so this retries until
    // `timeoutMs` has passed.
    bool switchToWal(int timeoutMs);
    SqliteStatement prepare(std::string_view sql) { return SqliteStatement(db_, sql, &error_); }
    int64_t changes() const { return sqlite3_changes64(db_); }

    const SqliteError& error() const { return error_; }
    void clearError() { error_ = {}; }
    // Records a failure that is not SQLite's own (e.g. a damaged schema).
    void fail(int code, std::string message) { error_ = {code, std::move(message)}; }

private:
    sqlite3* db_ = nullptr;
    SqliteError error_;
    int walFrames_ = 0;
};

// BEGIN IMMEDIATE (writers) or BEGIN (readers); rolls back on destruction unless committed.
class SqliteTransaction {
public:
    enum class Kind { READ, WRITE };
    SqliteTransaction(SqliteDatabase& db, Kind kind);
    ~SqliteTransaction();
    bool active() const { return active_; }
    bool commit();

private:
    SqliteDatabase& db_;
    bool active_ = false;
};

}  // namespace nnemu::cache
