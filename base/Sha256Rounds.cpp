// SHA-256's block function (FIPS 180-4 §6.2): a 64-word message schedule from the block's
// big-endian words, then 64 rounds.
#include <bit>
#include <cstddef>

#include "DigestRounds.h"

namespace nnemu::base {
namespace {

// The first 32 bits of the fractional part of the `power`-th root (2 or 3) of `prime`, found
// exactly in integers: the largest x with x^power <= prime * 2^(32 * power), less its integer part.
uint32_t rootFraction(uint32_t prime, int power) {
    using Wide = unsigned __int128;
    const Wide target = Wide{prime} << (32 * power);
    uint64_t low = 0, high = uint64_t{1} << 40;  // roots of primes below 2^8 stay below 2^36
    while (low < high) {
        const uint64_t mid = low + (high - low + 1) / 2;
        Wide raised = mid;
        for (int i = 1; i < power; ++i) raised *= mid;
        if (raised <= target) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    return static_cast<uint32_t>(low);
}

std::array<uint32_t, 64> firstPrimes() {
    std::array<uint32_t, 64> primes{};
    size_t found = 0;
    for (uint32_t n = 2; found < primes.size(); ++n) {
        bool prime = true;
        for (size_t i = 0; i < found && primes[i] * primes[i] <= n; ++i) prime = prime && n % primes[i] != 0;
        if (prime) primes[found++] = n;
    }
    return primes;
}

// K: cube roots of the first 64 primes (§4.2.2).
const std::array<uint32_t, 64>& roundConstants() {
    static const std::array<uint32_t, 64> constants = [] {
        std::array<uint32_t, 64> k = firstPrimes();
        for (uint32_t& value : k) value = rootFraction(value, 3);
        return k;
    }();
    return constants;
}

uint32_t bigEndianWord(const uint8_t* at) {
    return uint32_t{at[0]} << 24 | uint32_t{at[1]} << 16 | uint32_t{at[2]} << 8 | uint32_t{at[3]};
}

}  // namespace

// H(0): square roots of the first 8 primes (§5.3.3).
std::array<uint32_t, 8> sha256Initial() {
    static const std::array<uint32_t, 8> initial = [] {
        const std::array<uint32_t, 64> primes = firstPrimes();
        std::array<uint32_t, 8> h{};
        for (size_t i = 0; i < h.size(); ++i) h[i] = rootFraction(primes[i], 2);
        return h;
    }();
    return initial;
}

void sha256Block(std::array<uint32_t, 8>& state, const uint8_t* block) {
    const std::array<uint32_t, 64>& k = roundConstants();
    uint32_t w[64];
    for (int t = 0; t < 16; ++t) w[t] = bigEndianWord(block + 4 * t);
    for (int t = 16; t < 64; ++t) {
        const uint32_t s0 = std::rotr(w[t - 15], 7) ^ std::rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        const uint32_t s1 = std::rotr(w[t - 2], 17) ^ std::rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6],
             h = state[7];
    for (int t = 0; t < 64; ++t) {
        const uint32_t sum1 = std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25);
        const uint32_t choose = (e & f) ^ (~e & g);
        const uint32_t t1 = h + sum1 + choose + k[t] + w[t];
        const uint32_t sum0 = std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22);
        const uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + sum0 + majority;
    }
    const uint32_t working[8] = {a, b, c, d, e, f, g, h};
    for (int i = 0; i < 8; ++i) state[i] += working[i];
}

}  // namespace nnemu::base
