#include "Statistics.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "nnemu/hal/Log.h"
#include "nnemu/props/Properties.h"

namespace nnemu::synap {
namespace {

constexpr const char* kAndroidStatisticsDir = "/sys/class/misc/synap/device/misc/synap/statistics";
constexpr const char* kYoctoStatisticsLink = "/sys/class/misc/synap/statistics";
constexpr uint32_t kMagic = 0x5354504e;  // "NPTS"
constexpr uint32_t kStateVersion = 1;
constexpr int kMaxNetworks = 128;
constexpr size_t kPageSize = 4096;  // `networks` is one sysfs page at most
constexpr int64_t kPruneIntervalNs = 100'000'000;

struct Slot {
    int32_t pid;  // 0: free
    uint32_t nid;
    uint64_t order;  // allocation sequence: processes appear in the order they first loaded a network
    uint64_t count;
    uint64_t timeUs;
    uint32_t lastUs;
    int32_t iobufCount;
    int64_t iobufSize;
    int32_t layers;
    uint32_t profiling;
};

struct SharedState {
    uint32_t magic;
    uint32_t version;
    pthread_mutex_t mutex;
    uint64_t totalCount;
    uint64_t totalTimeUs;
    uint64_t nextOrder;
    int64_t lastPruneNs;
    // What this emulation last wrote, to notice a reset written by someone else.
    char writtenCount[24];
    char writtenTime[24];
    uint32_t lengths[4];
    Slot slots[kMaxNetworks];
};

enum FileIndex { COUNT, TIME, NETWORKS, PROFILE };
constexpr const char* kFileNames[4] = {"inference_count", "inference_time", "networks", "network_profile"};

int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
}

// The statistics folder of one device root, shared with every process that uses it.
class StatisticsFolder {
public:
    static StatisticsFolder* get() {
        static StatisticsFolder* folder = [] {
            auto* created = new StatisticsFolder();  // never destroyed: outlives every network
            if (!created->open()) {
                delete created;
                return static_cast<StatisticsFolder*>(nullptr);
            }
            std::atexit([] { get()->releaseOwnNetworks(); });
            return created;
        }();
        return folder;
    }

    class Lock {
    public:
        explicit Lock(SharedState* state) : state_(state) {
            if (pthread_mutex_lock(&state_->mutex) == EOWNERDEAD) pthread_mutex_consistent(&state_->mutex);
        }
        ~Lock() { pthread_mutex_unlock(&state_->mutex); }

    private:
        SharedState* state_;
    };

    SharedState* state() { return state_; }

    int32_t allocate(uint32_t iobufCount, uint64_t iobufBytes, uint32_t layers, bool profiling) {
        Lock lock(state_);
        const int32_t pid = getpid();
        uint32_t nid = 1;  // the lowest id this process does not use, like the kernel's idr
        for (bool taken = true; taken; ) {
            taken = false;
            for (const Slot& slot : state_->slots) {
                if (slot.pid == pid && slot.nid == nid) {
                    taken = true;
                    ++nid;
                }
            }
        }
        for (int32_t i = 0; i < kMaxNetworks; ++i) {
            Slot& slot = state_->slots[i];
            if (slot.pid != 0) continue;
            slot = Slot{pid, nid, state_->nextOrder++, 0, 0, 0, static_cast<int32_t>(iobufCount),
                        static_cast<int64_t>(iobufBytes), profiling ? static_cast<int32_t>(layers) : 0,
                        profiling ? 1u : 0u};
            publish();
            return i;
        }
        NN_LOG(WARNING) << "synap-npu: more than " << kMaxNetworks << " networks loaded; not listed in statistics";
        return -1;
    }

    void release(int32_t index) {
        if (released_) return;
        Lock lock(state_);
        removeProfile(state_->slots[index]);
        state_->slots[index].pid = 0;
        publish();
    }

    void record(int32_t index, uint64_t timeUs) {
        Lock lock(state_);
        noticeReset();  // before counting this inference, which then counts from zero
        state_->totalCount++;
        state_->totalTimeUs += timeUs;
        if (index >= 0) {
            Slot& slot = state_->slots[index];
            slot.count++;
            slot.timeUs += timeUs;
            slot.lastUs = static_cast<uint32_t>(std::min<uint64_t>(timeUs, UINT32_MAX));
        }
        publish();
    }

