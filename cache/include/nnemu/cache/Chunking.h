// Content-defined chunking of the programs the SyNAP cache stores. A cut falls where a rolling
// (gear) hash of the last 64 bytes has its top bits clear, so a run of bytes two programs share
// (the same layer's weights, say) is cut the same way in both, whatever precedes it, and its
// chunks are stored once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nnemu::cache {

struct Chunk {
    size_t offset = 0;
    size_t size = 0;
};

inline constexpr size_t kMinChunkSize = 2 * 1024;
inline constexpr size_t kMaxChunkSize = 64 * 1024;
// Cuts are tested with this many top hash bits: about one cut per 8 KiB past the minimum.
inline constexpr unsigned kChunkCutBits = 13;

// Consecutive chunks covering [0, size); one empty chunk list for size 0.
std::vector<Chunk> contentDefinedChunks(const uint8_t* data, size_t size);

}  // namespace nnemu::cache
