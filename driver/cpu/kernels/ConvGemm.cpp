#include "nnemu/base/Clones.h"
#include "ConvGemm.h"

#include <algorithm>
#include <vector>

#include "nnemu/kernels/QuantMath.h"

namespace nnemu::cpu::convgemm {
namespace {

// 16 lanes: one AVX-512 register, two AVX2 or four SSE registers (GCC's vector extension).
typedef float FloatLanes __attribute__((vector_size(64)));
typedef int32_t IntLanes __attribute__((vector_size(64)));
// A packed filter's element: 16 lanes aligned explicitly, as GCC caps a vector type's natural
// alignment at what the target's registers need (the baseline build, which allocates the packed
// filter, would promise less than the AVX-512 build assumes).
template <typename Lanes>
struct alignas(64) Packed {
    Lanes lanes;
};
constexpr uint32_t kLanes = 16;
constexpr uint32_t kMaxPixels = 4;

// One filter tap inside the input for a run of pixels: its index and the input offset of the
// run's first pixel.
struct Tap {
    uint32_t index;
    size_t inputOffset;
};

// The sums of kPixels output pixels, pixelStep elements apart in the input, for one block of 16
// output channels, over `taps` in order. Lanes: FloatLanes or IntLanes; `value` turns an input
// element into a lane value (minus the zero point for quantized inputs).
template <uint32_t kPixels, typename Lanes, typename In, typename Value>
[[gnu::always_inline]] inline void pixelSums(const Tap* taps, size_t tapCount, size_t pixelStep, uint32_t depth,
                                             const In* input, const Packed<Lanes>* weights, Value value,
                                             Lanes* acc) {
    for (uint32_t p = 0; p < kPixels; ++p) acc[p] = Lanes{};
    for (size_t t = 0; t < tapCount; ++t) {
        const In* in = input + taps[t].inputOffset;
        const Packed<Lanes>* w = weights + static_cast<size_t>(taps[t].index) * depth;
        for (uint32_t c = 0; c < depth; ++c) {
            const Lanes wc = w[c].lanes;
            for (uint32_t p = 0; p < kPixels; ++p) acc[p] += value(in[p * pixelStep + c]) * wc;
        }
    }
}

// The filter as [block][tap][input channel][16 output channels], channels past the last zero;
// `value` turns a filter element into a lane value.
template <typename Lanes, typename W, typename Value>
std::vector<Packed<Lanes>> packFilter(const ConvGeometry& g, const W* filter, Value value) {
    const size_t taps = static_cast<size_t>(g.window.filterHeight) * g.window.filterWidth, depth = g.inChannels;
    const size_t blocks = (g.outChannels + kLanes - 1) / kLanes;
    std::vector<Packed<Lanes>> packed(blocks * taps * depth, Packed<Lanes>{});
    for (uint32_t oc = 0; oc < g.outChannels; ++oc) {
        Packed<Lanes>* block = packed.data() + oc / kLanes * taps * depth;
        const W* f = filter + oc * taps * depth;
        for (size_t i = 0; i < taps * depth; ++i) block[i].lanes[oc % kLanes] = value(f[i]);
    }
    return packed;
}

// Walks the output: for each run of up to kMaxPixels pixels of a row that share their valid taps
// (windows inside the input columns; one pixel at a time at the borders) and each block of
// output channels, calls block(pixels, taps, tapCount, outputIndex of the run's first pixel,
// block index).
template <typename Block>
[[gnu::always_inline]] inline void forEachRun(const ConvGeometry& g, Block block) {
    const hal::WindowGeometry& w = g.window;
    const uint32_t depth = g.inChannels, blocks = (g.outChannels + kLanes - 1) / kLanes;
    std::vector<Tap> taps(static_cast<size_t>(w.filterHeight) * w.filterWidth);
    const auto inside = [&](int64_t x0) {
        return x0 >= 0 && x0 + static_cast<int64_t>(w.filterWidth - 1) * w.dilationW < w.inWidth;
    };
    for (uint32_t b = 0; b < g.batches; ++b) {
        for (uint32_t oy = 0; oy < w.outHeight; ++oy) {
            const int64_t y0 = static_cast<int64_t>(oy) * w.strideH - w.padTop;
            for (uint32_t ox = 0; ox < w.outWidth;) {
                const int64_t x0 = static_cast<int64_t>(ox) * w.strideW - w.padLeft;
                uint32_t pixels = 1;
                if (inside(x0)) {
                    while (pixels < kMaxPixels && ox + pixels < w.outWidth &&
                           inside(x0 + static_cast<int64_t>(pixels) * w.strideW)) {
                        ++pixels;
                    }
                }
                size_t tapCount = 0;
                convpool::forEachTap(w, y0, x0, [&](uint32_t ky, uint32_t kx, uint32_t iy, uint32_t ix) {
                    taps[tapCount++] = {ky * w.filterWidth + kx,
                                        ((static_cast<size_t>(b) * w.inHeight + iy) * w.inWidth + ix) * depth};
                });
                const size_t out = ((static_cast<size_t>(b) * w.outHeight + oy) * w.outWidth + ox) * g.outChannels;
                for (uint32_t k = 0; k < blocks; ++k) block(pixels, taps.data(), tapCount, out, k);
                ox += pixels;
            }
        }
    }
}

// Calls f(std::integral_constant<uint32_t, pixels>) for pixels in [1, kMaxPixels].
template <typename F>
[[gnu::always_inline]] inline void withPixels(uint32_t pixels, F f) {
    switch (pixels) {
        case 4: f(std::integral_constant<uint32_t, 4>{}); break;
        case 3: f(std::integral_constant<uint32_t, 3>{}); break;
        case 2: f(std::integral_constant<uint32_t, 2>{}); break;
        default: f(std::integral_constant<uint32_t, 1>{}); break;
    }
}

// The sums of every output element, block by block: finish(sums of one pixel, output index of its
// first channel in the block, that channel, valid channels, block index).
template <typename Lanes, typename In, typename Value, typename Finish>
[[gnu::always_inline]] inline void forEachBlockSum(const ConvGeometry& g, const In* input,
                                                   const Packed<Lanes>* packed, Value value, Finish finish) {
    const size_t blockSize = static_cast<size_t>(g.window.filterHeight) * g.window.filterWidth * g.inChannels;
    const size_t pixelStep = static_cast<size_t>(g.window.strideW) * g.inChannels;
    forEachRun(g, [&](uint32_t pixels, const Tap* taps, size_t tapCount, size_t out, uint32_t k)
                          __attribute__((always_inline)) {
        const uint32_t first = k * kLanes, count = std::min(kLanes, g.outChannels - first);
        Lanes acc[kMaxPixels];
        withPixels(pixels, [&](auto n) __attribute__((always_inline)) {
            pixelSums<decltype(n)::value>(taps, tapCount, pixelStep, g.inChannels, input, packed + k * blockSize,
                                          value, acc);
        });
        for (uint32_t p = 0; p < pixels; ++p) finish(acc[p], out + static_cast<size_t>(p) * g.outChannels + first, first, count, k);
    });
}

#define NNEMU_CONV_GEMM_CLONES NNEMU_CLONES

NNEMU_CONV_GEMM_CLONES
void convolveFloat(const ConvGeometry& g, const float* input, const Packed<FloatLanes>* packed, const float* bias,
                   float low, float high, float* output) {
    forEachBlockSum(g, input, packed, [](float x) { return x; },
                    [&](const FloatLanes& sums, size_t out, uint32_t first, uint32_t count, uint32_t)
                            __attribute__((always_inline)) {
                                for (uint32_t j = 0; j < count; ++j) {
                                    output[out + j] = quant::activationClamp(sums[j] + bias[first + j], low, high);
                                }
                            });
}

// Per block of 16 output channels, what requantizes its sums: the bias, the Q31 multiplier, the
// left and right shifts of multiplyByQuantizedMultiplier (channels past the last: zeros).
struct RequantBlock {
    IntLanes bias, multiplier, leftShift, rightShift;
};

template <typename T>
std::vector<Packed<RequantBlock>> requantBlocks(const ConvGeometry& g, const int32_t* bias,
                                                const convpool::Requantizer<T>& requantize) {
    std::vector<Packed<RequantBlock>> blocks((g.outChannels + kLanes - 1) / kLanes, Packed<RequantBlock>{});
    for (uint32_t oc = 0; oc < g.outChannels; ++oc) {
        RequantBlock& b = blocks[oc / kLanes].lanes;
        const uint32_t j = oc % kLanes;
        b.bias[j] = bias[oc];
        b.multiplier[j] = requantize.multiplier(oc);
        b.leftShift[j] = std::clamp(requantize.shift(oc), 0, 31);
        b.rightShift[j] = std::clamp(-requantize.shift(oc), 0, 31);
    }
    return blocks;
}

typedef int64_t WideLanes __attribute__((vector_size(128)));

// Requantizer::operator() on 16 sums at once, in 64-bit lanes: the same integer steps
// (saturating bias add, saturating left shift, rounding doubling high multiply, rounding right
// shift, zero point, clamp), so the same results.
[[gnu::always_inline]] inline WideLanes requantizeLanes(const IntLanes& sums, const RequantBlock& b, int32_t zeroPoint,
                                                        int32_t low, int32_t high) {
    const WideLanes zero{};
    const WideLanes int32Min = zero + INT32_MIN, int32Max = zero + INT32_MAX;
    const auto clampWide = [](WideLanes v, WideLanes lo, WideLanes hi) {
        v = v < lo ? lo : v;
        return v > hi ? hi : v;
    };
    WideLanes x = __builtin_convertvector(sums, WideLanes) + __builtin_convertvector(b.bias, WideLanes);
    x = clampWide(x, int32Min, int32Max);
    x = clampWide(x << __builtin_convertvector(b.leftShift, WideLanes), int32Min, int32Max);
    // (x * m * 2 + 2^31 rounding) >> 32, halves away from zero: (x m + nudge) / 2^31, truncated.
    const WideLanes m = __builtin_convertvector(b.multiplier, WideLanes);
    const WideLanes product = x * m;
    const WideLanes nudged = product + (product >= 0 ? zero + (1LL << 30) : zero + (1 - (1LL << 30)));
    WideLanes high32 = (nudged + ((nudged >> 63) & ((1LL << 31) - 1))) >> 31;
    high32 = (x == int32Min && m == int32Min) ? int32Max : high32;
    // Divided by 2^rightShift, halves away from zero.
    const WideLanes exponent = __builtin_convertvector(b.rightShift, WideLanes);
    const WideLanes mask = ((zero + 1) << exponent) - 1;
    const WideLanes threshold = (mask >> 1) - (high32 < 0);
    const WideLanes scaled = (high32 >> exponent) - ((high32 & mask) > threshold);
    return clampWide(scaled + zeroPoint, zero + low, zero + high);
}

template <typename T>
[[gnu::always_inline]] inline void quantSums(const ConvGeometry& g, const T* input, int32_t inputZeroPoint,
                                             const Packed<IntLanes>* packed, const Packed<RequantBlock>* requant,
                                             int32_t zeroPoint, int32_t low, int32_t high, T* output) {
    forEachBlockSum(g, input, packed, [inputZeroPoint](T x) { return static_cast<int32_t>(x) - inputZeroPoint; },
                    [&](const IntLanes& sums, size_t out, uint32_t, uint32_t count, uint32_t k)
                            __attribute__((always_inline)) {
                                const WideLanes result = requantizeLanes(sums, requant[k].lanes, zeroPoint, low, high);
                                for (uint32_t j = 0; j < count; ++j) output[out + j] = static_cast<T>(result[j]);
                            });
}

NNEMU_CONV_GEMM_CLONES
void quantU8(const ConvGeometry& g, const uint8_t* input, int32_t inputZeroPoint, const Packed<IntLanes>* packed,
             const Packed<RequantBlock>* requant, int32_t zeroPoint, int32_t low, int32_t high, uint8_t* output) {
    quantSums(g, input, inputZeroPoint, packed, requant, zeroPoint, low, high, output);
}

NNEMU_CONV_GEMM_CLONES
void quantS8(const ConvGeometry& g, const int8_t* input, int32_t inputZeroPoint, const Packed<IntLanes>* packed,
             const Packed<RequantBlock>* requant, int32_t zeroPoint, int32_t low, int32_t high, int8_t* output) {
    quantSums(g, input, inputZeroPoint, packed, requant, zeroPoint, low, high, output);
}

template <typename T, typename W, typename Run>
void quantConvolve(const ConvGeometry& g, const T* input, int32_t inputZeroPoint, const W* filter,
                   int32_t filterZeroPoint, const int32_t* bias, const convpool::Requantizer<T>& requantize,
                   T* output, Run run) {
    const std::vector<Packed<IntLanes>> packed =
            packFilter<IntLanes>(g, filter, [filterZeroPoint](W w) { return static_cast<int32_t>(w) - filterZeroPoint; });
    const std::vector<Packed<RequantBlock>> requant = requantBlocks(g, bias, requantize);
    run(g, input, inputZeroPoint, packed.data(), requant.data(), requantize.zeroPoint(), requantize.low(),
        requantize.high(), output);
}

}  // namespace

void convolve(const ConvGeometry& g, const float* input, const float* filter, const float* bias, float low,
              float high, float* output) {
    const std::vector<Packed<FloatLanes>> packed = packFilter<FloatLanes>(g, filter, [](float w) { return w; });
    convolveFloat(g, input, packed.data(), bias, low, high, output);
}

void convolveQuant(const ConvGeometry& g, const uint8_t* input, int32_t inputZeroPoint, const uint8_t* filter,
                   int32_t filterZeroPoint, const int32_t* bias, const convpool::Requantizer<uint8_t>& requantize,
                   uint8_t* output) {
    quantConvolve(g, input, inputZeroPoint, filter, filterZeroPoint, bias, requantize, output, quantU8);
}

void convolveQuant(const ConvGeometry& g, const int8_t* input, int32_t inputZeroPoint, const int8_t* filter,
                   int32_t filterZeroPoint, const int32_t* bias, const convpool::Requantizer<int8_t>& requantize,
                   int8_t* output) {
    quantConvolve(g, input, inputZeroPoint, filter, filterZeroPoint, bias, requantize, output, quantS8);
}

void convolveQuant(const ConvGeometry& g, const uint8_t* input, int32_t inputZeroPoint, const int8_t* filter,
                   int32_t filterZeroPoint, const int32_t* bias, const convpool::Requantizer<uint8_t>& requantize,
                   uint8_t* output) {
    quantConvolve(g, input, inputZeroPoint, filter, filterZeroPoint, bias, requantize, output, quantU8);
}

}  // namespace nnemu::cpu::convgemm