    void recordProfile(int32_t index, const std::string& table) {
        Lock lock(state_);
        std::ofstream(profilePath(state_->slots[index]), std::ios::trunc) << table;
        publish();
    }

private:
    bool open() {
        std::error_code error;
        dir_ = props::devicePath(kAndroidStatisticsDir);
        std::filesystem::create_directories(dir_ + "/.profiles", error);
        const std::string link = props::devicePath(kYoctoStatisticsLink);
        if (!std::filesystem::is_symlink(link, error)) {
            std::filesystem::create_directory_symlink("device/misc/synap/statistics", link, error);
        }
        const int stateFd = ::open((dir_ + "/.state").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (stateFd < 0) return warn("cannot open the statistics state under " + dir_);
        flock(stateFd, LOCK_EX);  // one process initializes the shared state
        struct stat info {};
        fstat(stateFd, &info);
        if (static_cast<size_t>(info.st_size) < sizeof(SharedState) && ftruncate(stateFd, sizeof(SharedState)) != 0) {
            flock(stateFd, LOCK_UN);
            ::close(stateFd);
            return warn("cannot size the statistics state under " + dir_);
        }
        void* mapping = mmap(nullptr, sizeof(SharedState), PROT_READ | PROT_WRITE, MAP_SHARED, stateFd, 0);
        if (mapping == MAP_FAILED) {
            flock(stateFd, LOCK_UN);
            ::close(stateFd);
            return warn("cannot map the statistics state under " + dir_);
        }
        state_ = static_cast<SharedState*>(mapping);
        if (state_->magic != kMagic || state_->version != kStateVersion) initializeState();
        for (int i = 0; i < 4; ++i) {
            fds_[i] = ::open((dir_ + "/" + kFileNames[i]).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, i == PROFILE ? 0444 : 0644);
            if (fds_[i] < 0) {
                flock(stateFd, LOCK_UN);
                ::close(stateFd);
                return warn("cannot open " + dir_ + "/" + kFileNames[i]);
            }
        }
        {
            Lock lock(state_);
            publish();
        }
        flock(stateFd, LOCK_UN);
        ::close(stateFd);
        return true;
    }

    void initializeState() {
        std::memset(static_cast<void*>(state_), 0, sizeof(SharedState));
        pthread_mutexattr_t attributes;
        pthread_mutexattr_init(&attributes);
        pthread_mutexattr_setpshared(&attributes, PTHREAD_PROCESS_SHARED);
        pthread_mutexattr_setrobust(&attributes, PTHREAD_MUTEX_ROBUST);
        pthread_mutex_init(&state_->mutex, &attributes);
        pthread_mutexattr_destroy(&attributes);
        state_->version = kStateVersion;
        state_->magic = kMagic;
    }

    static bool warn(const std::string& message) {
        NN_LOG(WARNING) << "synap-npu: " << message << "; statistics are off (" << std::strerror(errno) << ")";
        return false;
    }

    std::string profilePath(const Slot& slot) const {
        return dir_ + "/.profiles/" + std::to_string(slot.pid) + "." + std::to_string(slot.nid);
    }
    void removeProfile(const Slot& slot) const {
        if (slot.profiling) ::unlink(profilePath(slot).c_str());
    }

    // A write to inference_count or inference_time by anyone else clears both totals and every
    // network's counters, as on the board.
    void noticeReset() {
        char count[24] = {}, time[24] = {};
        const ssize_t countLength = pread(fds_[COUNT], count, sizeof count - 1, 0);
        const ssize_t timeLength = pread(fds_[TIME], time, sizeof time - 1, 0);
        if (countLength == static_cast<ssize_t>(state_->lengths[COUNT]) &&
            std::memcmp(count, state_->writtenCount, state_->lengths[COUNT]) == 0 &&
            timeLength == static_cast<ssize_t>(state_->lengths[TIME]) &&
            std::memcmp(time, state_->writtenTime, state_->lengths[TIME]) == 0) {
            return;
        }
        state_->totalCount = 0;
        state_->totalTimeUs = 0;
        for (Slot& slot : state_->slots) {
            slot.count = 0;
            slot.timeUs = 0;
            slot.lastUs = 0;
        }
    }

    // Networks of processes that died without unloading them disappear.
    void pruneExitedProcesses() {
        const int64_t now = nowNs();
        if (now - state_->lastPruneNs < kPruneIntervalNs) return;
        state_->lastPruneNs = now;
        const int32_t self = getpid();
        for (Slot& slot : state_->slots) {
            if (slot.pid != 0 && slot.pid != self && kill(slot.pid, 0) != 0 && errno == ESRCH) {
                removeProfile(slot);
                slot.pid = 0;
            }
        }
    }

    void write(FileIndex file, const std::string& content) {
        if (pwrite(fds_[file], content.data(), content.size(), 0) < 0) return;
        if (content.size() < state_->lengths[file]) {
            if (ftruncate(fds_[file], static_cast<off_t>(content.size())) != 0) return;
        }
        state_->lengths[file] = static_cast<uint32_t>(content.size());
    }

    // Rewrites the four files from the shared state (the caller holds the lock).
    void publish() {
        noticeReset();
        pruneExitedProcesses();
        char number[24];
        std::snprintf(number, sizeof number, "%" PRIu64 "\n", state_->totalCount);
        std::memcpy(state_->writtenCount, number, sizeof number);
        write(COUNT, number);
        std::snprintf(number, sizeof number, "%" PRIu64 "\n", state_->totalTimeUs);
        std::memcpy(state_->writtenTime, number, sizeof number);
        write(TIME, number);

        std::vector<const Slot*> loaded;
        for (const Slot& slot : state_->slots) {
            if (slot.pid != 0) loaded.push_back(&slot);
        }
        auto processOrder = [&](int32_t pid) {
            uint64_t first = UINT64_MAX;
            for (const Slot* slot : loaded) {
                if (slot->pid == pid) first = std::min(first, slot->order);
            }
            return first;
        };
        std::sort(loaded.begin(), loaded.end(), [&](const Slot* a, const Slot* b) {
            const uint64_t pa = processOrder(a->pid), pb = processOrder(b->pid);
            return pa != pb ? pa < pb : a->nid < b->nid;
        });
        std::string networks, profile;
        for (const Slot* slot : loaded) {
            const std::string line = networkLine(static_cast<uint64_t>(slot->pid), slot->nid, slot->count,
                                                 slot->timeUs, slot->lastUs, slot->iobufCount, slot->iobufSize,
                                                 slot->layers);
            if (networks.size() + line.size() <= kPageSize) networks += line;
            profile += line;
            if (slot->profiling) {
                std::ifstream table(profilePath(*slot));
                profile.append(std::istreambuf_iterator<char>(table), std::istreambuf_iterator<char>());
            }
        }
        write(NETWORKS, networks);
        write(PROFILE, profile);
    }

    void releaseOwnNetworks() {
        Lock lock(state_);
        const int32_t self = getpid();
        for (Slot& slot : state_->slots) {
            if (slot.pid == self) {
                removeProfile(slot);
                slot.pid = 0;
            }
        }
        publish();
        released_ = true;
    }

    std::string dir_;
    SharedState* state_ = nullptr;
    int fds_[4] = {-1, -1, -1, -1};
    bool released_ = false;
};

}  // namespace

std::string networkLine(uint64_t pid, uint32_t nid, uint64_t count, uint64_t timeUs, uint32_t lastUs,
                        int32_t iobufCount, int64_t iobufSize, int32_t layers) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "pid: %" PRIu64 ", nid: %u, inference_count: %" PRIu64 ", inference_time: %" PRIu64
                  ", inference_last: %u, iobuf_count: %d, iobuf_size: %" PRId64 ", layers: %d\n",
                  pid, nid, count, timeUs, lastUs, iobufCount, iobufSize, layers);
    return line;
}

