#include "nnemu/cache/SqliteDatabase.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace nnemu::cache {
namespace {

SqliteError errorOf(sqlite3* db, int code) {
    SqliteError error;
    error.code = db != nullptr ? sqlite3_extended_errcode(db) : code;
    if (error.code == SQLITE_OK) error.code = code;
    error.message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
    error.systemErrno = db != nullptr ? sqlite3_system_errno(db) : 0;
    // The error the last failed system call on the database file or on its WAL met, kept by the
    // file itself (the connection's errno may have been overwritten by a later call, e.g. a
    // rollback's).
    if (db != nullptr && (error.code & 0xFF) != SQLITE_BUSY) {
        int fileErrno = 0;
        sqlite3_file* journal = nullptr;
        if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &journal) == SQLITE_OK &&
            journal != nullptr && journal->pMethods != nullptr) {
            journal->pMethods->xFileControl(journal, SQLITE_FCNTL_LAST_ERRNO, &fileErrno);
        }
        if (fileErrno == 0) sqlite3_file_control(db, "main", SQLITE_FCNTL_LAST_ERRNO, &fileErrno);
        if (fileErrno != 0) error.systemErrno = fileErrno;
    }
    return error;
}

// A URI naming `file` (an absolute path) for sqlite3_open_v2 with SQLITE_OPEN_URI.
std::string uriOf(const std::string& file, const char* query) {
    std::string uri = "file:";
    for (const char c : file) {
        if (c == '%' || c == '?' || c == '#') {
            static const char kHex[] = "0123456789ABCDEF";
            uri += '%';
            uri += kHex[static_cast<unsigned char>(c) >> 4];
            uri += kHex[static_cast<unsigned char>(c) & 15];
        } else {
            uri += c;
        }
    }
    return uri + "?" + query;
}

}  // namespace

bool SqliteError::transient() const {
    const int primary = code & 0xFF;
    return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

bool SqliteError::damage() const {
    const int primary = code & 0xFF;
    return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
}

std::string SqliteError::writeRefusal() const {
    const int primary = code & 0xFF;
    if (primary != SQLITE_FULL && primary != SQLITE_READONLY && primary != SQLITE_IOERR &&
        primary != SQLITE_CANTOPEN && primary != SQLITE_PERM && primary != SQLITE_AUTH) {
        return {};
    }
    switch (systemErrno) {
        case EROFS: case ENOSPC: case EDQUOT: case EFBIG: case EACCES: case EPERM: case EIO:
            return std::strerror(systemErrno);
        default: break;
    }
    if (primary == SQLITE_FULL) return std::strerror(ENOSPC);
    if (primary == SQLITE_READONLY) return "the database is read-only";
    return message;
}

SqliteStatement::SqliteStatement(sqlite3* db, std::string_view sql, SqliteError* error) : db_(db), error_(error) {
    const int status = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &statement_, nullptr);
    if (status != SQLITE_OK) {
        *error_ = errorOf(db_, status);
        sqlite3_finalize(statement_);
        statement_ = nullptr;
    }
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(statement_); }

SqliteStatement& SqliteStatement::bind(int index, int64_t value) {
    if (statement_ != nullptr) sqlite3_bind_int64(statement_, index, value);
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text) {
    if (statement_ != nullptr) {
        sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    }
    return *this;
}

SqliteStatement& SqliteStatement::bindBlob(int index, const void* data, size_t size) {
    if (statement_ != nullptr) {
        sqlite3_bind_blob64(statement_, index, size == 0 ? "" : data, size, SQLITE_TRANSIENT);
    }
    return *this;
}

bool SqliteStatement::step() {
    if (statement_ == nullptr) return false;
    const int status = sqlite3_step(statement_);
    if (status == SQLITE_ROW) return true;
    if (status != SQLITE_DONE) *error_ = errorOf(db_, status);
    return false;
}

bool SqliteStatement::run() {
    if (statement_ == nullptr) return false;
    int status;
    while ((status = sqlite3_step(statement_)) == SQLITE_ROW) {
    }
    if (status != SQLITE_DONE) {
        *error_ = errorOf(db_, status);
        return false;
    }
    return true;
}

