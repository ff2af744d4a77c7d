#include "HitLog.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <utility>

#include "CacheFile.h"
#include "nnemu/cache/Crc32c.h"

namespace nnemu::cache {
namespace {

constexpr char kHeaderMagic[8] = {'N', 'N', 'E', 'M', 'U', 'H', 'L', '1'};
constexpr char kHitMagic[8] = {'N', 'N', 'E', 'M', 'U', 'H', 'I', 'T'};
constexpr size_t kMaxKey = 64;

struct Record {
    char magic[8];
    int64_t value;  // the header's generation, a hit's time in microseconds
    uint32_t keyLength;
    uint32_t reserved;  // zero
    char key[kMaxKey];
    uint8_t padding[24];  // zero
    uint32_t crc32c[4];   // laneCrc32c of everything above
};
static_assert(sizeof(Record) == kHitLogRecordSize);

Record makeRecord(const char (&magic)[8], int64_t value, const std::string& key) {
    Record record {};
    std::memcpy(record.magic, magic, sizeof record.magic);
    record.value = value;
    record.keyLength = static_cast<uint32_t>(key.size());
    std::memcpy(record.key, key.data(), key.size());
    sealRecord(record);
    return record;
}

bool valid(const Record& record, const char (&magic)[8]) {
    return std::memcmp(record.magic, magic, sizeof record.magic) == 0 && record.keyLength <= kMaxKey &&
           recordSealed(record);
}

int64_t newGeneration() {
    uint64_t generation = 0;
    while (generation == 0) {
        if (getrandom(&generation, sizeof generation, 0) != static_cast<ssize_t>(sizeof generation)) return 0;
    }
    return static_cast<int64_t>(generation >> 1);  // positive, for SQLite's signed integers
}

bool writeRecord(int fd, const Record& record) {
    ssize_t n;
    while ((n = write(fd, &record, sizeof record)) < 0 && errno == EINTR) {
    }
    return n == static_cast<ssize_t>(sizeof record);
}

void lock(int fd, int operation) {
    while (flock(fd, operation) != 0 && errno == EINTR) {
    }
}

// A log holding its header only, under a private name, then linked (`replace`: renamed) into place.
bool createLog(int dir, const std::string& name, bool replace) {
    static std::atomic<unsigned> counter{0};
    const int64_t generation = newGeneration();
    if (generation == 0) return false;
    const std::string temp = "." + name + "." + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".tmp";
    const int fd = openat(dir, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    const bool written = writeRecord(fd, makeRecord(kHeaderMagic, generation, {}));
    close(fd);
    bool placed = false;
    if (written) {
        placed = replace ? renameat(dir, temp.c_str(), dir, name.c_str()) == 0
                         : linkat(dir, temp.c_str(), dir, name.c_str(), 0) == 0 || errno == EEXIST;
    }
    unlinkat(dir, temp.c_str(), 0);
    return placed;
}

}  // namespace

std::string hitLogName(const std::string& databaseName) { return databaseName + ".hits"; }

Result<uint64_t> appendHit(int dir, const std::string& databaseName, const std::string& key, int64_t timeUs) {
    if (key.empty() || key.size() > kMaxKey) return Status(StatusCode::BAD_DATA, "the key does not fit the hit log");
    const std::string name = hitLogName(databaseName);
    const Record record = makeRecord(kHitMagic, timeUs, key);
    for (int attempt = 0; attempt < 4; ++attempt) {
        const int fd = openat(dir, name.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ENOENT && createLog(dir, name, false)) continue;
            if (errno == ELOOP) unlinkat(dir, name.c_str(), 0);  // a planted link goes, never followed
            return unavailable("cannot open the hit log " + name + ": " + std::strerror(errno));
        }
        lock(fd, LOCK_SH);
        struct stat info {};
        if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
            close(fd);
            return unavailable("the hit log " + name + " is not a regular file");
        }
        if (info.st_nlink == 0) {  // replaced by a fold meanwhile: append to the new log
            close(fd);
            continue;
        }
        const bool written = writeRecord(fd, record);
        close(fd);
        if (!written) return unavailable("cannot append to the hit log " + name);
        return static_cast<uint64_t>(info.st_size) / sizeof(Record);  // records before it, less the header, plus it
    }
    return unavailable("the hit log " + name + " keeps being replaced");
}

