// CONV_3D and CONV_3D_TRANSPOSE in float32, as TFLite's builtin kernels compute them. Layouts are
// TFLite's: input NDHWC; CONV_3D's filter [D, H, W, in, out], CONV_3D_TRANSPOSE's [D, H, W, out, in]
// and its output shape given by input 0 (sized at invoke when that input is not a constant).
// Float results are TFLite's bit for bit on the tested shapes, its default (generic optimized)
// kernels' order: CONV_3D's GEMM starts each output from the bias and accumulates the filter taps
// in (d, h, w, in channel) order with fused multiply-adds (the FMA instruction where the CPU has
// it, else libm's exact std::fma), then clamps; CONV_3D_TRANSPOSE's GEMM (no fusing) sums a tap's
// input channels and adds the taps' sums into the output in input order, and with a dilation
// TFLite's reference transpose adds every product into the output directly; the bias and the clamp
// come last. Loops run over contiguous channel vectors (no per-element calls); the file is built
// with -ffp-contract=off so that only the explicit FMAs fuse.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::conv3d {

constexpr size_t kRank = 5;

// One filter tap: sum[o] += values[c] * weights[c * n + o] for c < channels (in order), o < n,
// fused (one rounding) or as a rounded product added.
using MultiplyAdd = void (*)(float* sum, const float* values, size_t channels, const float* weights, size_t n);

#if defined(__x86_64__)
// Blocks of 32 and 8 output channels kept in registers over all the channels (each output's
// order unchanged), the rest one by one; fused or a rounded product added.
template <bool kFused>
__attribute__((target("avx2,fma"))) inline __m256 step(__m256 sum, __m256 value, const float* weights) {
    const __m256 w = _mm256_loadu_ps(weights);
    if constexpr (kFused) return _mm256_fmadd_ps(value, w, sum);
    return _mm256_add_ps(sum, _mm256_mul_ps(value, w));
}

template <bool kFused>
__attribute__((target("avx2,fma"))) void blocked(float* sum, const float* values, size_t channels, const float* weights,
                                                 size_t n) {
    size_t o = 0;
    for (; o + 32 <= n; o += 32) {
        __m256 a0 = _mm256_loadu_ps(sum + o), a1 = _mm256_loadu_ps(sum + o + 8);
        __m256 a2 = _mm256_loadu_ps(sum + o + 16), a3 = _mm256_loadu_ps(sum + o + 24);
        for (size_t c = 0; c < channels; ++c) {
            const __m256 v = _mm256_set1_ps(values[c]);
            const float* w = weights + c * n + o;
            a0 = step<kFused>(a0, v, w);
            a1 = step<kFused>(a1, v, w + 8);
            a2 = step<kFused>(a2, v, w + 16);
            a3 = step<kFused>(a3, v, w + 24);
        }
        _mm256_storeu_ps(sum + o, a0);
        _mm256_storeu_ps(sum + o + 8, a1);
        _mm256_storeu_ps(sum + o + 16, a2);
        _mm256_storeu_ps(sum + o + 24, a3);
    }
    for (; o + 8 <= n; o += 8) {
        __m256 a = _mm256_loadu_ps(sum + o);
        for (size_t c = 0; c < channels; ++c) a = step<kFused>(a, _mm256_set1_ps(values[c]), weights + c * n + o);
        _mm256_storeu_ps(sum + o, a);
    }
    for (; o < n; ++o) {
        float a = sum[o];
        for (size_t c = 0; c < channels; ++c) {
            if constexpr (kFused) {
                a = std::fma(values[c], weights[c * n + o], a);
            } else {
                a += values[c] * weights[c * n + o];
            }
        }
        sum[o] = a;
    }
}
#endif
void fusedLibm(float* sum, const float* values, size_t channels, const float* weights, size_t n) {
    for (size_t c = 0; c < channels; ++c, weights += n) {
        for (size_t o = 0; o < n; ++o) sum[o] = std::fma(values[c], weights[o], sum[o]);
    }
}
void unfusedPortable(float* sum, const float* values, size_t channels, const float* weights, size_t n) {
    for (size_t c = 0; c < channels; ++c, weights += n) {
        for (size_t o = 0; o < n; ++o) sum[o] += values[c] * weights[o];
    }
}
MultiplyAdd fused() {
#if defined(__x86_64__)
    static const MultiplyAdd chosen = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? blocked<true> : fusedLibm;
    return chosen;
#else
    return fusedLibm;
#endif
}
MultiplyAdd unfused() {
#if defined(__x86_64__)
    static const MultiplyAdd chosen = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? blocked<false> : unfusedPortable;
    return chosen;
#else
    return unfusedPortable;
#endif
}

