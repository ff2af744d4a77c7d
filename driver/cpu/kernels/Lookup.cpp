// Reference kernels of the table lookup operations: EMBEDDING_LOOKUP, HASHTABLE_LOOKUP,
// LSH_PROJECTION.
#include <algorithm>
#include <cstring>
#include <vector>

#include "nnemu/cpu/Kernels.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

// Bytes of one row (everything after dimension 0) of a tensor.
size_t rowBytes(const OperandView& operand) {
    size_t bytes = hal::elementSize(operand.type);
    for (uint32_t i = 1; i < operand.rank(); ++i) bytes *= operand.dim(i);
    return bytes;
}

// ---- FarmHash Fingerprint64 (the "na" variant of Hash64), written from its public definition.

constexpr uint64_t kPrime0 = 0xc3a5c85c97cb3127ULL;
constexpr uint64_t kPrime1 = 0xb492b66fbe98f273ULL;
constexpr uint64_t kPrime2 = 0x9ae16a3b2f90404fULL;

uint64_t load64(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];  // little-endian
    return v;
}

uint64_t load32(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

uint64_t rotateRight(uint64_t v, int bits) { return bits == 0 ? v : (v >> bits) | (v << (64 - bits)); }

uint64_t shiftMix(uint64_t v) { return v ^ (v >> 47); }

uint64_t mix16(uint64_t u, uint64_t v, uint64_t mul) {
    uint64_t a = (u ^ v) * mul;
    a ^= a >> 47;
    uint64_t b = (v ^ a) * mul;
    b ^= b >> 47;
    return b * mul;
}

uint64_t hashUpTo16(const uint8_t* s, size_t len) {
    if (len >= 8) {
        const uint64_t mul = kPrime2 + len * 2;
        const uint64_t a = load64(s) + kPrime2;
        const uint64_t b = load64(s + len - 8);
        const uint64_t c = rotateRight(b, 37) * mul + a;
        const uint64_t d = (rotateRight(a, 25) + b) * mul;
        return mix16(c, d, mul);
    }
    if (len >= 4) {
        const uint64_t mul = kPrime2 + len * 2;
        const uint64_t a = load32(s);
        return mix16(len + (a << 3), load32(s + len - 4), mul);
    }
    if (len > 0) {
        const uint32_t a = s[0];
        const uint32_t b = s[len >> 1];
        const uint32_t c = s[len - 1];
        const uint32_t y = a + (b << 8);
        const uint32_t z = static_cast<uint32_t>(len) + (c << 2);
        return shiftMix(y * kPrime2 ^ z * kPrime0) * kPrime2;
    }
    return kPrime2;
}

uint64_t hash17To32(const uint8_t* s, size_t len) {
    const uint64_t mul = kPrime2 + len * 2;
    const uint64_t a = load64(s) * kPrime1;
    const uint64_t b = load64(s + 8);
    const uint64_t c = load64(s + len - 8) * mul;
    const uint64_t d = load64(s + len - 16) * kPrime2;
    return mix16(rotateRight(a + b, 43) + rotateRight(c, 30) + d,
                 a + rotateRight(b + kPrime2, 18) + c, mul);
}

uint64_t hash33To64(const uint8_t* s, size_t len) {
    const uint64_t mul = kPrime2 + len * 2;
    const uint64_t a = load64(s) * kPrime2;
    const uint64_t b = load64(s + 8);
    const uint64_t c = load64(s + len - 8) * mul;
    const uint64_t d = load64(s + len - 16) * kPrime2;
    const uint64_t y = rotateRight(a + b, 43) + rotateRight(c, 30) + d;
    const uint64_t z = mix16(y, a + rotateRight(b + kPrime2, 18) + c, mul);
    const uint64_t e = load64(s + 16) * mul;
    const uint64_t f = load64(s + 24);
    const uint64_t g = (y + load64(s + len - 32)) * mul;
    const uint64_t h = (z + load64(s + len - 24)) * mul;
    return mix16(rotateRight(e + f, 43) + rotateRight(g, 30) + h,
                 e + rotateRight(f + a, 18) + g, mul);
}

struct Pair64 {
    uint64_t first;
    uint64_t second;
};

// Mixes 32 bytes at s with two seeds.
Pair64 weakHash32(const uint8_t* s, uint64_t a, uint64_t b) {
    const uint64_t w = load64(s);
    const uint64_t x = load64(s + 8);
    const uint64_t y = load64(s + 16);
    const uint64_t z = load64(s + 24);
    a += w;
    b = rotateRight(b + a + z, 21);
    const uint64_t c = a;
    a += x;
    a += y;
    b += rotateRight(a, 44);
    return {a + z, b + c};
}

uint64_t fingerprint64(const uint8_t* s, size_t len) {
    if (len <= 16) return hashUpTo16(s, len);
    if (len <= 32) return hash17To32(s, len);
    if (len <= 64) return hash33To64(s, len);

    constexpr uint64_t kSeed = 81;
    uint64_t x = kSeed;
    uint64_t y = kSeed * kPrime1 + 113;
    uint64_t z = shiftMix(y * kPrime2 + 113) * kPrime2;
    Pair64 v{0, 0};
    Pair64 w{0, 0};
    x = x * kPrime2 + load64(s);
    // Whole 64-byte blocks, except that the final (possibly partial) block is handled below
    // by re-reading the last 64 bytes.
    const uint8_t* end = s + ((len - 1) / 64) * 64;
    const uint8_t* last64 = end + ((len - 1) & 63) - 63;
    do {
        x = rotateRight(x + y + v.first + load64(s + 8), 37) * kPrime1;
        y = rotateRight(y + v.second + load64(s + 48), 42) * kPrime1;
        x ^= w.second;
        y += v.first + load64(s + 40);
        z = rotateRight(z + w.first, 33) * kPrime1;
        v = weakHash32(s, v.second * kPrime1, x + w.first);
        w = weakHash32(s + 32, z + w.second, y + load64(s + 16));
        std::swap(z, x);
        s += 64;
    } while (s != end);
    const uint64_t mul = kPrime1 + ((z & 0xff) << 1);
    s = last64;
    w.first += ((len - 1) & 63);
    v.first += w.first;
    w.first += v.first;
    x = rotateRight(x + y + v.first + load64(s + 8), 37) * mul;
    y = rotateRight(y + v.second + load64(s + 48), 42) * mul;
    x ^= w.second * 9;
    y += v.first * 9 + load64(s + 40);
    z = rotateRight(z + w.first, 33) * mul;
    v = weakHash32(s, v.second * mul, x + w.first);
    w = weakHash32(s + 32, z + w.second, y + load64(s + 16));
    std::swap(z, x);
    return mix16(mix16(v.first, w.first, mul) + shiftMix(y) * kPrime0 + z,
                 mix16(v.second, w.second, mul) + x, mul);
}

// ---- LSH_PROJECTION

float tensorFloat(const OperandView& operand, size_t i) {
    if (operand.type == OperandType::TENSOR_FLOAT16) return base::halfToFloat(operand.as<uint16_t>()[i]);
    return operand.as<float>()[i];
}

// 1 when the weighted sum over the input rows of the signed 64-bit fingerprints of
// (seed bytes, row bytes) is positive.
int signBit(const OperandView& input, const OperandView* weight, float seed) {
    const uint32_t rows = input.dim(0);
    const size_t row = rowBytes(input);
    std::vector<uint8_t> key(sizeof(float) + row);
    double score = 0.0;
    for (uint32_t i = 0; i < rows; ++i) {
        std::memcpy(key.data(), &seed, sizeof(float));
        if (row > 0) std::memcpy(key.data() + sizeof(float), input.data + i * row, row);
        const auto signature = static_cast<int64_t>(fingerprint64(key.data(), key.size()));
        const double value = static_cast<double>(signature);
        score += weight == nullptr ? value : static_cast<double>(tensorFloat(*weight, i)) * value;
    }
    return score > 0.0 ? 1 : 0;
}

}  // namespace

