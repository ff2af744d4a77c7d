#include "Statistics.h"
#include "SynapLog.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/vfs.h>
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
#include <string_view>
#include <utility>
#include <vector>

#include "StatisticsFiles.h"
#include "StatisticsState.h"
#include "StatisticsView.h"
#include "nnemu/base/RootedFile.h"
#include "nnemu/base/Log.h"
#include "nnemu/props/Board.h"
#include "nnemu/props/Properties.h"

namespace nnemu::synap {
namespace {

constexpr int64_t kPruneIntervalNs = 100'000'000;
// A process starts its inotify watch only once it has used the statistics this long or this
// often: closing a watch makes the kernel wait for a grace period of its notification marks
// (10-15 ms on a VM), which a short process (a warm start, a tool, a test) would pay at exit for
// a watch that saves it a few system calls per update; until then every update looks at the
// folder instead. A process running many inferences has it after its first few dozen.
constexpr int64_t kWatchAfterNs = 200'000'000;
constexpr uint32_t kWatchAfterUpdates = 32;

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

// The statistics folder of the device root. Every change is one update under the state's lock:
// take the shared record out of the mapping, notice resets and dead processes, list this
// process's networks, apply the change, put the record back and store the visible files' texts
// in place. An NPU execution's update makes one system call (the watch's read); what the watch
// reports, and every 100 ms regardless, sends the process to look at the files again. Each step
// is best-effort: a refused or damaged file costs a warning (once per process and cause), never
// the NPU execution.
class StatisticsFolder {
public:
    static StatisticsFolder& get() {
        static StatisticsFolder* folder = [] {
            StatisticsFolder* created = adoptStartUpFolder();
            if (created == nullptr) created = new StatisticsFolder();  // never destroyed: outlives every network
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
            if (StateSlot* slot = findSlot(processId(), nid)) {
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
            if (profiles.get() >= 0 && !replaceFile(profiles.get(), profileName(processId(), nid).c_str(), table, 0600)) {
                const int cause = errno;
                warnOnce("cannot write a profile table in " + path_ + "/" + kProfilesName + ": " + std::strerror(cause) +
                         "; the run goes on", cause);
            }
        });
    }

    // Applies what happened to the files since the last update (a reset written, a file deleted
    // or garbled, a killed process's networks).
    void touch() {
        std::lock_guard guard(mutex_);
        update([](int) {});
    }

