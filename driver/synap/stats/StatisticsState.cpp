#include "StatisticsState.h"

#include "StatisticsFiles.h"  // processId

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <thread>
#include <type_traits>

namespace nnemu::synap {
namespace {

static_assert(std::is_trivially_copyable_v<StateRecord>);
static_assert(sizeof(StateSlot) == 56 && sizeof(StateRecord) == 224 + kMaxNetworks * sizeof(StateSlot),
              "the record must have no padding");

constexpr const char* kStateName = ".state";
// A holder in its critical section releases within microseconds; one that has not after this
// long is stopped, and the update is skipped rather than inference held up.
constexpr auto kLockBudget = std::chrono::seconds(5);
constexpr auto kStalledLockBudget = std::chrono::milliseconds(100);
constexpr auto kLongestPause = std::chrono::milliseconds(2);

bool allZero(const StateRecord& record) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(&record);
    return std::all_of(bytes, bytes + sizeof record, [](unsigned char byte) { return byte == 0; });
}

std::string damage(const StateRecord& record, ssize_t bytes, off_t fileSize) {
    if (fileSize == 0) return kStateMissing;
    if (bytes < static_cast<ssize_t>(sizeof record) || fileSize < static_cast<off_t>(sizeof record)) return "truncated";
    if (allZero(record)) return "zeroed";
    if (record.magic != kStateMagic) return "not a statistics state";
    if (record.version != kStateVersion || record.size != sizeof record) {
        return "of another format (version " + std::to_string(record.version) + ")";
    }
    if (fileSize != static_cast<off_t>(sizeof record)) return "longer than a statistics state";
    if (record.checksum != stateChecksum(record)) return "damaged (checksum mismatch)";
    for (const StateSlot& slot : record.slots) {
        if (slot.pid < 0 || (slot.pid != 0 && slot.order >= record.nextOrder)) return "inconsistent";
    }
    return "";
}

// UNAVAILABLE with `message`, errno left as the failure set it (the caller reports it).
Status refusal(std::string message) {
    const int err = errno;
    Status status(StatusCode::UNAVAILABLE, std::move(message));
    errno = err;
    return status;
}

}  // namespace

uint64_t stateChecksum(const StateRecord& record) {
    static_assert(sizeof record % 8 == 0 && offsetof(StateRecord, checksum) % 8 == 0);
    constexpr size_t kChecksumWord = offsetof(StateRecord, checksum) / 8;
    const auto* bytes = reinterpret_cast<const unsigned char*>(&record);
    uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a over 64-bit words
    for (size_t i = 0; i < sizeof record / 8; ++i) {
        uint64_t word = 0;
        if (i != kChecksumWord) std::memcpy(&word, bytes + 8 * i, 8);
        hash = (hash ^ word) * 0x100000001b3ull;
        hash ^= hash >> 29;  // word-wise FNV needs the high bits folded back in
    }
    return hash;
}

// Never destroyed: the statistics folder releases this process's networks from an exit handler,
// which may run after static destructors.
const std::string& currentBootId() {
    static const std::string& id = [] () -> const std::string& {
        std::string text;
        std::getline(std::ifstream("/proc/sys/kernel/random/boot_id"), text);
        return *new std::string(text.substr(0, sizeof(StateRecord::bootId) - 1));
    }();
    return id;
}

void initializeState(StateRecord* record) {
    std::memset(static_cast<void*>(record), 0, sizeof *record);
    record->magic = kStateMagic;
    record->version = kStateVersion;
    record->size = sizeof *record;
    std::memcpy(record->bootId, currentBootId().data(), currentBootId().size());
}

StateFile::~StateFile() { close(); }

void StateFile::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

Status StateFile::open(int directory, const std::string& path) {
    // O_NOFOLLOW: a symlink planted as .state is refused; O_NONBLOCK: a FIFO does not block us.
    fd_ = ::openat(directory, kStateName, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd_ < 0) {
        return refusal(path + "/.state" +
                       (errno == ELOOP ? " is a symbolic link; refusing to follow it out of the device root"
                                       : std::string(": ") + std::strerror(errno)));
    }
    owner_ = getpid();
    struct stat info {};
    if (fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode) || info.st_nlink > 1) {
        // A hard link would let the record be written into a file elsewhere.
        Status refused = refusal(path + "/.state is not a regular file of its own (special file or hard link); refusing it");
        close();
        return refused;
    }
    device_ = info.st_dev;
    inode_ = info.st_ino;
    return {};
}

Status StateFile::timedLock(const std::string& path) {
    const auto deadline = std::chrono::steady_clock::now() + (stalled_ ? kStalledLockBudget : kLockBudget);
    auto pause = std::chrono::microseconds(20);
    while (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR) continue;
        if (errno != EWOULDBLOCK) return refusal("cannot lock " + path + "/.state: " + std::strerror(errno));
        if (std::chrono::steady_clock::now() >= deadline) {
            stalled_ = true;
            return refusal(path + "/.state stays locked by a process that does not release it (stopped?); "
                                  "NPU executions go on uncounted until it does");
        }
        std::this_thread::sleep_for(pause);
        pause = std::min<std::chrono::microseconds>(pause * 2, kLongestPause);
    }
    stalled_ = false;
    return {};
}

Status StateFile::lock(int directory, const std::string& path) {
    for (int attempt = 0; attempt < 8; ++attempt) {
        if (fd_ >= 0 && owner_ != processId()) close();
        if (fd_ < 0) NNEMU_RETURN_IF_ERROR(open(directory, path));
        NNEMU_RETURN_IF_ERROR(timedLock(path));
        // The name may have been deleted or replaced while we waited: the lock that counts is the
        // one on the file the name holds now.
        struct stat named {};
        if (fstatat(directory, kStateName, &named, AT_SYMLINK_NOFOLLOW) == 0 && named.st_dev == device_ &&
            named.st_ino == inode_) {
            sizeLocked_ = named.st_size;
            return {};
        }
        flock(fd_, LOCK_UN);
        close();
    }
    return refusal(path + "/.state keeps being replaced; statistics skip this update");
}

void StateFile::unlock() {
    if (fd_ >= 0) flock(fd_, LOCK_UN);
}

std::string StateFile::read(StateRecord* record) {
    std::memset(static_cast<void*>(record), 0, sizeof *record);
    // The size the name showed once locked: only a writer ignoring the lock changes it, and what
    // it cuts off reads short below.
    sizeRead_ = sizeLocked_;
    const ssize_t bytes = pread(fd_, record, sizeof *record, 0);
    return damage(*record, bytes, sizeRead_);
}

bool StateFile::write(StateRecord* record) {
    record->checksum = stateChecksum(*record);
    // The size read under this lock: only a writer ignoring the lock could have changed it since.
    if (sizeRead_ > static_cast<off_t>(sizeof *record)) {
        if (ftruncate(fd_, sizeof *record) != 0) return false;
        sizeRead_ = sizeof *record;
    }
    return pwrite(fd_, record, sizeof *record, 0) == static_cast<ssize_t>(sizeof *record);
}

}  // namespace nnemu::synap
