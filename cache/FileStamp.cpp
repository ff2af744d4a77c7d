#include "nnemu/cache/FileStamp.h"

#include <chrono>

namespace nnemu::cache {
namespace {

int64_t nanoseconds(const timespec& time) { return int64_t{time.tv_sec} * 1000000000 + time.tv_nsec; }

}  // namespace

FileStamp FileStamp::of(const struct stat& info) {
    return {static_cast<uint64_t>(info.st_dev), static_cast<uint64_t>(info.st_ino), static_cast<int64_t>(info.st_size),
            nanoseconds(info.st_mtim), nanoseconds(info.st_ctim)};
}

bool FileStamp::settled() const {
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                                std::chrono::system_clock::now().time_since_epoch()).count();
    constexpr int64_t kSecond = 1000000000;
    return !empty() && now - mtimeNs / kSecond >= kSettledSeconds && now - ctimeNs / kSecond >= kSettledSeconds;
}

}  // namespace nnemu::cache
