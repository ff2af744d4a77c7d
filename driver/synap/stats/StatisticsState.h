// The statistics counters every process using a device root shares, kept in the statistics
// folder's `.state` (mode 0600: only the driver reads it).
//
// Why it survives anything a disk can hold:
// - Nothing about the lock is stored in the file. The lock is flock(2) on the open `.state`
//   (behind a process-local mutex, since flock does not exclude threads sharing one open file);
//   the kernel drops it when its holder exits, so no image of the file (copied while locked,
//   restored after power loss or from a container snapshot, made on another boot) can leave it
//   held. A holder that is alive but stopped (SIGSTOP, a debugger) costs a bounded wait, after
//   which the update is skipped: statistics are best-effort, inference never waits on them.
// - The record is read with pread and written back with pwrite under the lock, never mapped: a
//   file truncated under a running process reads short and is rebuilt, where a mapping would
//   raise SIGBUS on the next access.
// - Magic, version, size and a checksum over the whole record catch a truncated, zeroed, foreign,
//   older-format (the mapped robust mutex of version 1) or torn file; it is rebuilt with one
//   warning. The boot id tells networks of processes from another boot, which are all gone.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "nnemu/base/Status.h"

namespace nnemu::synap {

inline constexpr uint32_t kStateMagic = 0x5354504e;  // "NPTS"
inline constexpr uint32_t kStateVersion = 2;
inline constexpr int kMaxNetworks = 128;

// A network loaded in some process (pid 0: free).
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

// What the driver last wrote as inference_count or inference_time: any other content (a write,
// even of the same value, sets the modification time to now) is a reset.
struct FileIdentity {
    uint64_t inode;
    int64_t size;
    int64_t mtimeSec;
    int64_t mtimeNsec;
};

// The file's bytes, laid out without padding so that the checksum covers no undefined bytes.
struct StateRecord {
    uint32_t magic;
    uint32_t version;
    uint32_t size;
    uint32_t reserved;
    uint64_t checksum;  // over the record with this field zero
    char bootId[40];
    uint64_t totalCount;
    uint64_t totalTimeUs;
    uint64_t nextOrder;
    int64_t lastPruneNs;
    // Per reset file, the two last versions written: a crash between writing the record and
    // renaming the file into place leaves either one, and neither is a reset.
    FileIdentity written[2][2];
    StateSlot slots[kMaxNetworks];
};

uint64_t stateChecksum(const StateRecord& record);
// StateFile::read's reason for a file with no record in it yet.
inline constexpr const char* kStateMissing = "missing or empty";
// This boot's id (/proc/sys/kernel/random/boot_id), empty when unknown.
const std::string& currentBootId();
// A fresh, empty record of this boot.
void initializeState(StateRecord* record);

// `.state` opened and locked inside the statistics folder.
class StateFile {
public:
    StateFile() = default;
    ~StateFile();
    StateFile(const StateFile&) = delete;
    StateFile& operator=(const StateFile&) = delete;

    // Locks the `.state` that `directory` (the statistics folder, `path` for messages) names now,
    // creating it if missing. UNAVAILABLE saying why (errno kept) when it is refused or stays
    // locked too long.
    Status lock(int directory, const std::string& path);
    void unlock();
    // Reads the record; returns why it cannot be used ("" when it can). Needs the lock.
    std::string read(StateRecord* record);
    bool write(StateRecord* record);  // fills in the checksum

private:
    Status open(int directory, const std::string& path);
    Status timedLock(const std::string& path);
    void close();

    int fd_ = -1;
    dev_t device_ = 0;      // fd_'s file, as opened: compared with what the name holds at each lock
    ino_t inode_ = 0;
    off_t sizeLocked_ = 0;  // the file's size when the lock was taken
    off_t sizeRead_ = 0;    // the file's size at the last read, under the lock
    pid_t owner_ = 0;       // the process that opened fd_: a forked child must not share its lock
    bool stalled_ = false;  // the last lock attempt timed out: wait less until one succeeds
};

}  // namespace nnemu::synap
