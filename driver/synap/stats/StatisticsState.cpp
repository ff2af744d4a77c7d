#include "StatisticsState.h"

#include "MappedGuard.h"
#include "StatisticsFiles.h"  // processId

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
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
static_assert(sizeof(StateSlot) == 56 && sizeof(StateRecord) == 144 + kMaxNetworks * sizeof(StateSlot),
              "the record must have no padding");
static_assert(offsetof(StateRecord, lock) % 8 == 0 && offsetof(StateRecord, bootId) == offsetof(StateRecord, lock) + 8);

constexpr const char* kStateName = ".state";
constexpr size_t kMapBytes = (sizeof(StateRecord) + 4095) & ~size_t{4095};
// A holder's whole update takes microseconds; one acquisition held this long is stopped or
// belongs to a copy of the file.
constexpr auto kLockBudget = std::chrono::seconds(5);
constexpr auto kLongestPause = std::chrono::milliseconds(2);
constexpr size_t kDataOffset = offsetof(StateRecord, bootId);

bool allZero(const void* data, size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    return std::all_of(bytes, bytes + size, [](unsigned char byte) { return byte == 0; });
}

// UNAVAILABLE with `message`, errno left as the failure set it (the caller reports it).
Status refusal(std::string message) {
    const int err = errno;
    Status status(StatusCode::UNAVAILABLE, std::move(message));
    errno = err;
    return status;
}

std::atomic_ref<uint64_t> lockWord(StateRecord* map) { return std::atomic_ref<uint64_t>(map->lock); }

bool holderGone(uint64_t word) {
    const pid_t holder = static_cast<pid_t>(word >> 32);
    return holder <= 0 || holder == processId() || (kill(holder, 0) != 0 && errno == ESRCH);
}

}  // namespace

