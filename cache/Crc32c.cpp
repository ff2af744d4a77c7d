#include "nnemu/cache/Crc32c.h"

#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace nnemu::cache {
namespace {

constexpr size_t kWord = 8;
constexpr size_t kLanes = 4;

// CRC-32C, reflected polynomial 0x82F63B78, one byte at a time.
constexpr std::array<uint32_t, 256> makeTable() {
    std::array<uint32_t, 256> table {};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t crc = i;
        for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1) ? 0x82F63B78u : 0u);
        table[i] = crc;
    }
    return table;
}
constexpr std::array<uint32_t, 256> kTable = makeTable();

uint32_t updatePortable(uint32_t crc, const uint8_t* data, size_t size) {
    for (size_t i = 0; i < size; ++i) crc = kTable[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
    return crc;
}

// The words after the last whole group of four (at most three, the last one possibly short).
void finishTail(std::span<const uint8_t> bytes, size_t done, LaneCrcs* crcs,
                uint32_t (*update)(uint32_t, const uint8_t*, size_t)) {
    for (size_t lane = 0; done < bytes.size(); ++lane, done += kWord) {
        const size_t size = bytes.size() - done < kWord ? bytes.size() - done : kWord;
        (*crcs)[lane] = update((*crcs)[lane], bytes.data() + done, size);
    }
}

LaneCrcs finish(LaneCrcs crcs) {
    for (uint32_t& crc : crcs) crc = ~crc;
    return crcs;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t updateSse42(uint32_t crc, const uint8_t* data, size_t size) {
    for (size_t i = 0; i < size; ++i) crc = _mm_crc32_u8(crc, data[i]);
    return crc;
}

__attribute__((target("sse4.2"))) LaneCrcs laneCrc32cSse42(std::span<const uint8_t> bytes) {
    uint64_t c0 = 0xFFFFFFFFu, c1 = c0, c2 = c0, c3 = c0;
    const uint8_t* data = bytes.data();
    const size_t groups = bytes.size() / (kWord * kLanes);
    for (size_t g = 0; g < groups; ++g, data += kWord * kLanes) {
        uint64_t words[kLanes];
        std::memcpy(words, data, sizeof words);  // unaligned loads
        c0 = _mm_crc32_u64(c0, words[0]);
        c1 = _mm_crc32_u64(c1, words[1]);
        c2 = _mm_crc32_u64(c2, words[2]);
        c3 = _mm_crc32_u64(c3, words[3]);
    }
    LaneCrcs crcs {static_cast<uint32_t>(c0), static_cast<uint32_t>(c1), static_cast<uint32_t>(c2),
                   static_cast<uint32_t>(c3)};
    finishTail(bytes, groups * kWord * kLanes, &crcs, updateSse42);
    return finish(crcs);
}
#endif

}  // namespace

LaneCrcs laneCrc32cPortable(std::span<const uint8_t> bytes) {
    LaneCrcs crcs {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
    const size_t whole = bytes.size() / (kWord * kLanes) * (kWord * kLanes);
    for (size_t offset = 0; offset < whole; offset += kWord) {
        const size_t lane = offset / kWord % kLanes;
        crcs[lane] = updatePortable(crcs[lane], bytes.data() + offset, kWord);
    }
    finishTail(bytes, whole, &crcs, updatePortable);
    return finish(crcs);
}

LaneCrcs laneCrc32c(std::span<const uint8_t> bytes) {
#if defined(__x86_64__)
    static const bool hardware = __builtin_cpu_supports("sse4.2");
    if (hardware) return laneCrc32cSse42(bytes);
#endif
    return laneCrc32cPortable(bytes);
}

}  // namespace nnemu::cache
