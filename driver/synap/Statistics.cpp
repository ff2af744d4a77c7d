#include "Statistics.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "StatisticsFiles.h"
#include "StatisticsState.h"
#include "nnemu/base/RootedFile.h"
#include "nnemu/base/Log.h"
#include "nnemu/props/Properties.h"

namespace nnemu::synap {
namespace {

constexpr const char* kStatisticsDir = "/sys/class/misc/synap/device/misc/synap/statistics";
constexpr const char* kYoctoLinkDir = "/sys/class/misc/synap";  // its `statistics` links to the folder
constexpr const char* kYoctoLinkTarget = "device/misc/synap/statistics";
constexpr const char* kProfilesName = ".profiles";  // 0700, tables 0600: only the driver reads them
constexpr size_t kPageSize = 4096;                  // `networks` is one sysfs page at most
constexpr size_t kMaxProfileBytes = 1 << 20;
constexpr int64_t kPruneIntervalNs = 100'000'000;
enum FileIndex { COUNT, TIME, NETWORKS, PROFILE };
struct VisibleFile {
    const char* name;
    mode_t mode;  // the kernel's: totals and networks 0644, network_profile read-only
};
constexpr VisibleFile kFiles[4] = {
        {"inference_count", 0644}, {"inference_time", 0644}, {"networks", 0644}, {"network_profile", 0444}};

int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
}

// A network this process has loaded.
struct LocalNetwork {
    pid_t owner;  // a forked child does not own its parent's networks
    uint32_t iobufCount;
    uint64_t iobufBytes;
    uint32_t layers;
    bool profiling;
};

// The statistics folder of the device root. Every change is one locked update: read the shared
// record, notice resets and dead processes, list this process's networks, apply the change,
// rewrite the visible files and the record. Each step is best-effort: a refused or damaged file
// costs a warning (once per process and cause), never the NPU execution.
class StatisticsFolder {
public:
    static StatisticsFolder& get() {
        static StatisticsFolder* folder = [] {
            auto* created = new StatisticsFolder();  // never destroyed: outlives every network
            std::atexit([] { get().releaseOwnNetworks(); });
            return created;
        }();
        return *folder;
    }

    uint32_t add(const LocalNetwork& network) {
        std::lock_guard guard(mutex_);
        uint32_t nid = 1;  // the lowest id this process does not use, like the kernel's idr
        while (networks_.count(nid) != 0) ++nid;
        networks_[nid] = network;
        update([](int) {});
        return nid;
    }

    void remove(uint32_t nid) {
        std::lock_guard guard(mutex_);
        networks_.erase(nid);
        update([](int) {});
    }

    void record(uint32_t nid, uint64_t timeUs) {
        std::lock_guard guard(mutex_);
        update([&](int) {
            record_.totalCount++;
            record_.totalTimeUs += timeUs;
            if (StateSlot* slot = findSlot(getpid(), nid)) {
                slot->count++;
                slot->timeUs += timeUs;
                slot->lastUs = static_cast<uint32_t>(std::min<uint64_t>(timeUs, UINT32_MAX));
            }
        });
    }

    void recordProfile(uint32_t nid, const std::string& table) {
        std::lock_guard guard(mutex_);
        update([&](int dir) {
            Fd profiles(openProfiles(dir, true));
            Replacement file(profiles.get(), profileName(getpid(), nid), false);
            if (profiles.get() >= 0 && !(file.prepare(table, 0600, false, nullptr) && file.commit())) {
                warnOnce("cannot write a profile table in " + path_ + "/" + kProfilesName + ": " + std::strerror(errno));
            }
        });
    }

private:
    StatisticsFolder()
        : root_(props::deviceRoot()), path_(props::devicePath(kStatisticsDir)), directory_(root_, path_) {}

    void releaseOwnNetworks() {
        std::lock_guard guard(mutex_);
        struct stat info {};
        if (stat(root_.c_str(), &info) != 0) released_ = true;  // the root is gone, and its files with it
        std::erase_if(networks_, [](const auto& entry) { return entry.second.owner == getpid(); });
        update([](int) {});
        released_ = true;  // what the exit handlers free afterwards is already gone from the files
        std::string error;
        if (const int dir = directory_.get(&error); dir >= 0) removeSpares(dir, getpid());
    }

    template <typename Change>
    void update(Change&& change) {
        if (released_) return;
        std::string error;
        const int dir = directory_.get(&error);
        if (dir < 0) return warnOnce("cannot open the statistics folder (" + error + "); statistics are off");
        makeYoctoLink();
        if (!state_.lock(dir, path_, &error)) return warnOnce(error);
        load(dir);
        noticeReset(dir);
        pruneExitedProcesses(dir);
        listOwnNetworks(dir);
        change(dir);
        publish(dir);
        state_.unlock();
    }

    void warnOnce(const std::string& message) {
        if (warned_.insert(message).second) NN_LOG(WARNING) << "synap-npu: " << message;
    }