std::string stateDamage(const StateRecord& record) {
    if (record.magic != kStateMagic) return allZero(&record, sizeof record) ? "zeroed" : "not a statistics state";
    if (record.version != kStateVersion || record.size != sizeof record) {
        return "of another format (version " + std::to_string(record.version) + ")";
    }
    static constexpr StateSlot kFree{};
    for (const StateSlot& slot : record.slots) {
        if (slot.pid < 0 || (slot.pid != 0 && slot.order >= record.nextOrder) ||
            (slot.pid == 0 && std::memcmp(&slot, &kFree, sizeof slot) != 0)) {
            return "inconsistent (torn)";
        }
    }
    for (const char* text : record.published) {
        if (std::memchr(text, '\0', sizeof record.published[0]) == nullptr) return "inconsistent (torn)";
    }
    return "";
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

StateMap::~StateMap() { close(); }

void StateMap::close() {
    if (map_ != nullptr && owner_ == processId()) munmap(map_, kMapBytes);
    map_ = nullptr;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    token_ = 0;
}

// A missing .state is made whole under a name of this process's (.state.<pid>.tmp) and renamed
// into place unless another process got there first: no process ever maps a .state that is not a
// statistics state yet (processes starting together on a fresh root would each rebuild it).
// `*lost`: `witness` (a file only a process holding a state publishes) was there just before:
// a state existed and is gone. Checked here, not later: once .state has its name, other
// processes may publish the witness before this one looks.
static bool createInitialized(int directory, const char* witness, bool* lost) {
    const std::string temporary = std::string(kStateName) + "." + std::to_string(processId()) + ".tmp";
    unlinkat(directory, temporary.c_str(), 0);  // a leftover of a killed process with our pid
    const int fd = ::openat(directory, temporary.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return false;  // open() below reports what is wrong with the folder
    StateRecord record;
    initializeState(&record);
    const bool written = pwrite(fd, &record, sizeof record, 0) == static_cast<ssize_t>(sizeof record);
    ::close(fd);
    struct stat seen {};
    *lost = witness != nullptr && fstatat(directory, witness, &seen, AT_SYMLINK_NOFOLLOW) == 0;
    if (!written || renameat2(directory, temporary.c_str(), directory, kStateName, RENAME_NOREPLACE) != 0) {
        unlinkat(directory, temporary.c_str(), 0);
        return false;
    }
    return true;
}

Status StateMap::open(int directory, const std::string& path, bool mapped, const char* witness) {
    close();
    // O_NOFOLLOW: a symlink planted as .state is refused; O_NONBLOCK: a FIFO does not block us.
    fd_ = ::openat(directory, kStateName, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    bool made = false;
    madeWhereLost_ = false;
    if (fd_ < 0 && errno == ENOENT) {
        made = createInitialized(directory, witness, &madeWhereLost_);
        fd_ = ::openat(directory, kStateName, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    }
    if (fd_ < 0) {
        return refusal(path + "/.state" +
                       (errno == ELOOP ? " is a symbolic link; refusing to follow it out of the device root"
                                       : std::string(": ") + std::strerror(errno)));
    }
    struct stat info {};
    if (fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode) || info.st_nlink > 1) {
        // A hard link would let the record be written into a file elsewhere.
        Status refused = refusal(path + "/.state is not a regular file of its own (special file or hard link); refusing it");
        close();
        return refused;
    }
    openDamage_ = made ? kStateMissing : "";  // made here: fresh, and whole (StatisticsFolder::load)
    if (info.st_size != static_cast<off_t>(sizeof(StateRecord))) {
        openDamage_ = info.st_size == 0                                        ? kStateMissing
                      : info.st_size < static_cast<off_t>(sizeof(StateRecord)) ? "truncated"
                                                                               : "longer than a statistics state";
        if (ftruncate(fd_, sizeof(StateRecord)) != 0) {
            Status refused = refusal("cannot write " + path + "/.state: " + std::strerror(errno));
            close();
            return refused;
        }
    }
    if (const int failed = posix_fallocate(fd_, 0, sizeof(StateRecord)); failed != 0 && failed != EOPNOTSUPP) {
        errno = failed;
        Status refused = refusal("cannot write " + path + "/.state: " + std::strerror(failed));
        close();
        return refused;
    }
    device_ = info.st_dev;
    inode_ = info.st_ino;
    owner_ = processId();
    if (!mapped) return {};
    void* map = mmap(nullptr, kMapBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (map == MAP_FAILED) {
        Status refused = refusal("cannot map " + path + "/.state: " + std::strerror(errno));
        close();
        return refused;
    }
    map_ = static_cast<StateRecord*>(map);
    return {};
}

bool StateMap::current(int directory) const {
    struct stat named {};
    return fd_ >= 0 && owner_ == processId() &&
           fstatat(directory, kStateName, &named, AT_SYMLINK_NOFOLLOW) == 0 && named.st_dev == device_ &&
           named.st_ino == inode_ && named.st_size == static_cast<off_t>(sizeof(StateRecord)) && named.st_nlink == 1;
}

std::string StateMap::takeOpenDamage() {
    std::string damage;
    damage.swap(openDamage_);
    return damage;
}

// Through the FUSE view: the kernel's lock, dropped when its holder exits; a stopped holder
// costs one wait of 5 s, after which the update goes on unlocked.
StateMap::Locked StateMap::lockFile() {
    const auto deadline = std::chrono::steady_clock::now() + kLockBudget;
    while (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR) continue;
        if (errno != EWOULDBLOCK) return Locked::YES;  // no locks here: the update goes on unlocked
        if (std::chrono::steady_clock::now() >= deadline) return Locked::TAKEN_OVER;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    token_ = 1;
    return Locked::YES;
}

StateMap::Locked StateMap::lock() {
    if (map_ == nullptr) return lockFile();
    const uint64_t mine = (static_cast<uint64_t>(processId()) << 32) | ++acquisitions_;
    uint64_t seen = 0;  // the holder's word, and since when we have seen it unchanged
    auto seenSince = std::chrono::steady_clock::time_point();
    auto pause = std::chrono::microseconds(20);
    bool takenOver = false;
    for (int round = 0;; ++round) {
        uint64_t word = 0;
        bool acquired = false;
        bool ours = true;  // a record of this format: in any other, the word is no lock of ours
        const bool reached = guarded([&] {
            ours = map_->magic == kStateMagic && map_->version == kStateVersion;
            auto lock = lockWord(map_);
            for (int spin = 0; spin < 64 && !acquired; ++spin) {
                word = 0;
                acquired = lock.compare_exchange_strong(word, mine, std::memory_order_acquire);
                if (!acquired) __builtin_ia32_pause();
            }
        });
        if (!reached) return Locked::FAULT;
        if (acquired) break;
        const auto now = std::chrono::steady_clock::now();
        if (word != seen || round == 0) {
            seen = word;
            seenSince = now;
        }
        // A dead holder at once; a live one that keeps one acquisition past the budget, too.
        const bool stale = !ours || (round >= 1 && holderGone(word)) || now - seenSince >= kLockBudget;
        if (stale) {
            bool swapped = false;
            if (!guarded([&] { swapped = lockWord(map_).compare_exchange_strong(word, mine, std::memory_order_acquire); })) {
                return Locked::FAULT;
            }
            if (swapped) {
                takenOver = ours && !holderGone(word);
                break;
            }
            continue;
        }
        if (round < 4) {
            sched_yield();
        } else {
            std::this_thread::sleep_for(pause);
            pause = std::min<std::chrono::microseconds>(pause * 2, kLongestPause);
        }
    }
    token_ = mine;
    return takenOver ? Locked::TAKEN_OVER : Locked::YES;
}

void StateMap::unlock() {
    if (token_ != 0 && map_ == nullptr) flock(fd_, LOCK_UN);
    if (token_ == 0 || map_ == nullptr) return token_ = 0, void();
    uint64_t expected = token_;
    guarded([&] { lockWord(map_).compare_exchange_strong(expected, 0, std::memory_order_release); });
    token_ = 0;
}

bool StateMap::load(StateRecord* record) {
    if (map_ == nullptr) return pread(fd_, record, sizeof *record, 0) == static_cast<ssize_t>(sizeof *record);
    return guarded([&] { std::memcpy(static_cast<void*>(record), map_, sizeof *record); });
}

bool StateMap::store(const StateRecord& record) {
    if (map_ == nullptr) return pwrite(fd_, &record, sizeof record, 0) == static_cast<ssize_t>(sizeof record);
    return guarded([&] {
        if (lockWord(map_).load(std::memory_order_relaxed) != token_) return;  // taken over meanwhile
        std::memcpy(reinterpret_cast<char*>(map_) + kDataOffset, reinterpret_cast<const char*>(&record) + kDataOffset,
                    sizeof record - kDataOffset);
        std::memcpy(map_, &record, offsetof(StateRecord, lock));  // the header (a rebuild writes it)
    });
}

}  // namespace nnemu::synap