    // The start-up check of a process that loads the driver: a reset written while no process
    // ran shows as 0 before this process does anything. A root without the folder has nothing
    // pending and is left untouched (nothing is created by merely loading the library).
    static void touchAtStartUp() {
        struct stat info {};
        const std::string path = statisticsDir();
        if (lstat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return;
        // Not the networks' folder yet: that would pin the device root of now. Kept for it.
        auto* folder = new StatisticsFolder();
        folder->touch();
        startUpFolder() = folder;
    }

private:
    static StatisticsFolder*& startUpFolder() {
        static StatisticsFolder* folder = nullptr;
        return folder;
    }
    // The start-up check's folder becomes the networks' when the device root is still the one it
    // looked at: its mapping, watch and look serve the first network instead of being made again.
    static StatisticsFolder* adoptStartUpFolder() {
        StatisticsFolder* folder = std::exchange(startUpFolder(), nullptr);
        if (folder != nullptr && folder->root_ == props::deviceRoot() && folder->path_ == statisticsDir()) return folder;
        delete folder;
        return nullptr;
    }

    StatisticsFolder()
        : root_(props::deviceRoot()), path_(statisticsDir()), directory_(root_, path_) {}

    void releaseOwnNetworks() {
        std::lock_guard guard(mutex_);
        struct stat info {};
        if (stat(root_.c_str(), &info) != 0) released_ = true;  // the root is gone, and its files with it
        std::erase_if(networks_, [](const auto& entry) { return entry.second.owner == processId(); });
        update([](int) {});
        released_ = true;  // what the exit handlers free afterwards is already gone from the files
        if (const Result<int> dir = directory_.get(); dir.isOk()) removeSpares(*dir, processId());
    }

    template <typename Change>
    void update(Change&& change) {
        if (released_) return;
        if (owner_ != processId()) {  // a forked child maps, watches and lists its own
            owner_ = processId();
            state_.close();
            for (PublishedFile& file : files_) file.close();
            watch_.stop();
            lookNeeded_ = true;
        }
        if (firstUpdateNs_ == 0) firstUpdateNs_ = nowNs();
        if (updates_ < kWatchAfterUpdates) ++updates_;
        if (nowNs() - lastLookNs_ >= kPruneIntervalNs) lookNeeded_ = true;
        for (int attempt = 0;; ++attempt) {
            if (attempt == 4) {
                return warnOnce(path_ + "/.state or a statistics file keeps being cut under this process; the "
                                "statistics are not updated, the run goes on");
            }
            if (!state_.isOpen() && !openState()) return;
            const StateMap::Locked locked = state_.lock();
            if (locked == StateMap::Locked::FAULT) {
                state_.close();  // cut under us: opened again, found short and rebuilt
                continue;
            }
            if (locked == StateMap::Locked::TAKEN_OVER) {
                warnOnce(path_ + "/.state was locked for 5 s by a process that did not let go (stopped?); "
                         "took the lock over");
            }
            const FolderEvents events = watch_.poll();
            for (int file = 0; file < 4; ++file) {
                if (events.resized[file] && files_[file].isOpen() && !files_[file].refreshSize()) {
                    files_[file].close();
                    lookNeeded_ = true;
                }
            }
            if (events.look || lookNeeded_ || fuse_) {
                const Looked looked = look();
                if (looked == Looked::FAILED) return state_.unlock();
                if (looked == Looked::STATE_MOVED) {
                    state_.unlock();
                    state_.close();
                    continue;
                }
            }
            const bool done = apply(change);
            state_.unlock();
            if (done) return;
            lookNeeded_ = true;
        }
    }

    // Once per process, whichever folder object (the start-up check's or the networks') meets it:
    // once per message, and once per cause for what the file system refuses to everyone (a
    // read-only or full file system, a denied permission): the first such message names the cause,
    // the statistics files and `.state` failing after it for the same cause say nothing more.
    // The log line names the caller, as the board's lines name their function.
    static void warnOnce(const std::string& message, int cause = 0, const char* function = __builtin_FUNCTION(),
                         int line = __builtin_LINE()) {
        static std::mutex mutex;
        static std::set<std::string>* warned = new std::set<std::string>();  // used by exit handlers
        const bool fileSystem = cause == EROFS || cause == ENOSPC || cause == EDQUOT || cause == EACCES ||
                                cause == EPERM || cause == EIO;
        std::lock_guard guard(mutex);
        if (warned->insert(fileSystem ? "cause " + std::to_string(cause) : message).second &&
            synapLogEnabled(LogLevel::WARNING)) {
            // A template's name comes with its arguments ("update<...lambda...>"): the board's
            // lines carry the bare name.
            const std::string name(function, std::strcspn(function, "<"));
            SynapLogMessage(LogLevel::WARNING, name.c_str(), line) << message;
        }
    }

    void warnFolderRefused(const Result<int>& opened, const char* function = __builtin_FUNCTION(),
                           int line = __builtin_LINE()) {
        const int cause = errno;
        warnOnce("cannot open the statistics folder (" + opened.message() +
                         "); the statistics are not updated, the run goes on",
                 cause, function, line);
    }

    // The folder, opened by the walk from the root, and `.state` in it, mapped.
    bool openState() {
        const Result<int> opened = directory_.get();
        if (!opened.isOk()) return warnFolderRefused(opened), false;
        dir_ = *opened;
        struct statfs system {};
        fuse_ = fstatfs(dir_, &system) == 0 && system.f_type == kFuseSuperMagic;
        if (const Status mapped = state_.open(dir_, path_, !fuse_, kFiles[COUNT].name); !mapped) {
            const int cause = errno;
            warnOnce(mapped.message() + "; the statistics are not updated, the run goes on", cause);
            return false;
        }
        lookNeeded_ = true;
        return true;
    }

    enum class Looked { OK, FAILED, STATE_MOVED };

    // Under the lock (so no other process changes the files meanwhile): the folder still where
    // the path says, `.state` the file the name holds, each visible file mapped if it can be
    // rewritten in place; the watch started on this folder.
    Looked look() {
        const unsigned generation = directory_.generation();
        const Result<int> opened = directory_.get();
        if (!opened.isOk()) return warnFolderRefused(opened), Looked::FAILED;
        if (directory_.generation() != generation || !state_.current(*opened)) return Looked::STATE_MOVED;
        const int dir = dir_ = *opened;
        // Without a watch (not yet due, or refused), every update looks.
        const bool watchDue = updates_ >= kWatchAfterUpdates || nowNs() - firstUpdateNs_ >= kWatchAfterNs;
        if (watchDue && (!watch_.active() || watch_.broken() || watchedGeneration_ != generation)) {
            watchedGeneration_ = generation;
            watch_.start(root_, path_, dir);
        }
        makeYoctoLink();
        for (int file = 0; file < 4; ++file) {
            Seen& seen = seen_[file];
            struct stat named {};
            const bool present = fstatat(dir, kFiles[file].name, &named, AT_SYMLINK_NOFOLLOW) == 0;
            seen.missing = !present && errno == ENOENT;
            seen.planted = present && !S_ISREG(named.st_mode);
            seen.foreign = seen.linked = false;
            if (!present || seen.planted || fuse_) {
                files_[file].close();
            } else if (files_[file].sameFile(named) && named.st_nlink > 1) {
                seen.linked = true;  // kept for reading; a new version goes over the name
            } else if (!files_[file].holds(named)) {
                // Another name (a hard link) or not openable for writing: a new version goes over it.
                seen.foreign = !files_[file].open(dir, kFiles[file].name, kFiles[file].mode);
            } else if (static_cast<off_t>(files_[file].size()) != named.st_size && !files_[file].refreshSize()) {
                files_[file].close();
            }
        }
        lookNeeded_ = false;
        lastLookNs_ = nowNs();
        return Looked::OK;
    }

    // The Android board's second path to the folder (a Yocto board has only that path).
    void makeYoctoLink() {
        if (linkMade_ || props::isYocto()) return;
        linkMade_ = true;
        const Result<int> opened =
                base::openInsideRoot(root_, props::devicePath(kYoctoLinkDir), O_RDONLY | O_DIRECTORY, 0, false);
        Fd parent(opened.isOk() ? *opened : -1);
        // An existing name (our link, or anything else) is left alone; nothing is written through it.
        if (parent.get() >= 0) symlinkat(kYoctoLinkTarget, parent.get(), "statistics");
    }

    // The update proper, under the lock. False: a mapping was cut under us before the change was
    // stored (look and retry).
    template <typename Change>
    bool apply(Change&& change) {
        const int dir = dir_;
        if (!load(dir)) return false;
        pruneExitedProcesses(dir);
        listOwnNetworks(dir);
        change(dir);
        std::string texts[4];
        render(dir, texts);
        for (int file : {COUNT, TIME}) {
            std::memset(record_.published[file], 0, sizeof record_.published[file]);
            texts[file].copy(record_.published[file], sizeof record_.published[file] - 1);
        }
        if (!state_.store(record_)) return false;
        // The change is in the record now: a file cut under us is only rewritten at the next update.
        if (!publish(dir, texts)) lookNeeded_ = true;
        return true;
    }

    // The record out of the mapping: rebuilt (with a warning) when damaged, its networks of
    // another boot forgotten, a reset written to the files applied. False: the mapping was cut.
    bool load(int dir) {
        if (!state_.load(&record_)) return false;
        // What the content shows first (a foreign or older file is that, whatever its size).
        const std::string opened = state_.takeOpenDamage();
        std::string damage = stateDamage(record_);
        if (opened == kStateMissing && damage.empty()) {
            // This process made it, whole (StateMap::open): a warning when it was lost (the count
            // file was there when it was made), no rebuild (others may have counted in it since).
            if (state_.madeWhereLost()) {
                SYNAP_LOG(WARNING) << "the statistics state " << path_ << "/.state was " << opened
                                   << "; rebuilt it, the counters restart from 0";
            }
            forgetOtherBoot(dir);
            return noticeReset();
        }
        if (opened == kStateMissing) {
            if (!damage.empty()) damage = opened;  // still empty: nobody made it meanwhile
        } else if (damage.empty()) {
            damage = opened;
        }
        if (damage.empty()) {
            forgetOtherBoot(dir);
            return noticeReset();
        }
        if (!(damage == kStateMissing && seen_[COUNT].missing)) {
            SYNAP_LOG(WARNING) << "the statistics state " << path_ << "/.state was " << damage
                               << "; rebuilt it, the counters restart from 0";
        }
        initializeState(&record_);
        return true;
    }

    // Every process listed ran on another boot: its networks are gone, its pid means nothing.
    void forgetOtherBoot(int dir) {
        const std::string& boot = currentBootId();
        if (boot.empty() || std::strncmp(record_.bootId, boot.c_str(), sizeof record_.bootId) == 0) return;
        for (StateSlot& slot : record_.slots) forget(dir, slot);
        std::memset(record_.bootId, 0, sizeof record_.bootId);
        std::memcpy(record_.bootId, boot.data(), boot.size());
        record_.lastPruneNs = 0;
    }

    // A write to inference_count or inference_time by anyone else (any text but the one shown)
    // clears both totals and every network's counters, as on the board. A deleted file is not a
    // write: it is put back. False when a mapping was cut under us.
    bool noticeReset() {
        bool reset = false;
        for (int file : {COUNT, TIME}) {
            if (fuse_ || seen_[file].missing || seen_[file].planted) continue;
            if (seen_[file].foreign || !files_[file].isOpen()) {
                reset = true;  // something else was put under the name
                continue;
            }
            std::string shown;
            if (!files_[file].read(&shown)) return false;
            reset = reset || shown != record_.published[file];
        }
        if (reset) resetCounters(&record_);
        return true;
    }

    // Networks of processes that died without unloading them disappear.
    void pruneExitedProcesses(int dir) {
        const int64_t now = nowNs();
        if (record_.lastPruneNs <= now && now - record_.lastPruneNs < kPruneIntervalNs) return;
        record_.lastPruneNs = now;
        const int32_t self = processId();
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
        const int32_t self = processId();
        for (StateSlot& slot : record_.slots) {
            if (slot.pid != self) continue;
            auto network = networks_.find(slot.nid);
            if (network == networks_.end() || network->second.owner != self) forget(dir, slot);
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

    int openProfiles(int dir, bool create) {
        if (create) mkdirat(dir, kProfilesName, 0700);
        const int fd = openat(dir, kProfilesName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno != ENOENT) {
            warnOnce(path_ + "/" + kProfilesName + " is a symbolic link or not a directory; refusing to follow it "
                     "out of the device root (no layer tables)");
        }
        return fd;
    }

    void render(int dir, std::string texts[4]) {
        const bool anyProfiling =
                std::any_of(std::begin(record_.slots), std::end(record_.slots), [](const StateSlot& s) { return s.pid != 0 && s.profiling; });
        Fd profiles(anyProfiling ? openProfiles(dir, false) : -1);
        renderStatistics(record_, profiles.get(), texts);
    }

    // Each text is stored in place when its file is mapped and keeps its length (networks and
    // network_profile also when it does not); otherwise a new version is renamed over the name.
    // Through the FUSE view nothing is mapped: every text is replaced at every update. Anything
    // planted under a visible name is refused and left alone. False: a mapping was cut.
    bool publish(int dir, const std::string texts[4]) {
        bool intact = true;
        for (int file = 0; file < 4; ++file) {
            if (seen_[file].planted) {
                warnOnce(path_ + "/" + kFiles[file].name + " is a symbolic link or not a regular file; refusing to "
                         "follow or replace it (the other statistics go on)");
                continue;
            }
            PublishedFile& published = files_[file];
            if (published.isOpen() && !seen_[file].linked) {
                if (published.write(texts[file], file >= NETWORKS)) continue;
                if (errno == EFAULT) {
                    intact = false;
                    continue;
                }
                if (errno != 0) {
                    warnNotWritten(kFiles[file].name);
                    continue;
                }
            }
            if (!replaceFile(dir, kFiles[file].name, texts[file], kFiles[file].mode)) {
                warnNotWritten(kFiles[file].name);
                continue;
            }
            seen_[file] = Seen{};
            if (!fuse_) published.open(dir, kFiles[file].name, kFiles[file].mode);
        }
        return intact;
    }

    void warnNotWritten(const char* name, const char* function = __builtin_FUNCTION(), int line = __builtin_LINE()) {
        const int cause = errno;
        warnOnce("cannot write " + path_ + "/" + name + ": " + std::strerror(cause) +
                         "; the statistics are not updated, the run goes on",
                 cause, function, line);
    }

    static constexpr long kFuseSuperMagic = 0x65735546;

    std::mutex mutex_;  // the state's lock is the processes': this process's threads take turns here
    std::map<uint32_t, LocalNetwork> networks_;
    const std::string root_, path_;
    RootedDirectory directory_;
    StateMap state_;
    FolderWatch watch_;
    PublishedFile files_[4];
    StateRecord record_{};
    struct Seen {
        bool missing = false;  // nothing has the name
        bool planted = false;  // something not a regular file has it
        bool foreign = false;  // a regular file that cannot be rewritten in place (not ours, another name)
        bool linked = false;   // the mapped file, given another name since
    } seen_[4];
    pid_t owner_ = processId();
    int dir_ = -1;  // the folder, as the last look found it
    unsigned watchedGeneration_ = 0;
    int64_t lastLookNs_ = 0;
    int64_t firstUpdateNs_ = 0;  // the watch is started kWatchAfterNs after it,
    uint32_t updates_ = 0;       // or after kWatchAfterUpdates updates
    bool lookNeeded_ = true;
    bool fuse_ = false;  // the folder is the nnemu-sysfs view: nothing mapped, every update looks
    bool linkMade_ = false;
    bool released_ = false;
};

[[maybe_unused]] const bool kStartUpCheck = (StatisticsFolder::touchAtStartUp(), true);

}  // namespace

void touchStatistics() { StatisticsFolder::get().touch(); }

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
    : nid_(StatisticsFolder::get().add({processId(), iobufCount, iobufBytes, layers, profiling})), profiling_(profiling) {}

NetworkStatistics::~NetworkStatistics() { StatisticsFolder::get().remove(nid_); }

void NetworkStatistics::recordInference(uint64_t timeUs) { StatisticsFolder::get().record(nid_, timeUs); }

void NetworkStatistics::recordProfile(const std::vector<LayerProfile>& layers) {
    if (profiling_) StatisticsFolder::get().recordProfile(nid_, profileTable(layers));
}

}  // namespace nnemu::synap
