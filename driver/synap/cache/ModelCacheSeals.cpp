#include "nnemu/synap/cache/ModelCacheSeals.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "CacheFile.h"
#include "nnemu/base/RootedFile.h"
#include "nnemu/base/Trace.h"
#include "nnemu/cache/Crc32c.h"

namespace nnemu::cache {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSuffix = ".nnapi";
constexpr char kMagic[8] = {'N', 'N', 'E', 'M', 'U', 'M', 'C', 'S'};
constexpr uint32_t kFormatVersion = 1;

struct Record {
    char magic[8];
    uint32_t formatVersion;
    uint32_t reserved;  // zero
    uint64_t device;
    uint64_t inode;
    int64_t size;
    int64_t mtimeNs;
    int64_t ctimeNs;
    uint8_t checksum[32];  // the cache file's header checksum
    uint32_t crc32c[4];    // laneCrc32c of everything above
};
static_assert(sizeof(Record) == 104);

bool isSealName(const std::string& name, const std::string& prefix) {
    return name.size() > prefix.size() + std::strlen(kSuffix) && name.starts_with(prefix) && name.ends_with(kSuffix);
}

// Keeps at most kMaxModelCacheSeals - 1 seal files other than `keep`: the least recently written go.
void prune(int dir, const std::string& databaseName, const std::string& keep) {
    const std::string prefix = databaseName + ".";
    std::vector<std::pair<int64_t, std::string>> seals;  // (modification time, name)
    removeFilesMatching(dir, [&](const std::string& name) {
        struct stat info {};
        if (name != keep && isSealName(name, prefix) && fstatat(dir, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0) {
            seals.emplace_back(FileStamp::of(info).mtimeNs, name);
        }
        return false;  // listed only
    });
    if (seals.size() < kMaxModelCacheSeals) return;
    std::sort(seals.begin(), seals.end());
    for (size_t i = 0; i + kMaxModelCacheSeals <= seals.size(); ++i) unlinkat(dir, seals[i].second.c_str(), 0);
}

}  // namespace

std::string modelCacheSealName(const std::string& databaseName, uint64_t device, uint64_t inode) {
    char id[40];
    std::snprintf(id, sizeof id, "%llx-%llx", static_cast<unsigned long long>(device), static_cast<unsigned long long>(inode));
    return databaseName + "." + id + kSuffix;
}

ModelCacheSeal recordedModelCacheSeal(const std::string& databaseFile, const std::string& root, const struct stat& file) {
    trace::Span span("read model cache seal", "cache");
    CacheDirectory directory;
    if (!directory.open(root, databaseFile, CacheDirectory::Path::kNone)) return {};
    const std::string name = modelCacheSealName(directory.name(), file.st_dev, file.st_ino);
    const int fd = openat(directory.fd(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return {};
    Record record {};
    struct stat info {};
    const bool read = fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size == static_cast<off_t>(sizeof record) &&
                      pread(fd, &record, sizeof record, 0) == static_cast<ssize_t>(sizeof record);
    close(fd);
    if (!read || std::memcmp(record.magic, kMagic, sizeof kMagic) != 0 || record.formatVersion != kFormatVersion ||
        record.reserved != 0 || !recordSealed(record) ||
        record.device != static_cast<uint64_t>(file.st_dev) || record.inode != static_cast<uint64_t>(file.st_ino)) {
        return {};
    }
    ModelCacheSeal seal;
    seal.stamp = {record.device, record.inode, record.size, record.mtimeNs, record.ctimeNs};
    std::memcpy(seal.checksum.data(), record.checksum, sizeof record.checksum);
    return seal;
}

void recordModelCacheSeal(const std::string& databaseFile, const std::string& root, const ModelCacheSeal& seal) {
    if (seal.empty()) return;
    trace::Span span("record model cache seal", "cache");
    CacheDirectory existing, made;
    const bool found = existing.open(root, databaseFile, CacheDirectory::Path::kNone).isOk();
    // Missing directories inside the device root are made, as for the SyNAP cache itself.
    if (!found && (root.empty() ||
                   !base::makeDirectoriesInsideRoot(root, fs::path(databaseFile).lexically_normal().parent_path().string()) ||
                   !made.open(root, databaseFile, CacheDirectory::Path::kNone))) {
        return;
    }
    const CacheDirectory& directory = found ? existing : made;
    Record record {};
    std::memcpy(record.magic, kMagic, sizeof kMagic);
    record.formatVersion = kFormatVersion;
    record.device = seal.stamp.device;
    record.inode = seal.stamp.inode;
    record.size = seal.stamp.size;
    record.mtimeNs = seal.stamp.mtimeNs;
    record.ctimeNs = seal.stamp.ctimeNs;
    std::memcpy(record.checksum, seal.checksum.data(), sizeof record.checksum);
    sealRecord(record);
    const std::string name = modelCacheSealName(directory.name(), seal.stamp.device, seal.stamp.inode);
    if (replaceFile(directory.fd(), name, {reinterpret_cast<const uint8_t*>(&record), sizeof record})) {
        prune(directory.fd(), directory.name(), name);
    }
}

void removeModelCacheSeals(int dir, const std::string& databaseName) {
    const std::string prefix = databaseName + ".";
    removeFilesMatching(dir, [&](const std::string& name) { return isSealName(name, prefix); });
}

}  // namespace nnemu::cache
