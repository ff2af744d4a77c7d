// The int8 CONV_2D's GEMM: the portable build and the run-time choice (ConvInt8Gemm.h).
#include "ConvInt8Gemm.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "nnemu/base/Clones.h"

namespace nnemu::tflite::kernels::conv {

void gemmInt16Portable(const int16_t* rows, size_t count, const int16_t* packed, size_t blocks, size_t pairs,
                       int32_t* sums) {
    const size_t depth = 2 * pairs, stride = blocks * kGemmLanes, blockSize = pairs * 2 * kGemmLanes;
    for (size_t p = 0; p < count; ++p) {
        for (size_t b = 0; b < blocks; ++b) {
            int32_t acc[kGemmLanes] = {};
            const int16_t* w = packed + b * blockSize;
            for (size_t k = 0; k < pairs; ++k, w += 2 * kGemmLanes) {
                const int32_t x0 = rows[p * depth + 2 * k], x1 = rows[p * depth + 2 * k + 1];
                for (size_t c = 0; c < kGemmLanes; ++c) acc[c] += x0 * w[2 * c] + x1 * w[2 * c + 1];
            }
            for (size_t c = 0; c < kGemmLanes; ++c) sums[p * stride + b * kGemmLanes + c] = acc[c];
        }
    }
}

bool hasAvx512bw() {
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl");
    }();
    return has;
}

Int16Gemm bestInt16Gemm() {
    static const Int16Gemm best = [] {
        __builtin_cpu_init();
        if (hasAvx512bw()) return &gemmInt16Avx512;
        if (__builtin_cpu_supports("avx2")) return &gemmInt16Avx2;
        return &gemmInt16Portable;
    }();
    return best;
}

void gemmUint8Int8Portable(const uint8_t* rows, size_t count, const int8_t* packed, size_t blocks, size_t quads,
                           int32_t* sums) {
    const size_t depth = 4 * quads, stride = blocks * kGemmLanes, blockSize = quads * 4 * kGemmLanes;
    for (size_t p = 0; p < count; ++p) {
        for (size_t b = 0; b < blocks; ++b) {
            uint32_t acc[kGemmLanes] = {};
            const int8_t* w = packed + b * blockSize;
            for (size_t k = 0; k < quads; ++k, w += 4 * kGemmLanes) {
                for (size_t c = 0; c < kGemmLanes; ++c) {
                    for (size_t j = 0; j < 4; ++j) {
                        acc[c] += static_cast<uint32_t>(int32_t{rows[p * depth + 4 * k + j]} * w[4 * c + j]);
                    }
                }
            }
            for (size_t c = 0; c < kGemmLanes; ++c) sums[p * stride + b * kGemmLanes + c] = static_cast<int32_t>(acc[c]);
        }
    }
}

bool hasAvx512Vnni() {
    static const bool has = [] {
        __builtin_cpu_init();
        return hasAvx512bw() && __builtin_cpu_supports("avx512vnni");
    }();
    return has;
}

NNEMU_CLONES
void narrowRows(const int16_t* from, size_t count, size_t fromDepth, int32_t offset, uint8_t* to, size_t toDepth) {
    for (size_t p = 0; p < count; ++p, from += fromDepth, to += toDepth) {
        for (size_t k = 0; k < fromDepth; ++k) to[k] = static_cast<uint8_t>(from[k] + offset);
    }
}

NNEMU_CLONES
void flipSignBits(const uint8_t* from, size_t count, uint8_t* to) {
    for (size_t i = 0; i < count; ++i) to[i] = static_cast<uint8_t>(from[i] ^ 0x80);
}

NNEMU_CLONES
void widenMinusZeroPoint(const int8_t* from, size_t count, int32_t zeroPoint, int16_t* to) {
    for (size_t i = 0; i < count; ++i) to[i] = static_cast<int16_t>(from[i] - zeroPoint);
}

NNEMU_CLONES
void widenMinusZeroPoint(const uint8_t* from, size_t count, int32_t zeroPoint, int16_t* to) {
    for (size_t i = 0; i < count; ++i) to[i] = static_cast<int16_t>(from[i] - zeroPoint);
}

float xnnpackScale(float inputScale, float weightScale, float outputScale) {
    const float product = inputScale * weightScale;
    return product / outputScale;
}

