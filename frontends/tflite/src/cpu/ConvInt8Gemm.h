// The int8 CONV_2D's GEMM (ConvInt8.cpp) in three builds chosen at run time: AVX-512BW, AVX2 and
// portable (ConvInt8Gemm*.cpp, the ISA files compiled with their flags alone). Inputs are int16:
// each output pixel's window minus the input's zero point (rows), the weights packed per block of
// 16 output channels as int16 pairs along the depth (packed[block][pair][channel][2]), so that one
// multiply-add of pairs (vpmaddwd) adds two products per channel lane. All sums are exact.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nnemu::tflite::kernels::conv {

constexpr size_t kGemmLanes = 16;   // output channels per packed block

// sums[p * blocks * 16 + c] = sum over the 2 * pairs depth of rows[p][k] * weight[c][k], for
// `count` pixels (rows: count x 2 * pairs values).
using Int16Gemm = void (*)(const int16_t* rows, size_t count, const int16_t* packed, size_t blocks, size_t pairs,
                           int32_t* sums);
void gemmInt16Portable(const int16_t* rows, size_t count, const int16_t* packed, size_t blocks, size_t pairs,
                       int32_t* sums);
void gemmInt16Avx2(const int16_t* rows, size_t count, const int16_t* packed, size_t blocks, size_t pairs, int32_t* sums);
void gemmInt16Avx512(const int16_t* rows, size_t count, const int16_t* packed, size_t blocks, size_t pairs,
                     int32_t* sums);
// The best build this CPU runs.
Int16Gemm bestInt16Gemm();

// With AVX-512 VNNI, int8 weights multiply unsigned bytes four at a time: rows of `count` x 4 x
// quads bytes (the int16 rows plus an offset that makes them unsigned: narrowRows), the weights
// packed per block of 16 output channels as int8 quads along the depth
// (packed[block][quad][channel][4]); sums as gemmInt16's. The sums differ from the int16 rows'
// by offset x the channel's weight sum, which the caller takes off (modulo 2^32: every sum wraps).
void gemmUint8Int8Portable(const uint8_t* rows, size_t count, const int8_t* packed, size_t blocks, size_t quads,
                           int32_t* sums);
void gemmUint8Int8Vnni(const uint8_t* rows, size_t count, const int8_t* packed, size_t blocks, size_t quads,
                       int32_t* sums);
// What this CPU runs (cpuid, read once): AVX-512F, BW and VL; those and VNNI.
bool hasAvx512bw();
bool hasAvx512Vnni();
// to[p][k] = from[p][k] + offset for `count` rows, from rows of fromDepth int16 values to rows of
// toDepth bytes (toDepth >= fromDepth; the bytes past fromDepth are left as they are).
void narrowRows(const int16_t* from, size_t count, size_t fromDepth, int32_t offset, uint8_t* to, size_t toDepth);
// to[i] = from[i] ^ 0x80: int8 values plus 128 as unsigned bytes.
void flipSignBits(const uint8_t* from, size_t count, uint8_t* to);

// to[i] = from[i] - zero point, for a GEMM row (one build per vector level).
void widenMinusZeroPoint(const int8_t* from, size_t count, int32_t zeroPoint, int16_t* to);
void widenMinusZeroPoint(const uint8_t* from, size_t count, int32_t zeroPoint, int16_t* to);

// Per output channel, what requantizes its sums as ruy does (ruyRequantize, ConvInt8.h); each
// array readable to the next multiple of 8 channels.
struct RuyRequantization {
    const int32_t* bias;         // added to the sums first
    const int32_t* multiplier;   // Q31
    const int32_t* leftShift;    // max(shift, 0)
    const int32_t* rightShift;   // max(-shift, 0)
    int32_t zeroPoint, low, high;
};
// out[c] = clamp(ruyRequantize(sums[c] + bias[c]) + zero point) for `count` channels (sums
// readable to the next multiple of 8): the same steps in 64-bit lanes without branches, one
// build per vector level.
void requantizeRuy(const int32_t* sums, size_t count, const RuyRequantization& r, int8_t* out);

// Per output channel, what requantizes its sums as TFLite's XNNPACK delegate does (its "fp32"
// requantization, every x86 build of XNNPACK 2025): (float)(sum + bias) times the channel's float
// scale, clamped to [low - zero point, high - zero point], rounded to nearest even (the magic-bias
// add or cvtps2dq), plus the zero point.
struct Fp32Requantization {
    const int32_t* bias;   // added to the sums first (wrapping, as XNNPACK's int32 accumulators); nullptr: none
    const float* scale;    // input scale x weight scale / output scale, in float: xnnpackScale
    int32_t zeroPoint, low, high;
};
// gemmUint8Int8Vnni's sums requantized in its registers (no sums stored): out[p * channels + c] =
// requantizeFp32's byte of sums[p][c] for `count` pixels and the first `channels` channels (r's
// arrays readable to blocks x 16), int8 output.
void gemmUint8Int8VnniFp32(const uint8_t* rows, size_t count, const int8_t* packed, size_t blocks, size_t quads,
                           const Fp32Requantization& r, size_t channels, int8_t* out);
// XNNPACK's scale of a channel: the float product of the input and weight scales divided by the
// output scale, in float.
float xnnpackScale(float inputScale, float weightScale, float outputScale);
// out[c] = the requantized sums[c] for `count` channels; T is int8_t or uint8_t. The best build
// this CPU runs: AVX-512BW (16 channels a step, the last step masked) or the portable loop (GCC's
// vector clones, the last channels one by one). Every build gives the same bytes.
template <typename T>
void requantizeFp32(const int32_t* sums, size_t count, const Fp32Requantization& r, T* out);
void requantizeFp32Portable(const int32_t* sums, size_t count, const Fp32Requantization& r, int8_t* out);
void requantizeFp32Portable(const int32_t* sums, size_t count, const Fp32Requantization& r, uint8_t* out);
void requantizeFp32Avx512(const int32_t* sums, size_t count, const Fp32Requantization& r, int8_t* out);
void requantizeFp32Avx512(const int32_t* sums, size_t count, const Fp32Requantization& r, uint8_t* out);
// The same for `rows` pixels at once: row p's sums at sums + p * sumStride, its outputs at
// out + p * count (one call where a call per pixel cost as much as its few steps).
template <typename T>
void requantizeFp32Rows(const int32_t* sums, size_t rows, size_t sumStride, size_t count, const Fp32Requantization& r,
                        T* out);
void requantizeFp32RowsAvx512(const int32_t* sums, size_t rows, size_t sumStride, size_t count,
                              const Fp32Requantization& r, int8_t* out);
void requantizeFp32RowsAvx512(const int32_t* sums, size_t rows, size_t sumStride, size_t count,
                              const Fp32Requantization& r, uint8_t* out);

}  // namespace nnemu::tflite::kernels::conv
