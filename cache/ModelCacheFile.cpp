#include "nnemu/cache/ModelCacheFile.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "nnemu/base/Trace.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/cache/Crc32c.h"

namespace nnemu::cache {
namespace {

constexpr char kMagic[8] = {'N', 'N', 'E', 'M', 'U', 'N', 'P', 'C'};
constexpr uint32_t kFormatVersion = 2;
constexpr size_t kChecksumOffset = 56;
// Refuse to read absurd sizes from a damaged header.
constexpr uint64_t kMaxPayload = uint64_t{1} << 32;

void putLe(uint8_t* at, uint64_t value, size_t bytes) {
    for (size_t i = 0; i < bytes; ++i) at[i] = static_cast<uint8_t>(value >> (8 * i));
}

uint64_t getLe(const uint8_t* at, size_t bytes) {
    uint64_t value = 0;
    for (size_t i = 0; i < bytes; ++i) value |= uint64_t{at[i]} << (8 * i);
    return value;
}

// Lane CRC-32Cs (Crc32c.h) of the payload, then of header bytes 0..55: damage, not an adversary,
// is what the checksum guards against, and it runs at memory speed at every hit.
std::array<uint8_t, 32> checksum(const uint8_t* header, const uint8_t* payload, size_t size) {
    std::array<uint8_t, 32> sum{};
    const LaneCrcs parts[] = {laneCrc32c({payload, size}), laneCrc32c({header, kChecksumOffset})};
    for (size_t part = 0; part < 2; ++part) {
        for (size_t lane = 0; lane < 4; ++lane) putLe(sum.data() + 16 * part + 4 * lane, parts[part][lane], 4);
    }
    return sum;
}

bool writeAll(int fd, const uint8_t* data, size_t size, off_t offset) {
    while (size > 0) {
        const ssize_t written = pwrite(fd, data, size, offset);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return false;
        data += written;
        size -= static_cast<size_t>(written);
        offset += written;
    }
    return true;
}

bool readAll(int fd, uint8_t* data, size_t size, off_t offset) {
    while (size > 0) {
        const ssize_t got = pread(fd, data, size, offset);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        data += got;
        size -= static_cast<size_t>(got);
        offset += got;
    }
    return true;
}

// Only a regular file is a cache file: a FIFO or a device could block or do anything.
Status isRegularFile(int fd, struct stat* info) {
    if (fstat(fd, info) != 0) return unavailable(std::strerror(errno));
    if (!S_ISREG(info->st_mode)) return unavailable("not a regular file");
    return {};
}

Status damaged(std::string message) { return {StatusCode::DAMAGED, std::move(message)}; }

// Checks a header read from a file of `fileSize` bytes; the payload's size in `size`.
Result<uint64_t> checkHeader(const uint8_t* header, uint64_t fileSize, const CacheToken& token,
                             uint32_t producerVersion) {
    if (std::memcmp(header, kMagic, sizeof kMagic) != 0 || getLe(header + 8, 4) != kFormatVersion) {
        return damaged("not a synap-npu model cache file of format version " + std::to_string(kFormatVersion));
    }
    if (getLe(header + 12, 4) != producerVersion) {
        return damaged("written by compiler version " + std::to_string(getLe(header + 12, 4)) + ", not " +
                       std::to_string(producerVersion));
    }
    if (std::memcmp(header + 16, token.data(), token.size()) != 0) return damaged("written for another cache token");
    constexpr size_t kReserved = kChecksumOffset + 32;  // zero up to the payload, outside the checksum
    if (std::any_of(header + kReserved, header + kModelCacheHeaderSize, [](uint8_t byte) { return byte != 0; })) {
        return damaged("the header's reserved bytes are not zero");
    }
    const uint64_t size = getLe(header + 48, 8);
    if (size > kMaxPayload || fileSize != kModelCacheHeaderSize + size) {
        return damaged("the file is " + std::to_string(fileSize) + " bytes, its header says " +
                       std::to_string(kModelCacheHeaderSize + size));
    }
    return size;
}

Status checksumMatches(const uint8_t* header, const uint8_t* payload, size_t size) {
    const std::array<uint8_t, 32> sum = checksum(header, payload, size);
    if (std::memcmp(sum.data(), header + kChecksumOffset, sum.size()) != 0) return damaged("the file fails its checksum");
    return {};
}

// The file `held` (locked) mapped, its header verified, and its payload checksummed unless the
// file is still exactly as `known` says. `verified`: see mapModelCacheFile.
Result<ProgramImage> mapChecked(int held, const CacheToken& token, uint32_t producerVersion, const ModelCacheSeal& known,
                                ModelCacheSeal* verified) {
    struct stat info {};
    if (fstat(held, &info) != 0 || static_cast<uint64_t>(info.st_size) <= kModelCacheHeaderSize) {
        return damaged("the file is too short for its header");
    }
    const auto fileSize = static_cast<size_t>(info.st_size);
    const FileStamp before = FileStamp::of(info);
    const bool maybeKnown = !known.empty() && before == known.stamp;
    NNEMU_ASSIGN_OR_RETURN(ProgramImage mapped,
                           ProgramImage::map(held, fileSize, kModelCacheHeaderSize, fileSize - kModelCacheHeaderSize));
    const uint8_t* header = mapped.head().data();
    NNEMU_RETURN_IF_ERROR(checkHeader(header, fileSize, token, producerVersion));
    ModelCacheSeal seal;
    std::memcpy(seal.checksum.data(), header + kChecksumOffset, seal.checksum.size());
    // The status again now that the bytes are mapped: a write in between changed it.
    seal.stamp = fstat(held, &info) == 0 ? FileStamp::of(info) : FileStamp{};
    const bool unchanged = maybeKnown && seal == known;
    if (!unchanged) {
        trace::Span span("checksum model cache file", "cache");
        cacheCounters().modelCacheChecksums++;
        NNEMU_RETURN_IF_ERROR(checksumMatches(header, mapped.data(), mapped.size()));
    }
    if (verified != nullptr && (unchanged || seal.stamp.settled())) *verified = seal;
    return mapped;
}

// A new open file (a file description of its own) for the file `fd` refers to, read-only.
int reopen(int fd, const struct stat& info) {
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    const int reopened = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    struct stat same {};
    if (reopened >= 0 && (fstat(reopened, &same) != 0 || same.st_dev != info.st_dev || same.st_ino != info.st_ino)) {
        close(reopened);
        errno = ESTALE;
        return -1;
    }
    return reopened;
}

}  // namespace

Status writeModelCacheFile(int fd, const CacheToken& token, uint32_t producerVersion,
                           std::span<const uint8_t> payload, ModelCacheSeal* written) {
    if (written != nullptr) *written = {};
    struct stat info {};
    NNEMU_RETURN_IF_ERROR(isRegularFile(fd, &info));
    uint8_t header[kModelCacheHeaderSize] = {};
    std::memcpy(header, kMagic, sizeof kMagic);
    putLe(header + 8, kFormatVersion, 4);
    putLe(header + 12, producerVersion, 4);
    std::memcpy(header + 16, token.data(), token.size());
    putLe(header + 48, payload.size(), 8);
    const std::array<uint8_t, 32> sum = checksum(header, payload.data(), payload.size());
    std::memcpy(header + kChecksumOffset, sum.data(), sum.size());
    // Truncating a file that a running network maps would pull its pages away (SIGBUS).
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        return unavailable(errno == EWOULDBLOCK ? "a running network maps the file" : std::strerror(errno));
    }
    const bool complete = ftruncate(fd, 0) == 0 && writeAll(fd, header, sizeof header, 0) &&
                          writeAll(fd, payload.data(), payload.size(), sizeof header) && fdatasync(fd) == 0;
    Status status = complete ? Status() : unavailable(std::strerror(errno));
    // Stamped under the lock: no writer of ours changes the file in between.
    if (complete && written != nullptr && fstat(fd, &info) == 0) {
        written->stamp = FileStamp::of(info);
        std::memcpy(written->checksum.data(), header + kChecksumOffset, written->checksum.size());
    }
    flock(fd, LOCK_UN);
    return status;
}

