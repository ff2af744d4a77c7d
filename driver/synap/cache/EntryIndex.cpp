#include "EntryIndex.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <functional>

#include "CacheFile.h"
#include "nnemu/base/Digest.h"
#include "nnemu/cache/Crc32c.h"

namespace nnemu::cache {
namespace {

constexpr const char* kSuffix = ".entry";
constexpr char kMagic[8] = {'N', 'N', 'E', 'M', 'U', 'I', 'X', '1'};
// Version 2: the program file's stamp (232 bytes; version 1 had 192).
constexpr uint32_t kFormatVersion = 2;
constexpr size_t kMaxKey = 64;

struct Record {
    char magic[8];
    uint32_t formatVersion;
    uint32_t compilerVersion;
    uint32_t keyLength;
    uint32_t reserved;  // zero
    char key[kMaxKey];  // zero-padded
    char program[32];
    char seal[32];
    int64_t size;
    uint64_t databaseDevice;
    uint64_t databaseInode;
    uint64_t fileDevice;  // the program file's stamp (all zero: none)
    uint64_t fileInode;
    int64_t fileSize;
    int64_t fileMtimeNs;
    int64_t fileCtimeNs;
    uint32_t crc32c[4];  // laneCrc32c of everything above
};
static_assert(sizeof(Record) == 232);

bool keyFits(const std::string& key) {
    if (key.empty() || key.size() > kMaxKey) return false;
    for (const char c : key) {
        const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-';
        if (!ok) return false;
    }
    return true;
}

Status refused(const std::string& name, const std::string& why) {
    return {StatusCode::DAMAGED, "the entry index " + name + " " + why};
}

}  // namespace

std::string entrySeal(const std::string& key, const std::string& program, int64_t compilerVersion) {
    static constexpr char kDomain[] = "nnemu SyNAP cache entry";  // the terminating zero separates
    const std::string version = std::to_string(compilerVersion);
    base::Digest digest(base::DigestAlgorithm::MD5);
    digest.update(kDomain, sizeof kDomain);
    for (const std::string& part : {std::cref(key), std::cref(program), std::cref(version)}) {
        digest.update(part.data(), part.size());
        digest.update("", 1);
    }
    return base::toHex(digest.finish());
}

std::string entryIndexName(const std::string& databaseName, const std::string& key) {
    return keyFits(key) ? databaseName + "." + key + kSuffix : std::string();
}

Result<EntryIndex> readEntryIndex(int dir, const std::string& databaseName, const std::string& key,
                                  uint32_t compilerVersion) {
    const std::string name = entryIndexName(databaseName, key);
    if (name.empty()) return Status(StatusCode::NOT_FOUND, {});
    const int fd = openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return Status(StatusCode::NOT_FOUND, {});
        return refused(name, errno == ELOOP ? "is a symbolic link" : std::string("cannot be opened: ") + std::strerror(errno));
    }
    Record record {};
    struct stat info {};
    const bool regular = fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
    const bool sized = regular && info.st_size == static_cast<off_t>(sizeof record);
    // A file of another size is read as far as its format version, to say so.
    const size_t head = sized ? sizeof record : offsetof(Record, compilerVersion);
    const bool read = regular && pread(fd, &record, head, 0) == static_cast<ssize_t>(head) && sized;
    close(fd);
    if (!regular) return refused(name, "is not a regular file");
    if (!sized && info.st_size >= static_cast<off_t>(offsetof(Record, compilerVersion)) &&
        std::memcmp(record.magic, kMagic, sizeof kMagic) == 0 && record.formatVersion != kFormatVersion) {
        return refused(name, "has format version " + std::to_string(record.formatVersion) + ", not " +
                                     std::to_string(kFormatVersion));
    }
    if (!sized) return refused(name, "is " + std::to_string(info.st_size) + " bytes, not " + std::to_string(sizeof record));
    if (!read) return refused(name, "cannot be read");
    if (std::memcmp(record.magic, kMagic, sizeof kMagic) != 0) return refused(name, "is not an entry index");
    if (!recordSealed(record)) {
        return refused(name, "fails its checksum");
    }
    if (record.formatVersion != kFormatVersion || record.reserved != 0) return refused(name, "has another format");
    EntryIndex index;
    if (record.keyLength != key.size() || std::memcmp(record.key, key.data(), key.size()) != 0) {
        return refused(name, "names another key");
    }
    index.key = key;
    index.program.assign(record.program, sizeof record.program);
    index.size = record.size;
    index.compilerVersion = record.compilerVersion;
    index.databaseDevice = static_cast<dev_t>(record.databaseDevice);
    index.databaseInode = static_cast<ino_t>(record.databaseInode);
    index.programFile = {record.fileDevice, record.fileInode, record.fileSize, record.fileMtimeNs, record.fileCtimeNs};
    if (index.compilerVersion != compilerVersion) return refused(name, "is for compiler version " + std::to_string(index.compilerVersion));
    if (std::string(record.seal, sizeof record.seal) != entrySeal(key, index.program, index.compilerVersion)) {
        return refused(name, "does not match its key (its seal fails)");
    }
    if (index.size <= 0) return refused(name, "names an empty program");
    return index;
}

bool writeEntryIndex(int dir, const std::string& databaseName, const EntryIndex& index) {
    const std::string name = entryIndexName(databaseName, index.key);
    const std::string seal = entrySeal(index.key, index.program, index.compilerVersion);
    Record record {};
    if (name.empty() || index.program.size() != sizeof record.program || seal.size() != sizeof record.seal) return false;
    std::memcpy(record.magic, kMagic, sizeof kMagic);
    record.formatVersion = kFormatVersion;
    record.compilerVersion = index.compilerVersion;
    record.keyLength = static_cast<uint32_t>(index.key.size());
    std::memcpy(record.key, index.key.data(), index.key.size());
    std::memcpy(record.program, index.program.data(), sizeof record.program);
    std::memcpy(record.seal, seal.data(), sizeof record.seal);
    record.size = index.size;
    record.databaseDevice = index.databaseDevice;
    record.databaseInode = index.databaseInode;
    if (!index.programFile.empty()) {
        record.fileDevice = index.programFile.device;
        record.fileInode = index.programFile.inode;
        record.fileSize = index.programFile.size;
        record.fileMtimeNs = index.programFile.mtimeNs;
        record.fileCtimeNs = index.programFile.ctimeNs;
    }
    sealRecord(record);
    return replaceFile(dir, name, {reinterpret_cast<const uint8_t*>(&record), sizeof record});
}

void removeEntryIndex(int dir, const std::string& databaseName, const std::string& key) {
    if (const std::string name = entryIndexName(databaseName, key); !name.empty()) unlinkat(dir, name.c_str(), 0);
}

void removeEntryIndexes(int dir, const std::string& databaseName) {
    const std::string prefix = databaseName + ".";
    const size_t suffix = std::strlen(kSuffix);
    removeFilesMatching(dir, [&](const std::string& name) {
        return name.size() > prefix.size() + suffix && name.starts_with(prefix) && name.ends_with(kSuffix) &&
               keyFits(name.substr(prefix.size(), name.size() - prefix.size() - suffix));
    });
}

}  // namespace nnemu::cache