bool kernels::embeddingLookup(OperationContext& context) {
    const OperandView& lookups = context.input(0);
    const OperandView& values = context.input(1);
    OperandView& output = context.output(0);
    const size_t row = rowBytes(values);
    const uint32_t count = lookups.dim(0);
    NN_RET_CHECK(output.length >= row * count);
    const int32_t* indexes = lookups.as<int32_t>();
    for (uint32_t i = 0; i < count; ++i) {
        const int32_t index = indexes[i];
        NN_RET_CHECK(index >= 0 && static_cast<uint32_t>(index) < values.dim(0));
        std::memcpy(output.data + i * row, values.data + static_cast<size_t>(index) * row, row);
    }
    return true;
}

bool kernels::hashtableLookup(OperationContext& context) {
    const OperandView& lookups = context.input(0);
    const OperandView& keys = context.input(1);
    const OperandView& values = context.input(2);
    OperandView& output = context.output(0);
    OperandView& hits = context.output(1);
    const size_t row = rowBytes(values);
    const uint32_t count = lookups.dim(0);
    NN_RET_CHECK(output.length >= row * count);
    NN_RET_CHECK(hits.length >= count);
    const int32_t* keyBegin = keys.as<int32_t>();
    const int32_t* keyEnd = keyBegin + keys.dim(0);
    for (uint32_t i = 0; i < count; ++i) {
        const int32_t wanted = lookups.as<int32_t>()[i];
        const int32_t* found = std::lower_bound(keyBegin, keyEnd, wanted);
        uint8_t* destination = output.data + i * row;
        if (found != keyEnd && *found == wanted) {
            const size_t index = static_cast<size_t>(found - keyBegin);
            std::memcpy(destination, values.data + index * row, row);
            hits.data[i] = 1;
        } else {
            std::memset(destination, 0, row);
            hits.data[i] = 0;
        }
    }
    return true;
}

