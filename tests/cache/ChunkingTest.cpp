// Content-defined chunking: chunks tile the input within the size bounds, and a run of bytes
// shared by two buffers is cut into the same chunks in both, whatever precedes it.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "nnemu/cache/Chunking.h"

namespace nnemu::cache {
namespace {

std::vector<uint8_t> randomBytes(size_t size, uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<uint8_t> bytes(size);
    for (auto& byte : bytes) byte = static_cast<uint8_t>(random());
    return bytes;
}

std::set<std::string> chunkContents(const std::vector<uint8_t>& bytes) {
    std::set<std::string> contents;
    for (const Chunk& chunk : contentDefinedChunks(bytes.data(), bytes.size())) {
        contents.emplace(reinterpret_cast<const char*>(bytes.data() + chunk.offset), chunk.size);
    }
    return contents;
}

TEST(ChunkingTest, ChunksTileTheInputWithinTheirBounds) {
    const auto bytes = randomBytes(1 << 20, 1);
    const auto chunks = contentDefinedChunks(bytes.data(), bytes.size());
    ASSERT_GT(chunks.size(), 16u);
    size_t offset = 0;
    for (size_t i = 0; i < chunks.size(); ++i) {
        EXPECT_EQ(chunks[i].offset, offset);
        EXPECT_LE(chunks[i].size, kMaxChunkSize);
        if (i + 1 < chunks.size()) {
            EXPECT_GE(chunks[i].size, kMinChunkSize);
        }
        offset += chunks[i].size;
    }
    EXPECT_EQ(offset, bytes.size());
    // About one cut per 8 KiB past the 2 KiB minimum: 1 MiB gives roughly 100 chunks.
    EXPECT_GT(chunks.size(), 50u);
    EXPECT_LT(chunks.size(), 200u);
}

TEST(ChunkingTest, EmptyAndSmallInputs) {
    EXPECT_TRUE(contentDefinedChunks(nullptr, 0).empty());
    const auto bytes = randomBytes(100, 2);
    const auto chunks = contentDefinedChunks(bytes.data(), bytes.size());
    ASSERT_EQ(chunks.size(), 1u);
    EXPECT_EQ(chunks[0].size, 100u);
}

TEST(ChunkingTest, ASharedRunGivesTheSameChunksWhateverPrecedesIt) {
    const auto shared = randomBytes(256 * 1024, 3);
    std::vector<uint8_t> first = randomBytes(5000, 4), second = randomBytes(12345, 5);
    first.insert(first.end(), shared.begin(), shared.end());
    second.insert(second.end(), shared.begin(), shared.end());
    const auto a = chunkContents(first), b = chunkContents(second);
    size_t sharedBytes = 0;
    for (const auto& chunk : a) {
        if (b.count(chunk) != 0) sharedBytes += chunk.size();
    }
    // All but the chunks straddling the start of the shared run are identical.
    EXPECT_GT(sharedBytes, shared.size() - 2 * kMaxChunkSize);
}

TEST(ChunkingTest, UniformBytesAreCutAtTheMaximum) {
    const std::vector<uint8_t> zeros(300 * 1024, 0);
    const auto chunks = contentDefinedChunks(zeros.data(), zeros.size());
    for (size_t i = 0; i + 1 < chunks.size(); ++i) EXPECT_LE(chunks[i].size, kMaxChunkSize);
    EXPECT_GE(chunks.size(), zeros.size() / kMaxChunkSize);
}

}  // namespace
}  // namespace nnemu::cache