std::string profileTable(const std::vector<LayerProfile>& layers) {
    std::string table = "| lyr |    cycle | time_us |  byte_rd |  byte_wr | ot | name\n";
    char row[160];
    for (size_t i = 0; i < layers.size(); ++i) {
        const LayerProfile& layer = layers[i];
        std::snprintf(row, sizeof row, "|%4d |%9d |%8d |%9d |%9d |%3s | %.63s\n", static_cast<int>(i),
                      static_cast<int>(std::min<uint64_t>(uint64_t{layer.timeUs} * kNpuClockMhz, INT32_MAX)),
                      static_cast<int>(layer.timeUs), static_cast<int>(std::min<uint64_t>(layer.bytesRead, INT32_MAX)),
                      static_cast<int>(std::min<uint64_t>(layer.bytesWritten, INT32_MAX)), layer.opType,
                      layer.name.c_str());
        table += row;
    }
    return table;
}

NetworkStatistics::NetworkStatistics(uint32_t iobufCount, uint64_t iobufBytes, uint32_t layers, bool profiling)
    : profiling_(profiling) {
    if (auto* folder = StatisticsFolder::get()) slot_ = folder->allocate(iobufCount, iobufBytes, layers, profiling);
}

NetworkStatistics::~NetworkStatistics() {
    if (slot_ >= 0) StatisticsFolder::get()->release(slot_);
}

void NetworkStatistics::recordInference(uint64_t timeUs) {
    if (auto* folder = StatisticsFolder::get()) folder->record(slot_, timeUs);
}

void NetworkStatistics::recordProfile(const std::vector<LayerProfile>& layers) {
    if (slot_ >= 0 && profiling_) StatisticsFolder::get()->recordProfile(slot_, profileTable(layers));
}

}  // namespace nnemu::synap