void createHitLog(int dir, const std::string& databaseName) {
    const std::string name = hitLogName(databaseName);
    struct stat info {};
    if (fstatat(dir, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) createLog(dir, name, false);
}

Result<HitLog> HitLog::open(int dir, const std::string& databaseName, bool exclusive) {
    const std::string name = hitLogName(databaseName);
    for (int attempt = 0; attempt < 4; ++attempt) {
        const int fd = openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ENOENT) return Status(StatusCode::NOT_FOUND, {});
            if (errno == ELOOP && exclusive) unlinkat(dir, name.c_str(), 0);
            return unavailable("cannot open the hit log " + name + ": " + std::strerror(errno));
        }
        lock(fd, exclusive ? LOCK_EX : LOCK_SH);
        struct stat info {};
        if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
            close(fd);
            return unavailable("the hit log " + name + " is not a regular file");
        }
        if (info.st_nlink == 0) {
            close(fd);
            continue;
        }
        HitLog log;
        log.dir_ = dir;
        log.fd_ = fd;
        log.databaseName_ = databaseName;
        return log;
    }
    return unavailable("the hit log " + name + " keeps being replaced");
}

HitLog::HitLog(HitLog&& other) noexcept { *this = std::move(other); }

HitLog& HitLog::operator=(HitLog&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) close(fd_);
        dir_ = other.dir_;
        fd_ = std::exchange(other.fd_, -1);
        databaseName_ = std::move(other.databaseName_);
        bytes_ = std::move(other.bytes_);
        generation_ = other.generation_;
        end_ = other.end_;
        restart_ = other.restart_;
    }
    return *this;
}

HitLog::~HitLog() {
    if (fd_ >= 0) close(fd_);
}

bool HitLog::read() {
    bytes_.clear();
    uint8_t buffer[16384];
    for (;;) {
        const ssize_t n = pread(fd_, buffer, sizeof buffer, static_cast<off_t>(bytes_.size()));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        if (n == 0) break;
        bytes_.insert(bytes_.end(), buffer, buffer + n);
    }
    end_ = bytes_.size() - bytes_.size() % sizeof(Record);
    restart_ = end_ != bytes_.size() || end_ / sizeof(Record) > kHitLogRestartRecords;
    generation_ = 0;
    if (end_ >= sizeof(Record)) {
        Record header {};
        std::memcpy(&header, bytes_.data(), sizeof header);
        if (valid(header, kHeaderMagic) && header.value > 0) generation_ = static_cast<uint64_t>(header.value);
    }
    if (generation_ == 0 && end_ > 0) restart_ = true;
    for (uint64_t at = sizeof(Record); at < end_ && !restart_; at += sizeof(Record)) {
        Record record {};
        std::memcpy(&record, bytes_.data() + at, sizeof record);
        restart_ = !valid(record, kHitMagic);  // damaged: replaced once folded
    }
    return true;
}

std::vector<LoggedHit> HitLog::hitsFrom(uint64_t from) const {
    std::vector<LoggedHit> hits;
    for (uint64_t at = from - from % sizeof(Record); at + sizeof(Record) <= end_; at += sizeof(Record)) {
        Record record {};
        std::memcpy(&record, bytes_.data() + at, sizeof record);
        if (!valid(record, kHitMagic)) continue;  // the header, or a damaged record (the log is then replaced)
        hits.push_back({std::string(record.key, record.keyLength), record.value});
    }
    return hits;
}

bool HitLog::restart() { return fd_ >= 0 && createLog(dir_, hitLogName(databaseName_), true); }

void removeHitLog(int dir, const std::string& databaseName) { unlinkat(dir, hitLogName(databaseName).c_str(), 0); }

}  // namespace nnemu::cache
