// The program files' lane CRC-32C (cache/Crc32c.h): the hardware and table implementations agree
// with a bitwise CRC-32C of each lane's bytes, at every length and alignment, and every single
// bit flip and every short burst changes the result.
#include <gtest/gtest.h>

#include <random>
#include <string_view>
#include <vector>

#include "nnemu/cache/Crc32c.h"

namespace nnemu::cache {
namespace {

uint32_t bitwiseCrc32c(const std::vector<uint8_t>& bytes) {
    uint32_t crc = 0xFFFFFFFFu;
    for (uint8_t byte : bytes) {
        crc ^= byte;
        for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1) ? 0x82F63B78u : 0u);
    }
    return ~crc;
}

// Lane k: the bytes of the 8-byte words whose index is k modulo 4.
LaneCrcs reference(std::span<const uint8_t> bytes) {
    std::vector<uint8_t> lanes[4];
    for (size_t i = 0; i < bytes.size(); ++i) lanes[i / 8 % 4].push_back(bytes[i]);
    return {bitwiseCrc32c(lanes[0]), bitwiseCrc32c(lanes[1]), bitwiseCrc32c(lanes[2]), bitwiseCrc32c(lanes[3])};
}

TEST(Crc32cTest, TheReferenceIsCrc32c) {
    constexpr std::string_view kCheck = "123456789";
    EXPECT_EQ(bitwiseCrc32c({kCheck.begin(), kCheck.end()}), 0xE3069283u);
    const std::vector<uint8_t> eight(kCheck.begin(), kCheck.begin() + 8);
    EXPECT_EQ(laneCrc32c(eight)[0], bitwiseCrc32c(eight));
    EXPECT_EQ(laneCrc32c({})[0], 0u);
}

TEST(Crc32cTest, BothImplementationsAgreeWithTheReferenceAtEveryLengthAndAlignment) {
    std::mt19937 random(13);
    std::vector<uint8_t> buffer(5000 + 8);
    for (uint8_t& byte : buffer) byte = static_cast<uint8_t>(random());
    std::vector<size_t> lengths;
    for (size_t length = 0; length <= 100; ++length) lengths.push_back(length);
    for (size_t length : {size_t{255}, size_t{256}, size_t{257}, size_t{4093}, size_t{5000}}) lengths.push_back(length);
    for (size_t length : lengths) {
        for (size_t offset = 0; offset < 8; offset += 3) {
            const std::span<const uint8_t> bytes(buffer.data() + offset, length);
            SCOPED_TRACE(testing::Message() << "length " << length << " offset " << offset);
            const LaneCrcs expected = reference(bytes);
            EXPECT_EQ(laneCrc32c(bytes), expected);
            EXPECT_EQ(laneCrc32cPortable(bytes), expected);
        }
    }
}

TEST(Crc32cTest, EverySingleBitFlipAndShortBurstIsDetected) {
    std::mt19937 random(7);
    std::vector<uint8_t> bytes(1000);
    for (uint8_t& byte : bytes) byte = static_cast<uint8_t>(random());
    const LaneCrcs original = laneCrc32c(bytes);
    for (size_t bit = 0; bit < bytes.size() * 8; ++bit) {
        bytes[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
        ASSERT_NE(laneCrc32c(bytes), original) << "bit " << bit;
        bytes[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    }
    for (size_t start = 0; start + 4 <= bytes.size(); ++start) {  // 32-bit bursts across words
        std::vector<uint8_t> damaged = bytes;
        for (size_t i = 0; i < 4; ++i) damaged[start + i] ^= static_cast<uint8_t>(random() | 1);
        ASSERT_NE(laneCrc32c(damaged), original) << "burst at " << start;
    }
}

}  // namespace
}  // namespace nnemu::cache
