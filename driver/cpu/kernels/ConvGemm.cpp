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
    const size_t taps = static_cast<size_t>(g.filterHeight) * g.filterWidth, depth = g.inChannels;
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
    const uint32_t depth = g.inChannels, blocks = (g.outChannels + kLanes - 1) / kLanes;
    std::vector<Tap> taps(static_cast<size_t>(g.filterHeight) * g.filterWidth);
    const auto validTaps = [&](int64_t y0, int64_t x0, uint32_t b) {
        size_t n = 0;
        for (uint32_t ky = 0; ky < g.filterHeight; ++ky) {
            const int64_t iy = y0 + static_cast<int64_t>(ky) * g.dilationH;
            if (iy < 0 || iy >= g.inHeight) continue;
            for (uint32_t kx = 0; kx < g.filterWidth; ++kx) {
                const int64_t ix = x0 + static_cast<int64_t>(kx) * g.dilationW;
                if (ix < 0 || ix >= g.inWidth) continue;
                taps[n++] = {ky * g.filterWidth + kx,
                             ((static_cast<size_t>(b) * g.inHeight + static_cast<size_t>(iy)) * g.inWidth +
                              static_cast<size_t>(ix)) * depth};
            }
        }
        return n;
    };
    const auto inside = [&](int64_t x0) {
        return x0 >= 0 && x0 + static_cast<int64_t>(g.filterWidth - 1) * g.dilationW < g.inWidth;
    };
    for (uint32_t b = 0; b < g.batches; ++b) {
        for (uint32_t oy = 0; oy < g.outHeight; ++oy) {
            const int64_t y0 = static_cast<int64_t>(oy) * g.strideH - g.padTop;
            for (uint32_t ox = 0; ox < g.outWidth;) {
                const int64_t x0 = static_cast<int64_t>(ox) * g.strideW - g.padLeft;
                uint32_t pixels = 1;
                if (inside(x0)) {
                    while (pixels < kMaxPixels && ox + pixels < g.outWidth &&
                           inside(x0 + static_cast<int64_t>(pixels) * g.strideW)) {
                        ++pixels;
                    }
                }
                const size_t tapCount = validTaps(y0, x0, b);
                const size_t out = ((static_cast<size_t>(b) * g.outHeight + oy) * g.outWidth + ox) * g.outChannels;
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

#define NNEMU_CONV_GEMM_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

NNEMU_CONV_GEMM_CLONES
void convolveFloat(const ConvGeometry& g, const float* input, const Packed<FloatLanes>* packed, const float* bias, float low,
                   float high, float* output) {
    const size_t blockSize = static_cast<size_t>(g.filterHeight) * g.filterWidth * g.inChannels;
    const size_t pixelStep = static_cast<size_t>(g.strideW) * g.inChannels;
    forEachRun(g, [&](uint32_t pixels, const Tap* taps, size_t tapCount, size_t out, uint32_t k)
                          __attribute__((always_inline)) {
        const uint32_t first = k * kLanes, count = std::min(kLanes, g.outChannels - first);
        FloatLanes acc[kMaxPixels];
        withPixels(pixels, [&](auto n) __attribute__((always_inline)) {
            pixelSums<decltype(n)::value>(taps, tapCount, pixelStep, g.inChannels, input, packed + k * blockSize,
                                          [](float x) { return x; }, acc);
        });
        for (uint32_t p = 0; p < pixels; ++p) {
            float* o = output + out + static_cast<size_t>(p) * g.outChannels + first;
            for (uint32_t j = 0; j < count; ++j) o[j] = quant::activationClamp(acc[p][j] + bias[first + j], low, high);
        }
    });
}

template <typename T>
[[gnu::always_inline]] inline void quantSums(const ConvGeometry& g, const T* input, int32_t inputZeroPoint,
                                             const Packed<IntLanes>* packed, const int32_t* bias,
                                             const convpool::Requantizer<T>& requantize, T* output) {
    const size_t blockSize = static_cast<size_t>(g.filterHeight) * g.filterWidth * g.inChannels;
    const size_t pixelStep = static_cast<size_t>(g.strideW) * g.inChannels;
    forEachRun(g, [&](uint32_t pixels, const Tap* taps, size_t tapCount, size_t out, uint32_t k)
                          __attribute__((always_inline)) {
        const uint32_t first = k * kLanes, count = std::min(kLanes, g.outChannels - first);
        IntLanes acc[kMaxPixels];
        withPixels(pixels, [&](auto n) __attribute__((always_inline)) {
            pixelSums<decltype(n)::value>(taps, tapCount, pixelStep, g.inChannels, input, packed + k * blockSize,
                                          [inputZeroPoint](T x) { return static_cast<int32_t>(x) - inputZeroPoint; },
                                          acc);
        });
        for (uint32_t p = 0; p < pixels; ++p) {
            T* o = output + out + static_cast<size_t>(p) * g.outChannels + first;
            for (uint32_t j = 0; j < count; ++j) o[j] = requantize(acc[p][j], bias[first + j], first + j);
        }
    });
}

NNEMU_CONV_GEMM_CLONES
void quantU8(const ConvGeometry& g, const uint8_t* input, int32_t zeroPoint, const Packed<IntLanes>* packed,
             const int32_t* bias, const convpool::Requantizer<uint8_t>& requantize, uint8_t* output) {
    quantSums(g, input, zeroPoint, packed, bias, requantize, output);
}

NNEMU_CONV_GEMM_CLONES
void quantS8(const ConvGeometry& g, const int8_t* input, int32_t zeroPoint, const Packed<IntLanes>* packed,
             const int32_t* bias, const convpool::Requantizer<int8_t>& requantize, int8_t* output) {
    quantSums(g, input, zeroPoint, packed, bias, requantize, output);
}

template <typename W>
std::vector<Packed<IntLanes>> packQuant(const ConvGeometry& g, const W* filter, int32_t zeroPoint) {
    return packFilter<IntLanes>(g, filter, [zeroPoint](W w) { return static_cast<int32_t>(w) - zeroPoint; });
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
    quantU8(g, input, inputZeroPoint, packQuant(g, filter, filterZeroPoint).data(), bias, requantize, output);
}

void convolveQuant(const ConvGeometry& g, const int8_t* input, int32_t inputZeroPoint, const int8_t* filter,
                   int32_t filterZeroPoint, const int32_t* bias, const convpool::Requantizer<int8_t>& requantize,
                   int8_t* output) {
    quantS8(g, input, inputZeroPoint, packQuant(g, filter, filterZeroPoint).data(), bias, requantize, output);
}

void convolveQuant(const ConvGeometry& g, const uint8_t* input, int32_t inputZeroPoint, const int8_t* filter,
                   int32_t filterZeroPoint, const int32_t* bias, const convpool::Requantizer<uint8_t>& requantize,
                   uint8_t* output) {
    quantU8(g, input, inputZeroPoint, packQuant(g, filter, filterZeroPoint).data(), bias, requantize, output);
}

}  // namespace nnemu::cpu::convgemm