// The spatial geometry, in (depth, height, width) order.
struct Geometry {
    std::array<int32_t, 3> stride{}, dilation{}, pad{};
    float low = std::numeric_limits<float>::lowest(), high = std::numeric_limits<float>::max();
};

// The options, checked; the activation as TFLite's float range (other codes do not clamp).
bool readOptions(const CpuKernelCall& call, Geometry* g, bool* same) {
    const auto* o = call.params<TfLiteConv3DParams>();
    if (o == nullptr) return call.fail("missing Conv3DOptions");
    if (o->padding != kTfLitePaddingSame && o->padding != kTfLitePaddingValid) return call.fail("unknown padding");
    *same = o->padding == kTfLitePaddingSame;
    g->stride = {o->stride_depth, o->stride_height, o->stride_width};
    g->dilation = {o->dilation_depth_factor, o->dilation_height_factor, o->dilation_width_factor};
    for (size_t k = 0; k < 3; ++k) {
        if (g->stride[k] < 1 || g->dilation[k] < 1) return call.fail("strides and dilations must be positive");
    }
    if (o->activation == kTfLiteActRelu) g->low = 0;
    if (o->activation == kTfLiteActRelu6) g->low = 0, g->high = 6;
    if (o->activation == kTfLiteActReluN1To1) g->low = -1, g->high = 1;
    return true;
}

// A convolution's output sizes over `in` (spatial sizes), and its padding before each dimension.
bool windowed(const CpuKernelCall& call, bool same, const std::vector<int32_t>& in, const std::vector<int32_t>& filter,
              Geometry* g, std::array<int32_t, 3>* out) {
    for (size_t k = 0; k < 3; ++k) {
        const int64_t effective = int64_t{filter[k] - 1} * g->dilation[k] + 1;
        const int64_t size = same ? (int64_t{in[k]} + g->stride[k] - 1) / g->stride[k]
                                  : (int64_t{in[k]} + g->stride[k] - effective) / g->stride[k];
        if (size <= 0 || size > std::numeric_limits<int32_t>::max()) return call.fail("the filter is larger than the input");
        const int64_t total = (size - 1) * g->stride[k] + effective - in[k];
        (*out)[k] = static_cast<int32_t>(size);
        g->pad[k] = static_cast<int32_t>(std::max<int64_t>(total, 0) / 2);
    }
    return true;
}

bool expectFloat(const CpuKernelCall& call, size_t input, size_t filter, size_t bias, size_t biasCount) {
    if (!call.expectType(call.in(input), {ElementType::FLOAT32}, "input") ||
        !call.expectType(call.in(filter), {ElementType::FLOAT32}, "filter") ||
        !call.expectType(call.out(0), {ElementType::FLOAT32}, "output")) {
        return false;
    }
    if (call.in(input).rank() != kRank || call.in(filter).rank() != kRank) return call.fail("input and filter must have rank 5");
    if (call.inputs.size() <= bias || !call.in(bias).present()) return true;
    if (!call.expectType(call.in(bias), {ElementType::FLOAT32}, "bias")) return false;
    if (call.in(bias).count() != biasCount) return call.fail("bias must have one value per output channel");
    return true;
}

std::vector<float> floats(const CpuOperand& operand) {
    std::vector<float> values(operand.count());
    if (!values.empty()) std::memcpy(values.data(), operand.data, values.size() * sizeof(float));
    return values;
}

// The bias input's values; zeros (one per output channel) when the node has none.
std::vector<float> biasOf(const CpuKernelCall& call, size_t input, size_t channels) {
    const bool present = call.inputs.size() > input && call.in(input).present();
    return present ? floats(call.in(input)) : std::vector<float>(channels);
}

// Adds the bias (when given: TFLite adds none, not zeros) and clamps, as TFLite's epilogue does,
// into the output.
void biasAndClamp(const CpuKernelCall& call, const Geometry& g, const std::vector<float>* bias, std::vector<float>* y) {
    for (size_t i = 0; i < y->size(); ++i) {
        const float value = bias != nullptr ? (*y)[i] + (*bias)[i % bias->size()] : (*y)[i];
        (*y)[i] = std::min(std::max(value, g.low), g.high);
    }
    if (!y->empty()) std::memcpy(call.out(0).out, y->data(), y->size() * sizeof(float));
}

