#include "nnemu/cache/ModelCacheFile.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "nnemu/cache/Digest.h"

namespace nnemu::cache {
namespace {

constexpr char kMagic[8] = {'N', 'N', 'E', 'M', 'U', 'N', 'P', 'C'};
constexpr uint32_t kFormatVersion = 1;
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

std::vector<uint8_t> checksum(const uint8_t* header, const uint8_t* payload, size_t size) {
    Digest digest(DigestAlgorithm::SHA256);
    digest.update(header, kChecksumOffset);
    digest.update(payload, size);
    return digest.finish();
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
bool isRegularFile(int fd, struct stat* info, std::string* error) {
    if (fstat(fd, info) != 0) {
        *error = std::strerror(errno);
        return false;
    }
    if (!S_ISREG(info->st_mode)) {
        *error = "not a regular file";
        return false;
    }
    return true;
}

}  // namespace

bool writeModelCacheFile(int fd, const CacheToken& token, uint32_t producerVersion,
                         std::span<const uint8_t> payload, std::string* error) {
    struct stat info {};
    if (!isRegularFile(fd, &info, error)) return false;
    uint8_t header[kModelCacheHeaderSize] = {};
    std::memcpy(header, kMagic, sizeof kMagic);
    putLe(header + 8, kFormatVersion, 4);
    putLe(header + 12, producerVersion, 4);
    std::memcpy(header + 16, token.data(), token.size());
    putLe(header + 48, payload.size(), 8);
    const std::vector<uint8_t> sum = checksum(header, payload.data(), payload.size());
    if (sum.size() != 32) {
        *error = "SHA-256 is unavailable";
        return false;
    }
    std::memcpy(header + kChecksumOffset, sum.data(), sum.size());
    if (ftruncate(fd, 0) != 0 || !writeAll(fd, header, sizeof header, 0) ||
        !writeAll(fd, payload.data(), payload.size(), sizeof header) || fdatasync(fd) != 0) {
        *error = std::strerror(errno);
        return false;
    }
    return true;
}

bool hasModelCacheMagic(int fd) {
    uint8_t magic[sizeof kMagic];
    return readAll(fd, magic, sizeof magic, 0) && std::memcmp(magic, kMagic, sizeof kMagic) == 0;
}

bool readModelCacheFile(int fd, const CacheToken& token, uint32_t producerVersion,
                        std::vector<uint8_t>* payload, std::string* error) {
    struct stat info {};
    if (!isRegularFile(fd, &info, error)) return false;
    uint8_t header[kModelCacheHeaderSize];
    if (static_cast<uint64_t>(info.st_size) < sizeof header || !readAll(fd, header, sizeof header, 0)) {
        *error = "the file is too short for its header";
        return false;
    }
    if (std::memcmp(header, kMagic, sizeof kMagic) != 0 || getLe(header + 8, 4) != kFormatVersion) {
        *error = "not a synap-npu model cache file";
        return false;
    }
    if (getLe(header + 12, 4) != producerVersion) {
        *error = "written by compiler version " + std::to_string(getLe(header + 12, 4)) + ", not " +
                 std::to_string(producerVersion);
        return false;
    }
    if (std::memcmp(header + 16, token.data(), token.size()) != 0) {
        *error = "written for another cache token";
        return false;
    }
    const uint64_t size = getLe(header + 48, 8);
    if (size > kMaxPayload || static_cast<uint64_t>(info.st_size) != sizeof header + size) {
        *error = "the file is " + std::to_string(info.st_size) + " bytes, its header says " +
                 std::to_string(sizeof header + size);
        return false;
    }
    payload->assign(size, 0);
    if (!readAll(fd, payload->data(), size, sizeof header)) {
        *error = "the file is shorter than its header says";
        return false;
    }
    const std::vector<uint8_t> sum = checksum(header, payload->data(), payload->size());
    if (sum.size() != 32 || std::memcmp(sum.data(), header + kChecksumOffset, 32) != 0) {
        *error = "the file fails its checksum";
        return false;
    }
    return true;
}

}  // namespace nnemu::cache
