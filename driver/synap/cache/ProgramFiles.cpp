#include "ProgramFiles.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "CacheFile.h"
#include "nnemu/base/Trace.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/cache/Crc32c.h"

namespace nnemu::cache {
namespace {

constexpr const char* kSuffix = ".npu";
// Version 2: lane CRC-32Cs (Crc32c.h) instead of SHA-256. A version-1 file (80-byte trailer) has
// the wrong size for its program, so it is refused and written again, never misread.
constexpr char kMagic[8] = {'N', 'N', 'E', 'M', 'U', 'P', 'F', '2'};

struct Trailer {
    char magic[8];
    uint64_t size;
    char md5[32];  // hexadecimal, as the database names the program
    uint32_t crc32c[4];  // laneCrc32c of the program
};
static_assert(sizeof(Trailer) == kProgramFileTrailerSize);

// Whether the trailer of a mapped file describes exactly its program and the database's md5,
// and (when `checksum`) the program's bytes agree with its CRC-32Cs.
std::string checkTrailer(const ProgramImage& image, const std::string& programMd5, bool checksum) {
    Trailer trailer {};
    if (image.tail().size() != sizeof trailer) return "has no trailer";
    std::memcpy(&trailer, image.tail().data(), sizeof trailer);
    if (std::memcmp(trailer.magic, kMagic, sizeof kMagic) != 0) return "is not a program file";
    if (trailer.size != image.size() || programMd5.size() != sizeof trailer.md5 ||
        std::memcmp(trailer.md5, programMd5.data(), sizeof trailer.md5) != 0) {
        return "holds another program";
    }
    if (!checksum) return {};
    trace::Span span("checksum program file", "cache");
    cacheCounters().programFileChecksums++;
    const LaneCrcs sum = laneCrc32c(image.bytes());
    if (std::memcmp(sum.data(), trailer.crc32c, sizeof trailer.crc32c) != 0) return "fails its checksum";
    return {};
}

Status refuse(int dir, const std::string& name, const std::string& reason, bool remove = true) {
    if (remove) unlinkat(dir, name.c_str(), 0);  // a link or a regular file goes; a directory stays
    return {StatusCode::DAMAGED, "the program file " + name + " " + reason};
}

}  // namespace

std::string programFileName(const std::string& databaseName, const std::string& programMd5) {
    return databaseName + "." + programMd5 + kSuffix;
}

Result<ProgramImage> mapProgramFile(int dir, const std::string& name, int64_t size, const std::string& programMd5,
                                    bool removeRefused, const ProgramFileStamp& known, ProgramFileStamp* verified) {
    if (verified != nullptr) *verified = {};
    const int fd = openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return Status(StatusCode::NOT_FOUND, {});
        if (errno == ELOOP) return refuse(dir, name, "is a symbolic link", removeRefused);
        return refuse(dir, name, std::string("cannot be opened: ") + std::strerror(errno), removeRefused);
    }
    struct stat info {};
    const int64_t fileSize = size + static_cast<int64_t>(sizeof(Trailer));
    const bool regular = fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
    const bool sized = regular && info.st_size == fileSize && size > 0;
    const ProgramFileStamp stamp = ProgramFileStamp::of(info);
    const bool unchanged = !known.empty() && stamp == known;  // no checksum
    Result<ProgramImage> mapped = sized ? ProgramImage::map(fd, static_cast<size_t>(fileSize), 0, static_cast<size_t>(size))
                                        : Result<ProgramImage>(Status(StatusCode::BAD_DATA, {}));
    close(fd);
    if (!regular) return refuse(dir, name, "is not a regular file", removeRefused);
    if (!sized) return refuse(dir, name, "is " + std::to_string(info.st_size) + " bytes, not " + std::to_string(fileSize), removeRefused);
    if (!mapped) return refuse(dir, name, mapped.message(), removeRefused);
    if (const std::string damage = checkTrailer(*mapped, programMd5, !unchanged); !damage.empty()) {
        mapped = Status(StatusCode::DAMAGED, damage);  // unmapped before the file goes
        return refuse(dir, name, damage, removeRefused);
    }
    if (verified != nullptr && (unchanged || stamp.settled())) *verified = stamp;
    return mapped;
}

ProgramFileStamp writeProgramFile(int dir, const std::string& name, std::span<const uint8_t> bytes,
                                  const std::string& programMd5) {
    Trailer trailer {};
    if (programMd5.size() != sizeof trailer.md5) return {};
    // Already there (a store of a program another entry holds): a hit checks what it maps.
    struct stat existing {};
    if (fstatat(dir, name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0) return {};
    std::memcpy(trailer.magic, kMagic, sizeof kMagic);
    trailer.size = bytes.size();
    std::memcpy(trailer.md5, programMd5.data(), sizeof trailer.md5);
    const LaneCrcs sum = laneCrc32c(bytes);
    std::memcpy(trailer.crc32c, sum.data(), sizeof trailer.crc32c);
    const std::string temp = "." + name + "." + std::to_string(getpid()) + ".tmp";
    unlinkat(dir, temp.c_str(), 0);
    const int fd = openat(dir, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return {};
    struct stat own {};
    const bool written = writeAll(fd, bytes) &&
                         writeAll(fd, {reinterpret_cast<const uint8_t*>(&trailer), sizeof trailer}) && fstat(fd, &own) == 0;
    close(fd);
    // linkat refuses an existing name: another process's copy of the same bytes stays.
    const bool linked = written && linkat(dir, temp.c_str(), dir, name.c_str(), 0) == 0;
    unlinkat(dir, temp.c_str(), 0);
    // Stamped after the private name is gone (which changes its change time).
    const ProgramFileStamp stamp = linked ? programFileStamp(dir, name) : ProgramFileStamp{};
    const bool ours = stamp.device == static_cast<uint64_t>(own.st_dev) && stamp.inode == static_cast<uint64_t>(own.st_ino) &&
                      stamp.size == own.st_size;
    return ours ? stamp : ProgramFileStamp{};
}

ProgramFileStamp programFileStamp(int dir, const std::string& name) {
    struct stat info {};
    if (fstatat(dir, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(info.st_mode)) return {};
    return ProgramFileStamp::of(info);
}

void removeProgramFiles(int dir, const std::string& databaseName, const std::string& programMd5) {
    if (!programMd5.empty()) {
        unlinkat(dir, programFileName(databaseName, programMd5).c_str(), 0);
        return;
    }
    const std::string prefix = databaseName + ".";
    removeFilesMatching(dir, [&](const std::string& name) {
        return name.size() == prefix.size() + 32 + std::strlen(kSuffix) && name.starts_with(prefix) &&
               name.ends_with(kSuffix);
    });
}

}  // namespace nnemu::cache