// The window walk both kernels share: for each position of the `from` grid ([N, D, H, W, ...], in
// order) and each filter tap (in (d, h, w) order) landing inside the `to` grid at
// position * stride - pad + tap * dilation: visit(from, to, tap), flat position and tap indices.
template <typename Visit>
void forEachTap(const Geometry& g, const std::vector<int32_t>& from, const std::vector<int32_t>& to,
                const std::vector<int32_t>& filter, Visit visit) {
    size_t at = 0;
    for (int32_t b = 0; b < from[0]; ++b) {
        for (int32_t d = 0; d < from[1]; ++d) {
            for (int32_t h = 0; h < from[2]; ++h) {
                for (int32_t w = 0; w < from[3]; ++w, ++at) {
                    for (int32_t kd = 0; kd < filter[0]; ++kd) {
                        const int32_t td = d * g.stride[0] - g.pad[0] + kd * g.dilation[0];
                        if (td < 0 || td >= to[1]) continue;
                        for (int32_t kh = 0; kh < filter[1]; ++kh) {
                            const int32_t th = h * g.stride[1] - g.pad[1] + kh * g.dilation[1];
                            if (th < 0 || th >= to[2]) continue;
                            for (int32_t kw = 0; kw < filter[2]; ++kw) {
                                const int32_t tw = w * g.stride[2] - g.pad[2] + kw * g.dilation[2];
                                if (tw < 0 || tw >= to[3]) continue;
                                visit(at, ((size_t(b) * to[1] + td) * to[2] + th) * to[3] + tw,
                                      (size_t(kd) * filter[1] + kh) * filter[2] + kw);
                            }
                        }
                    }
                }
            }
        }
    }
}

// ---- CONV_3D: input [N, D, H, W, C], filter [D, H, W, C, O], optional bias [O].
bool conv3dGeometry(const CpuKernelCall& call, Geometry* g, std::vector<int32_t>* shape) {
    bool same = false;
    if (!call.expectCounts(2, 3, 1) || !readOptions(call, g, &same)) return false;
    const std::vector<int32_t>& w = call.in(1).shape();
    if (!expectFloat(call, 0, 1, 2, call.in(1).rank() == kRank ? static_cast<size_t>(w[4]) : 0)) return false;
    const std::vector<int32_t>& x = call.in(0).shape();
    if (x[4] != w[3]) return call.fail("input channels " + std::to_string(x[4]) + " differ from the filter's " + std::to_string(w[3]));
    std::array<int32_t, 3> out{};
    if (!windowed(call, same, {x[1], x[2], x[3]}, w, g, &out)) return false;
    *shape = {x[0], out[0], out[1], out[2], w[4]};
    return call.expectOutputShape(0, *shape);
}

bool prepareConv3d(const CpuKernelCall& call) {
    Geometry g;
    std::vector<int32_t> shape;
    return conv3dGeometry(call, &g, &shape);
}

bool runConv3d(const CpuKernelCall& call) {
    Geometry g;
    std::vector<int32_t> ys;
    if (!conv3dGeometry(call, &g, &ys)) return false;
    const std::vector<int32_t> &xs = call.in(0).shape(), &ws = call.in(1).shape();
    const std::vector<float> x = floats(call.in(0)), w = floats(call.in(1));
    std::vector<float> y(elementCount(ys));
    const size_t channels = static_cast<size_t>(xs[4]), outChannels = static_cast<size_t>(ws[4]);
    const MultiplyAdd multiplyAdd = fused();
    const std::vector<float> bias = biasOf(call, 2, outChannels);
    for (size_t i = 0; i < y.size(); i += outChannels) {   // TFLite's GEMM starts from the bias
        std::copy(bias.begin(), bias.end(), y.begin() + static_cast<std::ptrdiff_t>(i));
    }
    forEachTap(g, ys, xs, ws, [&](size_t out, size_t in, size_t tap) {
        multiplyAdd(y.data() + out * outChannels, x.data() + in * channels, channels,
                    w.data() + tap * channels * outChannels, outChannels);
    });
    biasAndClamp(call, g, nullptr, &y);   // the bias is in the sums
    return true;
}