    void makeYoctoLink() {
        if (linkMade_) return;
        linkMade_ = true;
        std::string error;
        Fd parent(base::openInsideRoot(root_, props::devicePath(kYoctoLinkDir), O_RDONLY | O_DIRECTORY, 0, false, &error));
        // An existing name (our link, or anything else) is left alone; nothing is written through it.
        if (parent.get() >= 0) symlinkat(kYoctoLinkTarget, parent.get(), "statistics");
    }

    void load(int dir) {
        const std::string damage = state_.read(&record_);
        if (!damage.empty()) {
            struct stat info {};
            const bool fresh = damage == kStateMissing &&
                               fstatat(dir, kFiles[COUNT].name, &info, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
            if (!fresh) {
                NN_LOG(WARNING) << "synap-npu: the statistics state " << path_ << "/.state was " << damage
                                << "; rebuilt it, the counters restart from 0";
            }
            initializeState(&record_);
            return;
        }
        const std::string& boot = currentBootId();
        if (!boot.empty() && std::strncmp(record_.bootId, boot.c_str(), sizeof record_.bootId) != 0) {
            // Every process listed ran on another boot: its networks are gone, its pid means nothing.
            for (StateSlot& slot : record_.slots) forget(dir, slot);
            std::memset(record_.bootId, 0, sizeof record_.bootId);
            std::memcpy(record_.bootId, boot.data(), boot.size());
            record_.lastPruneNs = 0;
        }
    }

    // A write to inference_count or inference_time by anyone else (any content, even the value
    // shown) clears both totals and every network's counters, as on the board. A deleted file is
    // not a write: it is rewritten.
    void noticeReset(int dir) {
        bool reset = false;
        for (int file : {COUNT, TIME}) {
            struct stat info {};
            if (fstatat(dir, kFiles[file].name, &info, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(info.st_mode)) continue;
            reset = reset || (!matches(record_.written[file][0], info) && !matches(record_.written[file][1], info));
        }
        if (!reset) return;
        record_.totalCount = 0;
        record_.totalTimeUs = 0;
        for (StateSlot& slot : record_.slots) {
            slot.count = 0;
            slot.timeUs = 0;
            slot.lastUs = 0;
        }
    }

    // Networks of processes that died without unloading them disappear.
    void pruneExitedProcesses(int dir) {
        const int64_t now = nowNs();
        if (record_.lastPruneNs <= now && now - record_.lastPruneNs < kPruneIntervalNs) return;
        record_.lastPruneNs = now;
        const int32_t self = getpid();
        for (StateSlot& slot : record_.slots) {
            if (slot.pid > 0 && slot.pid != self && kill(slot.pid, 0) != 0 && errno == ESRCH) forget(dir, slot);
        }
        removeSpares(dir, 0);
        Fd profiles(openProfiles(dir, false));
        if (profiles.get() >= 0) removeSpares(profiles.get(), 0);
    }

    // The record lists exactly this process's live networks: after a rebuild they come back
    // (counting from 0), and a release the record missed (an update skipped) is caught up.
    void listOwnNetworks(int dir) {
        const int32_t self = getpid();
        for (StateSlot& slot : record_.slots) {
            auto network = networks_.find(slot.nid);
            if (slot.pid == self && (network == networks_.end() || network->second.owner != self)) forget(dir, slot);
        }
        for (const auto& [nid, network] : networks_) {
            if (network.owner != self || findSlot(self, nid) != nullptr) continue;
            StateSlot* slot = findSlot(0, 0);
            if (slot == nullptr) {
                warnOnce("more than " + std::to_string(kMaxNetworks) + " networks loaded; the others are not listed");
                continue;
            }
            *slot = StateSlot{self, nid, record_.nextOrder++, 0, 0, 0, static_cast<int32_t>(network.iobufCount),
                              static_cast<int64_t>(network.iobufBytes),
                              network.profiling ? static_cast<int32_t>(network.layers) : 0, network.profiling ? 1u : 0u};
        }
    }

    StateSlot* findSlot(int32_t pid, uint32_t nid) {
        for (StateSlot& slot : record_.slots) {
            if (slot.pid == pid && (pid == 0 || slot.nid == nid)) return &slot;
        }
        return nullptr;
    }

    void forget(int dir, StateSlot& slot) {
        if (slot.pid != 0 && slot.profiling) {
            Fd profiles(openProfiles(dir, false));
            if (profiles.get() >= 0) unlinkat(profiles.get(), profileName(slot.pid, slot.nid).c_str(), 0);
        }
        slot = StateSlot{};
    }

    static std::string profileName(int32_t pid, uint32_t nid) { return std::to_string(pid) + "." + std::to_string(nid); }

    int openProfiles(int dir, bool create) {
        if (create) mkdirat(dir, kProfilesName, 0700);
        const int fd = openat(dir, kProfilesName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno != ENOENT) {
            warnOnce(path_ + "/" + kProfilesName + " is a symbolic link or not a directory; refusing to follow it "
                     "out of the device root (no layer tables)");
        }
        return fd;
    }

    std::string readProfile(int profiles, const StateSlot& slot) {
        Fd fd(openat(profiles, profileName(slot.pid, slot.nid).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
        struct stat info {};
        if (fd.get() < 0 || fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) return "";
        std::string table(std::min<size_t>(static_cast<size_t>(info.st_size), kMaxProfileBytes), '\0');
        const ssize_t bytes = pread(fd.get(), table.data(), table.size(), 0);
        table.resize(bytes > 0 ? static_cast<size_t>(bytes) : 0);
        return table;
    }

    void render(int dir, std::string texts[4]) {
        char number[24];
        std::snprintf(number, sizeof number, "%" PRIu64 "\n", record_.totalCount);
        texts[COUNT] = number;
        std::snprintf(number, sizeof number, "%" PRIu64 "\n", record_.totalTimeUs);
        texts[TIME] = number;
        std::vector<const StateSlot*> loaded;
        for (const StateSlot& slot : record_.slots) {
            if (slot.pid != 0) loaded.push_back(&slot);
        }
        auto processOrder = [&](int32_t pid) {
            uint64_t first = UINT64_MAX;
            for (const StateSlot* slot : loaded) {
                if (slot->pid == pid) first = std::min(first, slot->order);
            }
            return first;
        };
        std::sort(loaded.begin(), loaded.end(), [&](const StateSlot* a, const StateSlot* b) {
            const uint64_t pa = processOrder(a->pid), pb = processOrder(b->pid);
            return pa != pb ? pa < pb : a->nid < b->nid;
        });
        const bool anyProfiling = std::any_of(loaded.begin(), loaded.end(), [](const StateSlot* s) { return s->profiling; });
        Fd profiles(anyProfiling ? openProfiles(dir, false) : -1);
        for (const StateSlot* slot : loaded) {
            const std::string line = networkLine(static_cast<uint64_t>(slot->pid), slot->nid, slot->count,
                                                 slot->timeUs, slot->lastUs, slot->iobufCount, slot->iobufSize,
                                                 slot->layers);
            if (texts[NETWORKS].size() + line.size() <= kPageSize) texts[NETWORKS] += line;
            texts[PROFILE] += line;
            if (slot->profiling && profiles.get() >= 0) texts[PROFILE] += readProfile(profiles.get(), *slot);
        }
    }

    // Only a regular file (or nothing) is replaced; anything else planted under a visible name is
    // refused and left alone.
    bool replaceable(int dir, int file) {
        struct stat info {};
        if (fstatat(dir, kFiles[file].name, &info, AT_SYMLINK_NOFOLLOW) != 0 || S_ISREG(info.st_mode)) return true;
        warnOnce(path_ + "/" + kFiles[file].name + " is a symbolic link or not a regular file; refusing to follow "
                 "or replace it (the other statistics go on)");
        return false;
    }

    // New contents are written beside the files, the record naming them is stored, then they are
    // renamed into place: a crash between leaves the old or the new file, both known to the record.
    void publish(int dir) {
        std::string texts[4];
        render(dir, texts);
        std::vector<std::unique_ptr<Replacement>> files;
        for (int file = 0; file < 4; ++file) {
            if (!replaceable(dir, file)) continue;
            auto replacement = std::make_unique<Replacement>(dir, kFiles[file].name, true);
            FileIdentity identity{};
            if (!replacement->prepare(texts[file], kFiles[file].mode, file <= TIME, &identity)) {
                warnOnce("cannot write " + path_ + "/" + kFiles[file].name + ": " + std::strerror(errno));
                continue;
            }
            if (file <= TIME) {
                record_.written[file][0] = record_.written[file][1];
                record_.written[file][1] = identity;
            }
            files.push_back(std::move(replacement));
        }
        if (!state_.write(&record_)) return warnOnce("cannot write " + path_ + "/.state: " + std::strerror(errno));
        for (auto& file : files) {
            if (!file->commit()) warnOnce("cannot update the statistics files in " + path_ + ": " + std::strerror(errno));
        }
    }

    std::mutex mutex_;  // flock does not exclude this process's threads from each other
    std::map<uint32_t, LocalNetwork> networks_;
    const std::string root_, path_;
    RootedDirectory directory_;
    StateFile state_;
    StateRecord record_{};
    std::set<std::string> warned_;
    bool linkMade_ = false;
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
    : nid_(StatisticsFolder::get().add({getpid(), iobufCount, iobufBytes, layers, profiling})), profiling_(profiling) {}

NetworkStatistics::~NetworkStatistics() { StatisticsFolder::get().remove(nid_); }

void NetworkStatistics::recordInference(uint64_t timeUs) { StatisticsFolder::get().record(nid_, timeUs); }

void NetworkStatistics::recordProfile(const std::vector<LayerProfile>& layers) {
    if (profiling_) StatisticsFolder::get().recordProfile(nid_, profileTable(layers));
}

}  // namespace nnemu::synap
