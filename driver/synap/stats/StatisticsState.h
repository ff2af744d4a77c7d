// The statistics counters every process using a device root shares, kept in the statistics
// folder's `.state` (mode 0600: only the driver reads it), mapped by each process.
//
// An update costs no system call: the record is changed in place in the shared mapping under a
// lock that is a word of the record itself (compare-and-swap), and counts are exact with any
// number of processes. Why it survives anything a disk or a user can leave there:
// - The lock word names its holder (pid) and changes at every acquisition. A waiter takes it
//   over from a holder that no longer exists at once, and from one that has held the same
//   acquisition for 5 s (stopped in a debugger, or a copy of the file taken while locked): a
//   holder's whole update is a few microseconds. So no image of the file (copied while locked,
//   restored after power loss or from a snapshot, made on another boot) can block anyone, and
//   neither can a killed holder. The price: a holder stopped for over 5 s in the middle of its
//   update, then resumed, may lose the updates made by others meanwhile (it checks that it still
//   holds the lock before writing back, not atomically with the write).
// - Every access to the mapping is guarded (MappedGuard.h): a file truncated under a running
//   process raises a SIGBUS that is caught; the process looks again, finds the file short and
//   rebuilds it.
// - Magic, version, size and the slots' consistency catch a truncated, zeroed, foreign,
//   older-format or torn file; it is rebuilt with one warning. The boot id tells networks of
//   processes from another boot, which are all gone.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "nnemu/base/Status.h"

namespace nnemu::synap {

inline constexpr uint32_t kStateMagic = 0x5354504e;  // "NPTS"
inline constexpr uint32_t kStateVersion = 3;
inline constexpr int kMaxNetworks = 128;

// A network loaded in some process (pid 0: free, all zero).
struct StateSlot {
    int32_t pid;
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

// The file's bytes, laid out without padding.
struct StateRecord {
    uint32_t magic;
    uint32_t version;
    uint32_t size;
    uint32_t reserved;
    uint64_t lock;  // the update lock (StateMap): holder pid << 32 | its acquisition number; 0 free
    char bootId[40];
    uint64_t totalCount;
    uint64_t totalTimeUs;
    uint64_t nextOrder;
    int64_t lastPruneNs;
    // The texts of inference_count and inference_time as last put in place: a file showing
    // anything else was written by someone (a reset).
    char published[2][24];
    StateSlot slots[kMaxNetworks];
};

// Why a record cannot be used ("" when it can).
std::string stateDamage(const StateRecord& record);
// StateMap's reason for a file with no record in it yet.
inline constexpr const char* kStateMissing = "missing or empty";
// This boot's id (/proc/sys/kernel/random/boot_id), empty when unknown.
const std::string& currentBootId();
// A fresh, empty record of this boot.
void initializeState(StateRecord* record);

// `.state` opened and mapped inside the statistics folder.
class StateMap {
public:
    StateMap() = default;
    ~StateMap();
    StateMap(const StateMap&) = delete;
    StateMap& operator=(const StateMap&) = delete;

    // Opens (creating it) and maps the `.state` that `directory` (the statistics folder, `path`
    // for messages) names now, brought to the record's size, its blocks allocated (a full file
    // system says so here, not with a SIGBUS later). UNAVAILABLE saying why (errno kept) when it
    // is refused. `mapped` false (the folder is the nnemu-sysfs FUSE view, whose pages are not
    // the file's underneath): the record is read and written with pread/pwrite under flock(2),
    // which the view takes too.
    // `witness`: a file of the folder that exists only once some process held a state (made
    // here with `witness` present: madeWhereLost()).
    Status open(int directory, const std::string& path, bool mapped = true, const char* witness = nullptr);
    void close();
    bool isOpen() const { return fd_ >= 0; }
    int fd() const { return fd_; }
    // The name still holds the mapped file, at the record's size (one fstatat).
    bool current(int directory) const;

    enum class Locked { YES, TAKEN_OVER, FAULT };
    // Takes the update lock, waiting while its holder works. TAKEN_OVER: from a live holder that
    // kept one acquisition 5 s (worth a warning); FAULT: the mapping was cut (look again).
    Locked lock();
    void unlock();
    // Under the lock: the record out of the mapping, and back (all but the lock word, and only
    // while the lock is still ours). False: the mapping was cut.
    bool load(StateRecord* record);
    bool store(const StateRecord& record);
    // Why the file could not be used as found when opened ("" if it could): consumed by the
    // first load's caller.
    std::string takeOpenDamage();
    // The last open made .state while its witness existed: an earlier state was lost.
    bool madeWhereLost() const { return madeWhereLost_; }

private:
    Locked lockFile();

    int fd_ = -1;
    StateRecord* map_ = nullptr;  // null: not mapped (pread/pwrite under flock)
    dev_t device_ = 0;
    ino_t inode_ = 0;
    pid_t owner_ = 0;         // the process that mapped it: a forked child maps its own
    uint64_t token_ = 0;      // our lock word while we hold it
    uint32_t acquisitions_ = 0;
    std::string openDamage_;
    bool madeWhereLost_ = false;
};

}  // namespace nnemu::synap
