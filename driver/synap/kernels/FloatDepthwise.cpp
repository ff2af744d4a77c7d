#include "FloatDepthwise.h"

#include <algorithm>
#include <cstring>

#include "FloatDepthwiseLoops.h"

namespace nnemu::synap::kernels {
namespace {

constexpr size_t kTaps = 9;

// Copies [a][b] floats (bytes, any alignment) to [b][a].
void transpose(const uint8_t* from, size_t a, size_t b, uint8_t* to) {
    for (size_t i = 0; i < a; ++i) {
        for (size_t j = 0; j < b; ++j) std::memcpy(to + (j * a + i) * sizeof(float), from + (i * b + j) * sizeof(float), sizeof(float));
    }
}

// The portable block: 16 lanes, each product rounded before it is added.
struct OpsPortable {
    struct V {
        float v[kFloatGemmBlock];
    };
    size_t count;
    explicit OpsPortable(size_t n) : count(n) {}
    static V load(const float* p) {
        V r;
        std::memcpy(r.v, p, sizeof r.v);
        return r;
    }
    V loadPart(const float* p) const {
        V r{};
        std::memcpy(r.v, p, count * sizeof(float));
        return r;
    }
    static V set1(float x) {
        V r;
        std::fill(r.v, r.v + kFloatGemmBlock, x);
        return r;
    }
    static V fma(const V& x, const V& w, V acc) {
        for (size_t j = 0; j < kFloatGemmBlock; ++j) acc.v[j] += x.v[j] * w.v[j];
        return acc;
    }
    static V clamp(V v, const V& low, const V& high) {
        for (size_t j = 0; j < kFloatGemmBlock; ++j) v.v[j] = std::min(std::max(v.v[j], low.v[j]), high.v[j]);
        return v;
    }
    static void store(float* p, const V& v) { std::memcpy(p, v.v, sizeof v.v); }
    void storePart(float* p, const V& v) const { std::memcpy(p, v.v, count * sizeof(float)); }
};

}  // namespace

void floatDepthwiseRowPortable(const FloatDepthwiseRow& r) { depthwise_loops::row<OpsPortable>(r); }

bool packFloatDepthwise(const uint8_t* filter, const uint8_t* bias, uint32_t channels, std::vector<uint8_t>* packed) {
    if (filter == nullptr || channels == 0) return false;
    std::vector<uint8_t> perChannel(size_t{channels} * kTaps * sizeof(float));
    transpose(filter, kTaps, channels, perChannel.data());
    FloatGemmSpec spec;
    spec.depth = kTaps;
    spec.channels = channels;
    spec.weights = perChannel.data();
    spec.bias = bias;
    return packFloatGemm(spec, packed);
}

bool checkPackedFloatDepthwise(std::span<const uint8_t> packed, uint32_t channels) {
    return checkPackedFloatGemm(packed, kTaps, channels);
}

bool unpackFloatDepthwise(std::span<const uint8_t> packed, std::vector<uint8_t>* filter) {
    std::vector<uint8_t> perChannel;
    if (!unpackFloatGemm(packed, &perChannel) || perChannel.size() % (kTaps * sizeof(float)) != 0) return false;
    const size_t channels = perChannel.size() / (kTaps * sizeof(float));
    if (!checkPackedFloatDepthwise(packed, static_cast<uint32_t>(channels))) return false;
    filter->resize(perChannel.size());
    transpose(perChannel.data(), channels, kTaps, filter->data());
    return true;
}

void runFloatDepthwiseRows(Isa isa, const FloatImage& g, std::span<const uint8_t> packed, const float* input,
                           float* output, size_t rowBegin, size_t rowEnd, size_t inRowFirst, size_t outRowFirst) {
    void (*kernel)(const FloatDepthwiseRow&) = floatDepthwiseRowPortable;
    if (isa == Isa::Avx512Vnni) {
        kernel = floatDepthwiseRowAvx512;
    } else if (baseIsa(isa) == Isa::Avx2 && floatFmaSupported()) {
        kernel = floatDepthwiseRowAvx2;
    }
    const size_t C = g.channels, s = g.strideWidth;
    // The columns whose three taps all fall inside the row: x0 = ox * s - padLeft in [0, inWidth - 3].
    const size_t insideBegin = std::min<size_t>(g.outWidth, (g.padLeft + s - 1) / s);
    const size_t insideEnd = g.inWidth + g.padLeft < 3
                                 ? insideBegin
                                 : std::clamp<size_t>((g.inWidth + g.padLeft - 3) / s + 1, insideBegin, g.outWidth);
    FloatDepthwiseRow r{};
    r.weights = reinterpret_cast<const float*>(packed.data() + kFloatGemmHeaderBytes);
    r.channels = C;
    r.inWidth = g.inWidth;
    r.stride = s;
    r.padLeft = g.padLeft;
    r.width = g.outWidth;
    r.low = g.low;
    r.high = g.high;
    for (size_t row = rowBegin; row < rowEnd; ++row) {
        const size_t b = row / g.outHeight, oy = row % g.outHeight;
        bool whole = true;
        for (size_t ky = 0; ky < 3; ++ky) {
            const ptrdiff_t y = static_cast<ptrdiff_t>(oy * g.strideHeight + ky) - static_cast<ptrdiff_t>(g.padTop);
            const bool in = y >= 0 && y < static_cast<ptrdiff_t>(g.inHeight);
            r.rows[ky] = in ? input + (b * g.inHeight + static_cast<size_t>(y) - inRowFirst) * g.inWidth * C : nullptr;
            whole = whole && in;
        }
        r.output = output + (row - outRowFirst) * g.outWidth * C;
        r.insideBegin = whole ? insideBegin : 0;
        r.insideEnd = whole ? insideEnd : 0;
        kernel(r);
    }
}

}  // namespace nnemu::synap::kernels
