// md5's block function (RFC 1321 §3.4): four rounds of sixteen steps over little-endian words.
#include <bit>
#include <cmath>

#include "DigestRounds.h"

namespace nnemu::base {
namespace {

// T[i] = floor(2^32 * |sin(i + 1)|), as the RFC defines them (doubles give them exactly).
const std::array<uint32_t, 64>& sineTable() {
    static const std::array<uint32_t, 64> table = [] {
        std::array<uint32_t, 64> t{};
        for (int i = 0; i < 64; ++i) t[i] = static_cast<uint32_t>(std::floor(std::fabs(std::sin(i + 1.0)) * 4294967296.0));
        return t;
    }();
    return table;
}

uint32_t littleEndianWord(const uint8_t* at) {
    return uint32_t{at[0]} | uint32_t{at[1]} << 8 | uint32_t{at[2]} << 16 | uint32_t{at[3]} << 24;
}

// The order in which each round reads the message words, and its rotations.
struct Round {
    static constexpr int kShifts[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};
    static constexpr int word(int round, int i) {
        return round == 0 ? i : round == 1 ? (5 * i + 1) % 16 : round == 2 ? (3 * i + 5) % 16 : (7 * i) % 16;
    }
};

// a = b + ((a + F(b, c, d) + word + sine) <<< shift), with the RFC's functions written so that
// as little as possible waits for b, the previous step's result: F as d ^ (b & (c ^ d)), and G's
// two halves (disjoint bits, so OR is ADD) added one at a time.
template <int R>
void step(uint32_t& a, uint32_t b, uint32_t c, uint32_t d, uint32_t word, uint32_t sine, int shift) {
    a += word + sine;
    if constexpr (R == 0) a += d ^ (b & (c ^ d));
    if constexpr (R == 1) a += (c & ~d) + (b & d);
    if constexpr (R == 2) a += b ^ c ^ d;
    if constexpr (R == 3) a += c ^ (b | ~d);
    a = b + std::rotl(a, shift);
}

// Sixteen steps, four at a time so the rotations are constants and the registers rotate by name.
template <int R>
void round(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d, const uint32_t* x, const uint32_t* t) {
    constexpr const int* s = Round::kShifts[R];
    for (int i = 0; i < 16; i += 4) {
        step<R>(a, b, c, d, x[Round::word(R, i)], t[16 * R + i], s[0]);
        step<R>(d, a, b, c, x[Round::word(R, i + 1)], t[16 * R + i + 1], s[1]);
        step<R>(c, d, a, b, x[Round::word(R, i + 2)], t[16 * R + i + 2], s[2]);
        step<R>(b, c, d, a, x[Round::word(R, i + 3)], t[16 * R + i + 3], s[3]);
    }
}

}  // namespace

std::array<uint32_t, 8> md5Initial() { return {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476}; }

void md5Block(std::array<uint32_t, 8>& state, const uint8_t* block) {
    const std::array<uint32_t, 64>& t = sineTable();
    uint32_t x[16];
    for (int i = 0; i < 16; ++i) x[i] = littleEndianWord(block + 4 * i);
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    round<0>(a, b, c, d, x, t.data());
    round<1>(a, b, c, d, x, t.data());
    round<2>(a, b, c, d, x, t.data());
    round<3>(a, b, c, d, x, t.data());
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
}

}  // namespace nnemu::base