namespace {
// Round to nearest even by the magic-number add (as XNNPACK's fmagic kernels; exact for the
// clamped range), so that the loop vectorizes. The fields are read into restrict locals first: an
// int8 store may alias anything, and with them read through `r` at every channel GCC kept the loop
// scalar (42 % of a CPU-path MobileNet v2 int8 inference, perf).
template <typename T>
inline void requantizeFp32Loop(const int32_t* __restrict sums, size_t count, const Fp32Requantization& r,
                               T* __restrict out) {
    constexpr float kMagic = 12582912.0f;   // 1.5 x 2^23
    const auto below = static_cast<float>(r.low - r.zeroPoint), above = static_cast<float>(r.high - r.zeroPoint);
    const int32_t zeroPoint = r.zeroPoint;
    const float* __restrict scale = r.scale;
    const auto channel = [&](int32_t acc, size_t c) {
        const float scaled = std::min(std::max(static_cast<float>(acc) * scale[c], below), above);
        const float rounded = (scaled + kMagic) - kMagic;
        // Clamped, only a NaN (an infinite scale times a zero sum) is out of int32's range: it
        // converts as cvttss2si does, and the zero point adds in int32 wrapping (no cast or sum
        // left undefined).
        const int32_t integer = rounded == rounded ? static_cast<int32_t>(rounded) : INT32_MIN;
        out[c] = static_cast<T>(static_cast<int32_t>(static_cast<uint32_t>(integer) + static_cast<uint32_t>(zeroPoint)));
    };
    if (r.bias == nullptr) {
        for (size_t c = 0; c < count; ++c) channel(sums[c], c);
        return;
    }
    const int32_t* __restrict bias = r.bias;
    for (size_t c = 0; c < count; ++c) {
        channel(static_cast<int32_t>(static_cast<uint32_t>(sums[c]) + static_cast<uint32_t>(bias[c])), c);
    }
}

NNEMU_CLONES
void requantizeFp32Signed(const int32_t* sums, size_t count, const Fp32Requantization& r, int8_t* out) {
    requantizeFp32Loop(sums, count, r, out);
}

NNEMU_CLONES
void requantizeFp32Unsigned(const int32_t* sums, size_t count, const Fp32Requantization& r, uint8_t* out) {
    requantizeFp32Loop(sums, count, r, out);
}

}  // namespace

void requantizeFp32Portable(const int32_t* sums, size_t count, const Fp32Requantization& r, int8_t* out) {
    requantizeFp32Signed(sums, count, r, out);
}
void requantizeFp32Portable(const int32_t* sums, size_t count, const Fp32Requantization& r, uint8_t* out) {
    requantizeFp32Unsigned(sums, count, r, out);
}

// Called once per output pixel with its channels (often 16-64): the masked last step of the
// AVX-512 build saves the portable loop's channel-by-channel tail, a third of its time on
// MobileNet v2's 24- and 40-channel layers (perf).
template <>
void requantizeFp32<int8_t>(const int32_t* sums, size_t count, const Fp32Requantization& r, int8_t* out) {
    hasAvx512bw() ? requantizeFp32Avx512(sums, count, r, out) : requantizeFp32Signed(sums, count, r, out);
}
template <>
void requantizeFp32<uint8_t>(const int32_t* sums, size_t count, const Fp32Requantization& r, uint8_t* out) {
    hasAvx512bw() ? requantizeFp32Avx512(sums, count, r, out) : requantizeFp32Unsigned(sums, count, r, out);
}

template <>
void requantizeFp32Rows<int8_t>(const int32_t* sums, size_t rows, size_t sumStride, size_t count,
                                const Fp32Requantization& r, int8_t* out) {
    if (hasAvx512bw()) return requantizeFp32RowsAvx512(sums, rows, sumStride, count, r, out);
    for (size_t p = 0; p < rows; ++p) requantizeFp32Signed(sums + p * sumStride, count, r, out + p * count);
}
template <>
void requantizeFp32Rows<uint8_t>(const int32_t* sums, size_t rows, size_t sumStride, size_t count,
                                 const Fp32Requantization& r, uint8_t* out) {
    if (hasAvx512bw()) return requantizeFp32RowsAvx512(sums, rows, sumStride, count, r, out);
    for (size_t p = 0; p < rows; ++p) requantizeFp32Unsigned(sums + p * sumStride, count, r, out + p * count);
}

namespace {
typedef int32_t Int32x8 __attribute__((vector_size(32)));
typedef uint32_t Uint32x8 __attribute__((vector_size(32)));
typedef int64_t Int64x8 __attribute__((vector_size(64)));
typedef int8_t Int8x8 __attribute__((vector_size(8)));
}  // namespace

// Eight channels at a time in 64-bit lanes. (hi + nudge) >> e in 64 bits is ruy's result also
// where hi + nudge overflows 32 bits: there hi + nudge < 2^31 + 2^e, so the shift gives
// 2^(31 - e), what ruy's kernels substitute.
NNEMU_CLONES
void requantizeRuy(const int32_t* sums, size_t count, const RuyRequantization& r, int8_t* out) {
    const Int64x8 zero{};
    for (size_t c = 0; c < count; c += 8) {
        Int32x8 sum, bias, multiplier, left, right;
        std::memcpy(&sum, sums + c, sizeof(sum));
        std::memcpy(&bias, r.bias + c, sizeof(bias));
        std::memcpy(&multiplier, r.multiplier + c, sizeof(multiplier));
        std::memcpy(&left, r.leftShift + c, sizeof(left));
        std::memcpy(&right, r.rightShift + c, sizeof(right));
        const auto shifted = reinterpret_cast<Int32x8>((reinterpret_cast<Uint32x8>(sum + bias)) << reinterpret_cast<Uint32x8>(left));
        const Int64x8 product = __builtin_convertvector(shifted, Int64x8) * __builtin_convertvector(multiplier, Int64x8);
        const Int64x8 high = (product + (int64_t{1} << 30)) >> 31;
        const Int64x8 e = __builtin_convertvector(right, Int64x8);
        Int64x8 value = ((high + (((zero + 1) << e) >> 1)) >> e) + r.zeroPoint;
        value = value < r.low ? zero + r.low : value;
        value = value > r.high ? zero + r.high : value;
        const Int8x8 bytes = __builtin_convertvector(value, Int8x8);
        std::memcpy(out + c, &bytes, count - c < 8 ? count - c : 8);
    }
}

}  // namespace nnemu::tflite::kernels::conv
