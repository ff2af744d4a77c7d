#include "Statistics.h"
#include "SynapLog.h"

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
#include <string_view>
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
            Replacement file(profiles.get(), profileName(processId(), nid), false);
            if (profiles.get() >= 0 && !(file.prepare(table, 0600, false, nullptr) && file.commit())) {
                const int cause = errno;
                warnOnce("cannot write a profile table in " + path_ + "/" + kProfilesName + ": " + std::strerror(cause) +
                         "; the run goes on", cause);
            }
        });
    }

    // Applies what happened to the files since the last update (a reset written, a file deleted
    // or garbled, a killed process's networks) and rewrites them only then.
    void touch() {
        std::lock_guard guard(mutex_);
        update([](int) {}, false);
    }

    // The start-up check of a process that loads the driver: a reset written while no process
    // ran shows as 0 before this process does anything. A root without the folder has nothing
    // pending and is left untouched (nothing is created by merely loading the library).
    static void touchAtStartUp() {
        struct stat info {};
        const std::string path = statisticsDir();
        if (lstat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return;
        StatisticsFolder folder;  // not the networks' folder: it would pin the device root of now
        folder.touch();
    }

private:
    StatisticsFolder()
        : root_(props::deviceRoot()), path_(statisticsDir()), directory_(root_, path_) {}

    void releaseOwnNetworks() {
        std::lock_guard guard(mutex_);
        struct stat info {};
        if (stat(root_.c_str(), &info) != 0) released_ = true;  // the root is gone, and its files with it
        std::erase_if(networks_, [](const auto& entry) { return entry.second.owner == processId(); });
        update([](int) {}, false);  // rewrites the files only if this process's networks were listed
        released_ = true;  // what the exit handlers free afterwards is already gone from the files
        if (const Result<int> dir = directory_.get(); dir.isOk()) removeSpares(*dir, processId());
    }

    // `always`: publish even when nothing but the change happened (a change always publishes).
    template <typename Change>
    void update(Change&& change, bool always = true) {
        if (released_) return;
        const Result<int> opened = directory_.get();
        if (!opened.isOk()) {
            const int cause = errno;
            return warnOnce("cannot open the statistics folder (" + opened.message() +
                                    "); the statistics are not updated, the run goes on",
                            cause);
        }
        const int dir = *opened;
        makeYoctoLink();
        if (const Status locked = state_.lock(dir, path_); !locked) {
            const int cause = errno;
            return warnOnce(locked.message() + "; the statistics are not updated, the run goes on", cause);
        }
        // The leases first: from then on nobody else can open or truncate a leased file, so what
        // the look sees of it stays true until it is rewritten.
        for (InPlaceFile& file : inPlace_) file.lease();
        look(dir);
        bool dirty = !load(dir);
        dirty |= always;
        dirty |= noticeReset();
        dirty |= pruneExitedProcesses(dir);
        dirty |= listOwnNetworks(dir);
        dirty |= !allPublished();
        change(dir);
        if (dirty) publish(dir);
        for (InPlaceFile& file : inPlace_) file.release();  // those no rewrite used
        state_.unlock();
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

    // False when the record was rebuilt or changed on loading.
    bool load(int dir) {
        const std::string damage = state_.read(&record_);
        if (!damage.empty()) {
            struct stat info {};
            const bool fresh = damage == kStateMissing &&
                               fstatat(dir, kFiles[COUNT].name, &info, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
            if (!fresh) {
                SYNAP_LOG(WARNING) << "the statistics state " << path_ << "/.state was " << damage
                                << "; rebuilt it, the counters restart from 0";
            }
            initializeState(&record_);
            return false;
        }
        const std::string& boot = currentBootId();
        if (!boot.empty() && std::strncmp(record_.bootId, boot.c_str(), sizeof record_.bootId) != 0) {
            // Every process listed ran on another boot: its networks are gone, its pid means nothing.
            for (StateSlot& slot : record_.slots) forget(dir, slot);
            std::memset(record_.bootId, 0, sizeof record_.bootId);
            std::memcpy(record_.bootId, boot.data(), boot.size());
            record_.lastPruneNs = 0;
            return false;
        }
        return true;
    }

    // Every visible file is there as a regular file (a deleted one is rewritten; anything planted
    // is left to publish's refusal, which does not count as missing here).
    bool allPublished() const {
        return std::none_of(std::begin(seen_), std::end(seen_), [](const Seen& file) { return file.missing; });
    }

    // One look at each visible file per update, under the lock: what the reset check, the
    // rewrite check and publish's refusal of planted files all read.
    void look(int dir) {
        for (int file = 0; file < 4; ++file) {
            Seen& seen = seen_[file];
            seen.present = fstatat(dir, kFiles[file].name, &seen.info, AT_SYMLINK_NOFOLLOW) == 0;
            seen.missing = !seen.present && errno == ENOENT;
        }
    }

    // A write to inference_count or inference_time by anyone else (any content, even the value
    // shown) clears both totals and every network's counters, as on the board. A deleted file is
    // not a write: it is rewritten.
    bool noticeReset() {
        bool reset = false;
        for (int file : {COUNT, TIME}) {
            const struct stat& info = seen_[file].info;
            if (!seen_[file].present || !S_ISREG(info.st_mode)) continue;
            reset = reset || (!matches(record_.written[file][0], info) && !matches(record_.written[file][1], info));
        }
        if (reset) resetCounters(&record_);
        return reset;
    }

    // Networks of processes that died without unloading them disappear.
    bool pruneExitedProcesses(int dir) {
        const int64_t now = nowNs();
        if (record_.lastPruneNs <= now && now - record_.lastPruneNs < kPruneIntervalNs) return false;
        record_.lastPruneNs = now;
        const int32_t self = processId();
        bool pruned = false;
        for (StateSlot& slot : record_.slots) {
            if (slot.pid > 0 && slot.pid != self && kill(slot.pid, 0) != 0 && errno == ESRCH) {
                forget(dir, slot);
                pruned = true;
            }
        }
        removeSpares(dir, 0);
        Fd profiles(openProfiles(dir, false));
        if (profiles.get() >= 0) removeSpares(profiles.get(), 0);
        return pruned;
    }

    // The record lists exactly this process's live networks: after a rebuild they come back
    // (counting from 0), and a release the record missed (an update skipped) is caught up.
    bool listOwnNetworks(int dir) {
        const int32_t self = processId();
        bool changed = false;
        for (StateSlot& slot : record_.slots) {
            auto network = networks_.find(slot.nid);
            if (slot.pid == self && (network == networks_.end() || network->second.owner != self)) {
                forget(dir, slot);
                changed = true;
            }
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
            changed = true;
        }
        return changed;
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

    // Only a regular file (or nothing) is replaced; anything else planted under a visible name is
    // refused and left alone.
    bool replaceable(int file) {
        if (!seen_[file].present || S_ISREG(seen_[file].info.st_mode)) return true;
        warnOnce(path_ + "/" + kFiles[file].name + " is a symbolic link or not a regular file; refusing to follow "
                 "or replace it (the other statistics go on)");
        return false;
    }

    // Each file is rewritten in place when this process may (StatisticsFiles.h), or gets a new
    // version written beside it. The record naming what the files will be is stored first, then
    // they are rewritten or exchanged into place: a crash between leaves the old or the new file,
    // both known to the record (in place, short of a crash between a rewrite and its back-dating).
    void publish(int dir) {
        std::string texts[4];
        render(dir, texts);
        const time_t backdate = backdatedTime();
        std::unique_ptr<Replacement> exchanges[4];
        bool inPlace[4] = {};
        for (int file = 0; file < 4; ++file) {
            if (!replaceable(file)) continue;
            const time_t fileBackdate = file <= TIME ? backdate : 0;
            FileIdentity identity{};
            // A shorter text (a reset, a network gone) is exchanged in: cut in place, a process
            // killed between the write and the cut would leave a stale tail.
            inPlace[file] = seen_[file].present && inPlace_[file].holds(seen_[file].info) &&
                            static_cast<off_t>(texts[file].size()) >= seen_[file].info.st_size;
            if (inPlace[file]) {
                identity = inPlace_[file].identity(texts[file].size(), fileBackdate);
            } else {
                inPlace_[file].drop();  // closed: it may be the spare the exchange leases next
                exchanges[file] = std::make_unique<Replacement>(dir, kFiles[file].name, true);
                if (!exchanges[file]->prepare(texts[file], kFiles[file].mode, fileBackdate,
                                              file <= TIME ? &identity : nullptr)) {
                    exchanges[file].reset();
                    warnNotWritten(kFiles[file].name);
                    continue;
                }
            }
            if (file <= TIME) {
                record_.written[file][0] = record_.written[file][1];
                record_.written[file][1] = identity;
            }
        }
        const bool stored = state_.write(&record_);
        const int cause = errno;
        for (int file = 0; file < 4; ++file) {
            if (!inPlace[file]) continue;
            if (!stored) {
                inPlace_[file].release();  // left as it was, like the record
            } else if (!inPlace_[file].rewrite(texts[file], file <= TIME ? backdate : 0)) {
                warnNotWritten(kFiles[file].name);
            }
        }
        if (!stored) {
            errno = cause;
            return warnNotWritten(".state");
        }
        for (int file = 0; file < 4; ++file) {
            if (exchanges[file] == nullptr) continue;
            if (!exchanges[file]->commit()) {
                const int failure = errno;
                warnOnce("cannot update the statistics files in " + path_ + ": " + std::strerror(failure) +
                         "; the run goes on", failure);
                continue;
            }
            inPlace_[file].adopt(exchanges[file]->takeFile());
        }
    }

    void warnNotWritten(const char* name, const char* function = __builtin_FUNCTION(), int line = __builtin_LINE()) {
        const int cause = errno;
        warnOnce("cannot write " + path_ + "/" + name + ": " + std::strerror(cause) +
                         "; the statistics are not updated, the run goes on",
                 cause, function, line);
    }

    std::mutex mutex_;  // flock does not exclude this process's threads from each other
    std::map<uint32_t, LocalNetwork> networks_;
    const std::string root_, path_;
    RootedDirectory directory_;
    StateFile state_;
    InPlaceFile inPlace_[4];  // the visible files' versions this process last put in place
    StateRecord record_{};
    struct Seen {
        bool present = false;  // `info` holds the file's status
        bool missing = false;  // nothing has the name
        struct stat info {};
    } seen_[4];
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
