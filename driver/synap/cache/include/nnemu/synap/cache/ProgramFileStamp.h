// What a program file's status says of it (ProgramFiles.h): device, inode, size, modification
// and change times in nanoseconds. An entry index records the stamp of a program file whose
// bytes are known to be right (this process wrote and linked it, or checksummed it in full); a
// hit through the index that finds exactly that stamp skips the checksum, since any write to the
// file since then (in place, truncated, copied or moved over, touched) changes one of them,
// except a change within the clock tick of the recorded times (hence settled()).
#pragma once

#include <sys/stat.h>

#include <cstdint>

namespace nnemu::cache {

struct ProgramFileStamp {
    uint64_t device = 0, inode = 0;
    int64_t size = 0;  // 0: no stamp
    int64_t mtimeNs = 0, ctimeNs = 0;

    static ProgramFileStamp of(const struct stat& info);
    bool empty() const { return size == 0; }
    // Neither time within the last kSettledSeconds of now: a change within one clock tick of
    // them would keep the times, so a file changed just now (its writer maybe not done) is not
    // recorded (as the stand-in key of ModelKey.h).
    bool settled() const;
    bool operator==(const ProgramFileStamp&) const = default;

    static constexpr int64_t kSettledSeconds = 2;
};

}  // namespace nnemu::cache
