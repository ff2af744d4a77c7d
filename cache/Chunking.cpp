#include "nnemu/cache/Chunking.h"

#include <array>

namespace nnemu::cache {
namespace {

// 256 fixed pseudo-random words (splitmix64): part of the stored format, since they decide
// where chunks are cut. Changing them only costs sharing with chunks stored before.
constexpr std::array<uint64_t, 256> makeGearTable() {
    std::array<uint64_t, 256> table{};
    uint64_t state = 0x6e6e656d75636163ULL;  // "nnemucac"
    for (auto& word : table) {
        state += 0x9e3779b97f4a7c15ULL;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        word = z ^ (z >> 31);
    }
    return table;
}

constexpr std::array<uint64_t, 256> kGear = makeGearTable();
constexpr uint64_t kCutMask = ((uint64_t{1} << kChunkCutBits) - 1) << (64 - kChunkCutBits);
// The hash forgets a byte after 64 shifts, so starting it this far before the first possible
// cut makes every cut depend on content only.
constexpr size_t kWindow = 64;
static_assert(kMinChunkSize > kWindow);

size_t nextCut(const uint8_t* data, size_t size) {
    if (size <= kMinChunkSize) return size;
    const size_t end = size < kMaxChunkSize ? size : kMaxChunkSize;
    uint64_t hash = 0;
    for (size_t i = kMinChunkSize - kWindow; i < kMinChunkSize; ++i) hash = (hash << 1) + kGear[data[i]];
    for (size_t i = kMinChunkSize; i < end; ++i) {
        hash = (hash << 1) + kGear[data[i]];
        if ((hash & kCutMask) == 0) return i + 1;
    }
    return end;
}

}  // namespace

std::vector<Chunk> contentDefinedChunks(const uint8_t* data, size_t size) {
    std::vector<Chunk> chunks;
    size_t offset = 0;
    while (offset < size) {
        const size_t length = nextCut(data + offset, size - offset);
        chunks.push_back({offset, length});
        offset += length;
    }
    return chunks;
}

}  // namespace nnemu::cache
