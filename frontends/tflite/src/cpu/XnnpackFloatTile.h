// The register tiles of XnnpackFloatConv.h's GEMM and depthwise, compiled once per instruction set
// (XnnpackFloatPortable.cpp, XnnpackFloatAvx2.cpp, XnnpackFloatAvx512.cpp; each with
// -ffp-contract=off, so only Isa::fma fuses). Every output keeps the order of operations
// XnnpackFloatConv.h describes; the tiles only choose which outputs are computed together: a
// block of pixels x lanes for the GEMM (its packed weights streamed once per block), a block of
// channels per output pixel for the depthwise (every tap added while the sums stay in registers).
//
// An Isa gives: Vec (kLanes floats), splat (every lane the same value, its sign of zero kept),
// load/store (unaligned), fma (a * b + c rounded once), add, clamp (std::min(std::max(x, low),
// high) per lane, NaN kept), ScalarSteps, and its tile: kPixels pixels x kGroup vectors.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

#include "XnnpackFloatKernels.h"

namespace nnemu::tflite::kernels::xnnpackfloat {
namespace {

// The steps of one lane, shared by every Isa: the channels past the last whole vector.
struct ScalarSteps {
    static float fmaScalar(float a, float b, float c) { return std::fma(a, b, c); }
    static float clampScalar(float x, float low, float high) { return std::min(std::max(x, low), high); }
};

template <class Isa>
void packFor(const float* weights, size_t units, size_t depth, float* packed) {
    constexpr size_t L = Isa::kLanes;
    const size_t panels = (units + L - 1) / L;
    for (size_t p = 0; p < panels; ++p) {
        float* panel = packed + p * depth * L;
        for (size_t k = 0; k < depth; ++k) {
            for (size_t j = 0; j < L; ++j) {
                const size_t u = p * L + j;
                panel[k * L + j] = u < units ? weights[u * depth + k] : 0.0f;
            }
        }
    }
}

// P pixels (rows a + q * depth) x G panels of L units (the first at `panel`, `panelStride` floats
// apart): sums from the bias; with Two, even depths into e and odd ones into o, added at the end.
// `valid` units of the G * L are stored (the rest are padding).
template <class Isa, size_t P, size_t G, bool Two>
inline void gemmTile(const float* a, size_t depth, const float* panel, size_t panelStride, const float* bias,
                     const typename Isa::Vec& low, const typename Isa::Vec& high, float* out, size_t outStride,
                     size_t valid) {
    using Vec = typename Isa::Vec;
    constexpr size_t L = Isa::kLanes;
    Vec e[P][G], o[P][G];
    for (size_t g = 0; g < G; ++g) {
        const Vec b = Isa::load(bias + g * L);
        for (size_t q = 0; q < P; ++q) {
            e[q][g] = b;
            o[q][g] = Isa::splat(0.0f);
        }
    }
    size_t k = 0;
    if constexpr (Two) {
        for (; k + 1 < depth; k += 2) {
            Vec w0[G], w1[G];
            for (size_t g = 0; g < G; ++g) {
                w0[g] = Isa::load(panel + g * panelStride + k * L);
                w1[g] = Isa::load(panel + g * panelStride + (k + 1) * L);
            }
            for (size_t q = 0; q < P; ++q) {
                const Vec x0 = Isa::splat(a[q * depth + k]), x1 = Isa::splat(a[q * depth + k + 1]);
                for (size_t g = 0; g < G; ++g) {
                    e[q][g] = Isa::fma(x0, w0[g], e[q][g]);
                    o[q][g] = Isa::fma(x1, w1[g], o[q][g]);
                }
            }
        }
    }
    for (; k < depth; ++k) {
        Vec w0[G];
        for (size_t g = 0; g < G; ++g) w0[g] = Isa::load(panel + g * panelStride + k * L);
        for (size_t q = 0; q < P; ++q) {
            const Vec x0 = Isa::splat(a[q * depth + k]);
            for (size_t g = 0; g < G; ++g) e[q][g] = Isa::fma(x0, w0[g], e[q][g]);
        }
    }
    for (size_t q = 0; q < P; ++q) {
        for (size_t g = 0; g < G; ++g) {
            const Vec r = Isa::clamp(Two ? Isa::add(e[q][g], o[q][g]) : e[q][g], low, high);
            float* to = out + q * outStride + g * L;
            if (valid >= (g + 1) * L) {
                Isa::store(to, r);
            } else if (valid > g * L) {
                float lanes[L];
                Isa::store(lanes, r);
                std::memcpy(to, lanes, (valid - g * L) * sizeof(float));
            }
        }
    }
}

// Every pixel's sums of G panels (units [u, u + valid)): the panels stay in the nearest cache while
// the rows stream past them, kPixels at a time.
template <class Isa, size_t G, bool Two>
inline void gemmColumn(const float* rows, size_t pixels, const float* panel, size_t depth, const float* bias,
                       const typename Isa::Vec& low, const typename Isa::Vec& high, float* out, size_t units,
                       size_t valid) {
    constexpr size_t L = Isa::kLanes, P = Isa::kPixels;
    static_assert(P >= 1 && P <= 8, "tiles of 1 to 8 pixels");
    const size_t stride = depth * L;
    size_t p = 0;
    for (; p + P <= pixels; p += P) {
        gemmTile<Isa, P, G, Two>(rows + p * depth, depth, panel, stride, bias, low, high, out + p * units, units, valid);
    }
    const float* a = rows + p * depth;
    float* o = out + p * units;
    switch (pixels - p) {
        case 0: break;
        case 1: gemmTile<Isa, 1, G, Two>(a, depth, panel, stride, bias, low, high, o, units, valid); break;
        case 2: if constexpr (P > 2) gemmTile<Isa, 2, G, Two>(a, depth, panel, stride, bias, low, high, o, units, valid); break;
        case 3: if constexpr (P > 3) gemmTile<Isa, 3, G, Two>(a, depth, panel, stride, bias, low, high, o, units, valid); break;
        case 4: if constexpr (P > 4) gemmTile<Isa, 4, G, Two>(a, depth, panel, stride, bias, low, high, o, units, valid); break;
        case 5: if constexpr (P > 5) gemmTile<Isa, 5, G, Two>(a, depth, panel, stride, bias, low, high, o, units, valid); break;
        case 6: if constexpr (P > 6) gemmTile<Isa, 6, G, Two>(a, depth, panel, stride, bias, low, high, o, units, valid); break;
        default: if constexpr (P > 7) gemmTile<Isa, 7, G, Two>(a, depth, panel, stride, bias, low, high, o, units, valid); break;
    }
}

// The rows in chunks of about kChunkBytes, each chunk's rows run past every panel in turn: a panel
// is read from the nearest caches for a whole chunk, a chunk from the second level for every
// panel (pixels outer alone streamed a large layer's weights from memory per tile; panels outer
// alone, the rows of a layer of many pixels).
constexpr size_t kChunkBytes = 128 * 1024;

template <class Isa, bool Two>
void gemmRows(const float* rows, size_t pixels, const float* packed, size_t units, size_t depth,
              const float* paddedBias, float low, float high, float* out) {
    using Vec = typename Isa::Vec;
    constexpr size_t L = Isa::kLanes, G = Isa::kGroup, P = Isa::kPixels;
    const Vec lo = Isa::splat(low), hi = Isa::splat(high);
    const size_t chunk = std::max<size_t>(P, kChunkBytes / (depth * sizeof(float)) / P * P);
    for (size_t first = 0; first < pixels; first += chunk) {
        const size_t count = std::min(chunk, pixels - first);
        const float* a = rows + first * depth;
        float* o = out + first * units;
        size_t u = 0;
        for (; u + G * L <= units; u += G * L) {
            gemmColumn<Isa, G, Two>(a, count, packed + u * depth, depth, paddedBias + u, lo, hi, o + u, units, G * L);
        }
        for (; u < units; u += L) {
            gemmColumn<Isa, 1, Two>(a, count, packed + u * depth, depth, paddedBias + u, lo, hi, o + u, units, units - u);
        }
    }
}

template <class Isa>
void gemmFor(const float* rows, size_t pixels, const float* packed, size_t units, size_t depth,
             const float* paddedBias, float low, float high, float* out, bool two) {
    if (two) {
        gemmRows<Isa, true>(rows, pixels, packed, units, depth, paddedBias, low, high, out);
    } else {
        gemmRows<Isa, false>(rows, pixels, packed, units, depth, paddedBias, low, high, out);
    }
}

// V vectors of channels of P output pixels (taps + q * count: pixel q's taps): from the bias,
// each tap's product fused in in the order of the taps (a padded tap points at zeros), then
// clamped. Pixels side by side give the core independent chains of fused multiply-adds.
template <class Isa, size_t V, size_t P>
inline void depthwiseBlock(const float* const* taps, const size_t* filterAt, size_t count, size_t c,
                           const float* filter, const float* bias, const typename Isa::Vec& low,
                           const typename Isa::Vec& high, float* out, size_t outStride) {
    using Vec = typename Isa::Vec;
    constexpr size_t L = Isa::kLanes;
    Vec acc[P][V];
    for (size_t v = 0; v < V; ++v) {
        const Vec b = Isa::load(bias + c + v * L);
        for (size_t q = 0; q < P; ++q) acc[q][v] = b;
    }
    for (size_t t = 0; t < count; ++t) {
        const float* f = filter + filterAt[t] + c;
        Vec w[V];
        for (size_t v = 0; v < V; ++v) w[v] = Isa::load(f + v * L);
        for (size_t q = 0; q < P; ++q) {
            const float* in = taps[q * count + t] + c;
            for (size_t v = 0; v < V; ++v) acc[q][v] = Isa::fma(Isa::load(in + v * L), w[v], acc[q][v]);
        }
    }
    for (size_t q = 0; q < P; ++q) {
        for (size_t v = 0; v < V; ++v) Isa::store(out + q * outStride + c + v * L, Isa::clamp(acc[q][v], low, high));
    }
}

// Every channel of P output pixels (their taps side by side in `taps`).
template <class Isa, size_t P>
inline void depthwisePixels(const float* const* taps, const size_t* filterAt, size_t count, size_t channels,
                            const float* filter, const float* bias, float low, float high, float* out) {
    using Vec = typename Isa::Vec;
    constexpr size_t L = Isa::kLanes;
    const Vec lo = Isa::splat(low), hi = Isa::splat(high);
    size_t c = 0;
    for (; c + 4 * L <= channels; c += 4 * L) {
        depthwiseBlock<Isa, 4, P>(taps, filterAt, count, c, filter, bias, lo, hi, out, channels);
    }
    if (c + 2 * L <= channels) {
        depthwiseBlock<Isa, 2, P>(taps, filterAt, count, c, filter, bias, lo, hi, out, channels);
        c += 2 * L;
    }
    if (c + L <= channels) {
        depthwiseBlock<Isa, 1, P>(taps, filterAt, count, c, filter, bias, lo, hi, out, channels);
        c += L;
    }
    for (; c < channels; ++c) {
        for (size_t q = 0; q < P; ++q) {
            float acc = bias[c];
            for (size_t t = 0; t < count; ++t) acc = Isa::fmaScalar(taps[q * count + t][c], filter[filterAt[t] + c], acc);
            out[q * channels + c] = Isa::clampScalar(acc, low, high);
        }
    }
}

template <class Isa>
void depthwiseFor(const DepthwiseShape& s, const float* input, const float* filter, const float* paddedBias,
                  float low, float high, float* output) {
    const auto channels = static_cast<size_t>(s.inC);
    const size_t count = static_cast<size_t>(s.kh) * s.kw;
    const std::vector<float> zeros(channels, 0.0f);
    // XNNPACK's indirection order with multiplier 1: the window's columns outer, rows inner; a
    // window inside the image reads each tap at a fixed distance from its first.
    std::vector<int32_t> tapX(count), tapY(count);
    std::vector<size_t> filterAt(count), inside(count);
    for (size_t t = 0; t < count; ++t) {
        tapX[t] = static_cast<int32_t>(t) / s.kh;
        tapY[t] = static_cast<int32_t>(t) % s.kh;
        filterAt[t] = (static_cast<size_t>(tapY[t]) * s.kw + tapX[t]) * channels;
        inside[t] = (static_cast<size_t>(tapY[t]) * s.dilationH * s.inW + static_cast<size_t>(tapX[t]) * s.dilationW) *
                    channels;
    }
    const int32_t spanX = (s.kw - 1) * s.dilationW, spanY = (s.kh - 1) * s.dilationH;
    std::vector<const float*> rowsOf(static_cast<size_t>(s.kh)), taps(2 * count);
    for (int32_t b = 0; b < s.batch; ++b) {
        for (int32_t oy = 0; oy < s.outH; ++oy) {
            const int32_t y0 = oy * s.strideH - s.padTop;
            for (int32_t ky = 0; ky < s.kh; ++ky) {
                const int32_t iy = y0 + ky * s.dilationH;
                rowsOf[ky] = iy >= 0 && iy < s.inH ? input + (static_cast<size_t>(b) * s.inH + iy) * s.inW * channels
                                                   : nullptr;
            }
            const bool rowsInside = y0 >= 0 && y0 + spanY < s.inH;
            const auto tapsOf = [&](int32_t ox, const float** to) {
                const int32_t x0 = ox * s.strideW - s.padLeft;
                if (rowsInside && x0 >= 0 && x0 + spanX < s.inW) {
                    const float* first = rowsOf[0] + static_cast<size_t>(x0) * channels;
                    for (size_t t = 0; t < count; ++t) to[t] = first + inside[t];
                    return;
                }
                for (size_t t = 0; t < count; ++t) {
                    const int32_t ix = x0 + tapX[t] * s.dilationW;
                    const float* row = rowsOf[tapY[t]];
                    to[t] = row != nullptr && ix >= 0 && ix < s.inW ? row + static_cast<size_t>(ix) * channels
                                                                    : zeros.data();
                }
            };
            float* line = output + (static_cast<size_t>(b) * s.outH + oy) * s.outW * channels;
            int32_t ox = 0;
            for (; ox + 2 <= s.outW; ox += 2) {
                tapsOf(ox, taps.data());
                tapsOf(ox + 1, taps.data() + count);
                depthwisePixels<Isa, 2>(taps.data(), filterAt.data(), count, channels, filter, paddedBias, low, high,
                                        line + static_cast<size_t>(ox) * channels);
            }
            if (ox < s.outW) {
                tapsOf(ox, taps.data());
                depthwisePixels<Isa, 1>(taps.data(), filterAt.data(), count, channels, filter, paddedBias, low, high,
                                        line + static_cast<size_t>(ox) * channels);
            }
        }
    }
}

template <class Isa>
IsaKernels kernelsFor() {
    return {Isa::kLanes, packFor<Isa>, gemmFor<Isa>, depthwiseFor<Isa>};
}

}  // namespace
}  // namespace nnemu::tflite::kernels::xnnpackfloat
