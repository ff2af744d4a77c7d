#include "SqliteDatabase.h"

#include <chrono>
#include <thread>

namespace nnemu::cache {
namespace {

SqliteError errorOf(sqlite3* db, int code) {
    SqliteError error;
    error.code = db != nullptr ? sqlite3_extended_errcode(db) : code;
    if (error.code == SQLITE_OK) error.code = code;
    error.message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
    return error;
}

}  // namespace

bool SqliteError::transient() const {
    const int primary = code & 0xFF;
    return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
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

bool SqliteDatabase::open(const std::string& file, int busyTimeoutMs) {
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX;
    const int status = sqlite3_open_v2(file.c_str(), &db_, flags, nullptr);
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
