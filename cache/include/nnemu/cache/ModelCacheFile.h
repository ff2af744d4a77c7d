// The NNAPI model cache file synap-npu writes (nnapi-fl29.md §6.6): a fixed header, then the
// whole NPU program. The header carries the cache token the runtime derived, the producer's
// (compiler's) version, the payload size and a checksum over header and payload, so a file that
// was modified, truncated, torn by a crash in the middle of writing, or written for another
// token or compiler is refused rather than trusted. The payload starts 128 bytes in, so that a
// mapping of the file holds the program 64-byte aligned, as the program's packed data wants it.
//
//   offset  size  field
//        0     8  magic "NNEMUNPC"
//        8     4  format version (2; version 1 had its payload at 88 and a SHA-256), little-endian
//       12     4  producer version, little-endian
//       16    32  cache token
//       48     8  payload size, little-endian
//       56    16  the payload's four lane CRC-32Cs (cache/Crc32c.h), little-endian
//       72    16  the same of bytes 0..55
//       88    40  zero (checked)
//      128     -  payload
//
// A mapped file is locked shared (flock) for as long as the mapping lives and a writer takes the
// lock exclusively without waiting, so that no process of ours truncates a file another one runs
// from; a writer that finds it taken leaves the file as it is.
//
// The checksum is what makes a file trusted, but it reads the whole payload at every hit. A
// caller that remembers a file's seal (its stamp, FileStamp.h, and header checksum when it was
// known to be right) may pass it back: a file that still has exactly that stamp and that header
// checksum is mapped without checking the payload again. Where seals are kept is the caller's
// (the synap-npu driver keeps them beside its SyNAP cache: ModelCacheSeals.h); the application
// owns the cache file, and nothing is written into it but the file itself.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <span>
#include <vector>

#include "nnemu/cache/FileStamp.h"
#include "nnemu/cache/ProgramImage.h"

namespace nnemu::cache {

inline constexpr size_t kModelCacheHeaderSize = 128;

// The runtime's compilation cache token (ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN bytes).
using CacheToken = std::array<uint8_t, 32>;

// What a caller may remember of a file known to be right: its stamp and its header's checksum
// (bytes 56..87) at that time. Empty: nothing is known.
struct ModelCacheSeal {
    FileStamp stamp;
    std::array<uint8_t, 32> checksum{};

    bool empty() const { return stamp.empty(); }
    bool operator==(const ModelCacheSeal&) const = default;
};

// Replaces the file's content: truncate, write from offset 0 (whatever the fd's position), and
// sync. UNAVAILABLE saying why on failure (the file may then be torn; its checksum tells), or when
// a running network maps the file (it is then left untouched). Anything
// but a regular file (a FIFO, a device) is refused untouched, here and in readModelCacheFile.
// `written` (optional) receives the seal of the file as written, its stamp taken after the sync
// under the writer's lock (empty on failure).
Status writeModelCacheFile(int fd, const CacheToken& token, uint32_t producerVersion, std::span<const uint8_t> payload,
                           ModelCacheSeal* written = nullptr);

// Reads and verifies the file from offset 0: its payload, or DAMAGED saying why when it is not a
// complete, unmodified file for this token and producer version (UNAVAILABLE when it cannot be read).
Result<std::vector<uint8_t>> readModelCacheFile(int fd, const CacheToken& token, uint32_t producerVersion);

// As readModelCacheFile, but maps the file (ProgramImage) instead of copying the payload, and
// holds the file's shared lock until the image is released. A file whose stamp, after it is
// mapped, and header checksum are exactly `known` is not checksummed (its pages fault in as the
// reader reads them); any other is, counted in cacheCounters().modelCacheChecksums. The header
// is checked either way. `verified` (optional) receives the file's seal when it may be
// remembered: it matched `known`, or it was checksummed and its stamp is settled; else an empty one.
Result<ProgramImage> mapModelCacheFile(int fd, const CacheToken& token, uint32_t producerVersion,
                                       const ModelCacheSeal& known = {}, ModelCacheSeal* verified = nullptr);

// Whether the file starts with this format's magic, i.e. was written here (whatever its state).
bool hasModelCacheMagic(int fd);

}  // namespace nnemu::cache