// ---- CONV_3D_TRANSPOSE: output shape (int32 [5]), filter [D, H, W, O, C], input [N, D, H, W, C],
// optional bias [O]. `shape` empty: the shape input is not known yet.
bool transposeGeometry(const CpuKernelCall& call, Geometry* g, std::vector<int32_t>* shape) {
    bool same = false;
    if (!call.expectCounts(3, 4, 1) || !readOptions(call, g, &same)) return false;
    const std::vector<int32_t>& w = call.in(1).shape();
    if (!expectFloat(call, 2, 1, 3, call.in(1).rank() == kRank ? static_cast<size_t>(w[3]) : 0)) return false;
    const std::vector<int32_t>& x = call.in(2).shape();
    if (x[4] != w[4]) return call.fail("input channels " + std::to_string(x[4]) + " differ from the filter's " + std::to_string(w[4]));
    if (!call.expectType(call.in(0), {ElementType::INT32}, "output shape")) return false;
    if (call.in(0).rank() != 1 || call.in(0).count() != kRank) return call.fail("the output shape must hold 5 values");
    shape->clear();
    if (!call.in(0).known()) return true;
    for (size_t k = 0; k < kRank; ++k) shape->push_back(call.in(0).at<int32_t>(k));
    const std::vector<int32_t>& s = *shape;
    if (s[0] != x[0]) return call.fail("the output shape's batch differs from the input's");
    if (s[4] != w[3]) return call.fail("the output shape's channels differ from the filter's");
    std::array<int32_t, 3> out{};
    if (std::min({s[1], s[2], s[3]}) < 1 || !windowed(call, same, {s[1], s[2], s[3]}, w, g, &out) ||
        out != std::array<int32_t, 3>{x[1], x[2], x[3]}) {
        return call.fail("output shape " + shapeText(s) + " does not convolve to the input's " + shapeText(x));
    }
    return true;
}

bool prepareTranspose(const CpuKernelCall& call) {
    Geometry g;
    std::vector<int32_t> shape;
    if (!transposeGeometry(call, &g, &shape)) return false;
    return shape.empty() || call.expectOutputShape(0, shape);
}

bool runTranspose(const CpuKernelCall& call) {
    Geometry g;
    std::vector<int32_t> ys;
    if (!transposeGeometry(call, &g, &ys)) return false;
    if (ys.empty()) return call.fail("the output shape input has no data");
    if (!call.resizeOutput(0, ys)) return false;
    const std::vector<int32_t> &xs = call.in(2).shape(), &ws = call.in(1).shape();
    const std::vector<float> x = floats(call.in(2)), filter = floats(call.in(1));
    const size_t channels = static_cast<size_t>(xs[4]), outChannels = static_cast<size_t>(ys[4]);
    const size_t taps = static_cast<size_t>(ws[0]) * ws[1] * ws[2];
    // The filter as [tap, in, out]: the output channels contiguous.
    std::vector<float> w(filter.size());
    for (size_t t = 0; t < taps; ++t) {
        for (size_t o = 0; o < outChannels; ++o) {
            for (size_t c = 0; c < channels; ++c) w[(t * channels + c) * outChannels + o] = filter[(t * outChannels + o) * channels + c];
        }
    }
    // TFLite's reference kernel (dilated) adds each product into the output; its GEMM kernel sums a
    // tap's channels first.
    const bool direct = g.dilation != std::array<int32_t, 3>{1, 1, 1};
    const MultiplyAdd multiplyAdd = unfused();
    std::vector<float> y(elementCount(ys)), column(outChannels);
    forEachTap(g, xs, ys, ws, [&](size_t in, size_t out, size_t tap) {
        float* to = y.data() + out * outChannels;
        float* sum = direct ? to : column.data();
        if (!direct) std::fill(column.begin(), column.end(), 0.0f);
        multiplyAdd(sum, x.data() + in * channels, channels, w.data() + tap * channels * outChannels, outChannels);
        if (!direct) {
            for (size_t o = 0; o < outChannels; ++o) to[o] += column[o];
        }
    });
    const bool hasBias = call.inputs.size() > 3 && call.in(3).present();
    const std::vector<float> bias = biasOf(call, 3, outChannels);
    biasAndClamp(call, g, hasBias ? &bias : nullptr, &y);
    return true;
}

}  // namespace kernels::conv3d

}  // namespace nnemu::tflite