bool kernels::lshProjection(OperationContext& context) {
    const OperandView& hash = context.input(0);
    const OperandView& input = context.input(1);
    const OperandView& weightOperand = context.input(2);
    OperandView& output = context.output(0);
    NN_RET_CHECK(hash.type == OperandType::TENSOR_FLOAT32 || hash.type == OperandType::TENSOR_FLOAT16);
    const OperandView* weight =
            (weightOperand.omitted || weightOperand.data == nullptr || weightOperand.elements() == 0)
                    ? nullptr
                    : &weightOperand;
    const int32_t type = context.scalar<int32_t>(3);
    const uint32_t numHash = hash.dim(0);
    const uint32_t numBits = hash.dim(1);
    int32_t* out = output.as<int32_t>();
    if (type == 2) {  // dense: one bit per (hash, bit)
        NN_RET_CHECK(output.length >= sizeof(int32_t) * numHash * numBits);
        for (uint32_t i = 0; i < numHash; ++i) {
            for (uint32_t j = 0; j < numBits; ++j) {
                *out++ = signBit(input, weight, tensorFloat(hash, i * numBits + j));
            }
        }
        return true;
    }
    NN_RET_CHECK(type == 1 || type == 3);
    NN_RET_CHECK(output.length >= sizeof(int32_t) * numHash);
    for (uint32_t i = 0; i < numHash; ++i) {
        uint32_t signature = 0;
        for (uint32_t j = 0; j < numBits; ++j) {
            signature = (signature << 1) |
                        static_cast<uint32_t>(signBit(input, weight, tensorFloat(hash, i * numBits + j)));
        }
        // Type 3 makes the buckets of different hash functions disjoint.
        if (type == 3) signature += i * (numBits >= 32 ? 0u : (1u << numBits));
        *out++ = static_cast<int32_t>(signature);
    }
    return true;
}

}  // namespace nnemu::cpu
