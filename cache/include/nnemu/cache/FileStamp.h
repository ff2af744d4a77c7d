// What a file's status says of it: device, inode, size, modification and change times in
// nanoseconds. A cache records the stamp of a file whose bytes it knows to be right (it wrote
// them, or checksummed them in full); a later use that finds exactly that stamp may skip the
// checksum, since any write to the file since then (in place, truncated, copied or moved over,
// touched) changes one of them, except a change within the clock tick of the recorded times
// (hence settled()). The SyNAP cache's program files (ProgramFileStamp.h) and the NNAPI model
// cache files (ModelCacheFile.h) are stamped so.
#pragma once

#include <sys/stat.h>

#include <cstdint>

namespace nnemu::cache {

struct FileStamp {
    uint64_t device = 0, inode = 0;
    int64_t size = 0;  // 0: no stamp
    int64_t mtimeNs = 0, ctimeNs = 0;

    static FileStamp of(const struct stat& info);
    bool empty() const { return size == 0; }
    // Neither time within the last kSettledSeconds of now: a change within one clock tick of
    // them would keep the times, so a file changed just now (its writer maybe not done) is not
    // recorded by a reader (as the stand-in key of ModelKey.h).
    bool settled() const;
    bool operator==(const FileStamp&) const = default;

    static constexpr int64_t kSettledSeconds = 2;
};

}  // namespace nnemu::cache