SqliteStatement& SqliteStatement::reset() {
    if (statement_ != nullptr) {
        sqlite3_reset(statement_);
        sqlite3_clear_bindings(statement_);
    }
    return *this;
}

int64_t SqliteStatement::integer(int column) const { return sqlite3_column_int64(statement_, column); }

std::string SqliteStatement::text(int column) const {
    const auto* text = sqlite3_column_text(statement_, column);
    return text == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(text));
}

const uint8_t* SqliteStatement::blob(int column, size_t* size) const {
    const auto* data = static_cast<const uint8_t*>(sqlite3_column_blob(statement_, column));
    *size = static_cast<size_t>(sqlite3_column_bytes(statement_, column));
    return data;
}

bool SqliteStatement::isNull(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }

bool SqliteDatabase::open(const std::string& file, int busyTimeoutMs, bool readOnly) {
    const int flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOFOLLOW |
                      SQLITE_OPEN_NOMUTEX;
    int status = sqlite3_open_v2(file.c_str(), &db_, flags, nullptr);
    if (status == SQLITE_OK && readOnly) {
        // A WAL database needs its index file (-shm) to be read; SQLite cannot make it where
        // nothing can be written (CANTOPEN, READONLY) nor size it on a full disk (IOERR_SHMSIZE).
        // Then the file is read as it is: immutable.
        status = sqlite3_exec(db_, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr);
        const int primary = status & 0xFF;
        if (primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY || primary == SQLITE_IOERR) {
            sqlite3_close_v2(db_);
            db_ = nullptr;
            status = sqlite3_open_v2(uriOf(file, "immutable=1").c_str(), &db_, flags | SQLITE_OPEN_URI, nullptr);
        }
    }
    if (status != SQLITE_OK) {
        error_ = errorOf(db_, status);
        sqlite3_close_v2(db_);
        db_ = nullptr;
        return false;
    }
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, busyTimeoutMs);
    // NORMAL syncs at checkpoints only: a crash may lose the last commits, never consistency.
    // (No memory map: a file truncated under a mapping would crash the process instead of
    // failing a query.)
    return execute("PRAGMA synchronous=NORMAL") &&
           execute("PRAGMA cache_size=-16384");  // 16 MiB: a whole program's pages
}

bool SqliteDatabase::integer(std::string_view sql, int64_t* value) {
    auto statement = prepare(sql);
    if (!statement.step()) {
        if (error_.ok()) fail(SQLITE_ERROR, std::string(sql) + " returned nothing");
        return false;
    }
    *value = statement.integer(0);
    return true;
}

bool SqliteDatabase::switchToWal(int timeoutMs) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (!execute("PRAGMA journal_mode=WAL")) {
        if (!error_.transient() || std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

void SqliteDatabase::keepLogOnClose() {
    if (db_ == nullptr) return;
    sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    // Replaces SQLite's automatic checkpoint (the same hook): a passive checkpoint by a process
    // that is the log's only connection never lets the log restart, since the next process
    // rebuilds the log's index without knowing the frames were copied. Each later process then
    // copied and synced the whole, ever longer log again at its hit count, and read it all back
    // at its open. The owner restarts the log instead (SynapCache::restartLogIfLong).
    sqlite3_wal_hook(
            db_,
            [](void* self, sqlite3*, const char*, int frames) {
                static_cast<SqliteDatabase*>(self)->walFrames_ = frames;
                return SQLITE_OK;
            },
            this);
}

SqliteDatabase::~SqliteDatabase() { sqlite3_close_v2(db_); }

bool SqliteDatabase::execute(std::string_view sql) {
    char* message = nullptr;
    const int status = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &message);
    if (status != SQLITE_OK) {
        error_ = errorOf(db_, status);
        if (message != nullptr) error_.message = message;
        sqlite3_free(message);
        return false;
    }
    return true;
}

SqliteTransaction::SqliteTransaction(SqliteDatabase& db, Kind kind) : db_(db) {
    active_ = db_.execute(kind == Kind::WRITE ? "BEGIN IMMEDIATE" : "BEGIN");
}

SqliteTransaction::~SqliteTransaction() {
    if (active_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

bool SqliteTransaction::commit() {
    if (!active_) return false;
    active_ = false;
    if (db_.execute("COMMIT")) return true;
    sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    return false;
}

}  // namespace nnemu::cache