bool hasModelCacheMagic(int fd) {
    uint8_t magic[sizeof kMagic];
    return readAll(fd, magic, sizeof magic, 0) && std::memcmp(magic, kMagic, sizeof kMagic) == 0;
}

Result<std::vector<uint8_t>> readModelCacheFile(int fd, const CacheToken& token, uint32_t producerVersion) {
    struct stat info {};
    NNEMU_RETURN_IF_ERROR(isRegularFile(fd, &info));
    uint8_t header[kModelCacheHeaderSize];
    if (static_cast<uint64_t>(info.st_size) < sizeof header || !readAll(fd, header, sizeof header, 0)) {
        return damaged("the file is too short for its header");
    }
    NNEMU_ASSIGN_OR_RETURN(const uint64_t size,
                           checkHeader(header, static_cast<uint64_t>(info.st_size), token, producerVersion));
    std::vector<uint8_t> payload(size, 0);
    if (!readAll(fd, payload.data(), size, sizeof header)) return damaged("the file is shorter than its header says");
    NNEMU_RETURN_IF_ERROR(checksumMatches(header, payload.data(), payload.size()));
    return payload;
}

Result<ProgramImage> mapModelCacheFile(int fd, const CacheToken& token, uint32_t producerVersion,
                                       const ModelCacheSeal& known, ModelCacheSeal* verified) {
    if (verified != nullptr) *verified = {};
    struct stat info {};
    NNEMU_RETURN_IF_ERROR(isRegularFile(fd, &info));
    // An open file of our own holds a shared lock while the mapping lives: writers keep off. Its
    // own, not a dup of the caller's descriptor, whose lock would last as long as the caller keeps
    // the descriptor open.
    const int held = reopen(fd, info);
    if (held < 0) return unavailable(std::string("cannot open the file again: ") + std::strerror(errno));
    if (flock(held, LOCK_SH | LOCK_NB) != 0) {
        Status refused = unavailable(errno == EWOULDBLOCK ? "the file is being written" : std::strerror(errno));
        close(held);
        return refused;
    }
    // The size again under the lock: a writer may have finished in between.
    Result<ProgramImage> mapped = mapChecked(held, token, producerVersion, known, verified);
    if (!mapped.isOk()) {
        close(held);
        return mapped;
    }
    mapped->holdWhileMapped(held);
    return mapped;
}

}  // namespace nnemu::cache
