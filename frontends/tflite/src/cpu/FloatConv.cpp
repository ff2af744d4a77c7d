// Float CONV_2D, FULLY_CONNECTED and DEPTHWISE_CONV_2D as TFLite's x86 build computes them, bit
// for bit (TfliteKernelForms.cpp runs them on the CPU path in place of nnapi-reference, whose sums
// run in another order):
// - CONV_2D: each output pixel's window copied into a row (im2col, 0 for the padding; the input
//   itself for a 1x1 filter at stride 1), then the GEMM in Eigen's order (FloatGemmEigen.h), the
//   bias added and the activation range applied;
// - FULLY_CONNECTED: each input row one GEMM row, the same way;
// - DEPTHWISE_CONV_2D: TFLite's optimized loops start each output at its bias and add the in-range
//   taps row by row, left to right (each product rounded, then added).
// TFLite clamps to [lowest, max] without an activation (an infinity becomes the largest float).
// A node the tools run as TFLite's XNNPACK delegate (call.xnnpack()) takes XNNPACK's orders
// instead (XnnpackFloatConv.h).
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

#include "CpuThreads.h"
#include "FloatConv.h"
#include "FloatGemmEigen.h"
#include "XnnpackFloatConv.h"

namespace nnemu::tflite::kernels::floatconv {
namespace {

void activationRange(int32_t activation, float* low, float* high) {
    *low = std::numeric_limits<float>::lowest();
    *high = std::numeric_limits<float>::max();
    if (activation == kTfLiteActRelu || activation == kTfLiteActRelu6) *low = 0.0f;
    if (activation == kTfLiteActRelu6) *high = 6.0f;
    if (activation == kTfLiteActReluN1To1) {
        *low = -1.0f;
        *high = 1.0f;
    }
}

bool checkBias(const CpuKernelCall& call, size_t channels) {
    if (call.inputs.size() < 3 || !call.in(2).present()) return true;
    if (!call.expectType(call.in(2), {ElementType::FLOAT32}, "bias")) return false;
    if (call.in(2).count() != channels) return call.fail("bias must have one value per output channel");
    return true;
}

const float* biasOf(const CpuKernelCall& call) {
    return call.inputs.size() >= 3 && call.in(2).present() ? reinterpret_cast<const float*>(call.in(2).data) : nullptr;
}

// The packed filters, kept in the unit's state when they are constant; the im2col rows beside them.
struct GemmState {
    floatgemm::Plan plan;
    std::vector<float> packed;   // XNNPACK's order (call.xnnpack()): the filters as xnnpackfloat::pack() lays them out
    std::vector<float> rows;
};

GemmState& gemmState(const CpuKernelCall& call, size_t units, size_t depth, std::shared_ptr<void>& local) {
    const CpuOperand& filters = call.in(1);
    // Filters computed in the graph (a DENSIFY's output, a model input) are packed again at every invoke.
    const bool constant = filters.tensor->isConstant && !filters.tensor->isVariable;
    return *keptState<GemmState>(
            call, local,
            [&](GemmState& made) {
                const auto* weights = reinterpret_cast<const float*>(filters.data);
                if (call.xnnpack()) {
                    made.packed.resize(xnnpackfloat::packedSize(units, depth));
                    xnnpackfloat::pack(weights, units, depth, made.packed.data());
                } else {
                    floatgemm::makePlan(weights, units, depth, &made.plan);
                }
                return true;
            },
            constant);
}

// Output pixels [first, first + count)'s windows as rows (taps row by row, each tap's inC
// channels; 0 for the padding), as conv::forEachWindowTap orders them, without a division or a
// call per tap (the first layer of an image model has 3 channels: a call of memcpy per tap was
// most of its time).
void im2col(const std::vector<int32_t>& x, const std::vector<int32_t>& w, const std::vector<int32_t>& y,
            const conv::ConvGeometry& g, const float* input, size_t first, size_t count, float* row) {
    const auto inC = static_cast<size_t>(x[3]);
    const auto copy = [](const float* from, size_t count, float* to) {
        if (count <= 16) {
            for (size_t i = 0; i < count; ++i) to[i] = from[i];
        } else {
            std::memcpy(to, from, count * sizeof(float));
        }
    };
    const auto width = static_cast<size_t>(y[2]), height = static_cast<size_t>(y[1]);
    auto ox = static_cast<int32_t>(first % width), oy = static_cast<int32_t>(first / width % height),
         b = static_cast<int32_t>(first / width / height);
    for (size_t p = 0; p < count; ++p) {
        for (int32_t ky = 0; ky < w[1]; ++ky) {
            const int32_t iy = oy * g.strideH - g.padTop + ky * g.dilationH;
            const bool rowInside = iy >= 0 && iy < x[1];
            const float* line = input + (static_cast<size_t>(b) * x[1] + (rowInside ? iy : 0)) * x[2] * inC;
            const int32_t left = ox * g.strideW - g.padLeft;
            if (rowInside && g.dilationW == 1 && left >= 0 && left + w[2] <= x[2]) {
                // The window's row lies inside: its taps are adjacent in the input.
                const size_t span = static_cast<size_t>(w[2]) * inC;
                copy(line + static_cast<size_t>(left) * inC, span, row);
                row += span;
                continue;
            }
            for (int32_t kx = 0; kx < w[2]; ++kx, row += inC) {
                const int32_t ix = ox * g.strideW - g.padLeft + kx * g.dilationW;
                if (rowInside && ix >= 0 && ix < x[2]) {
                    copy(line + static_cast<size_t>(ix) * inC, inC, row);
                } else {
                    std::fill(row, row + inC, 0.0f);
                }
            }
        }
        if (++ox == y[2]) {
            ox = 0;
            if (++oy == y[1]) {
                oy = 0;
                ++b;
            }
        }
    }
}

}  // namespace

bool isFloatForm(const CpuKernelCall& call) {
    return call.inputs.size() >= 2 && !call.outputs.empty() && call.in(0).present() && call.in(1).present() &&
           call.out(0).present() && call.in(0).type() == ElementType::FLOAT32 &&
           call.in(1).type() == ElementType::FLOAT32 && call.out(0).type() == ElementType::FLOAT32;
}

bool prepareConv(const CpuKernelCall& call) {
    const std::vector<int32_t> &x = call.in(0).shape(), &w = call.in(1).shape();
    if (w[3] != x[3]) return call.fail("a grouped float convolution runs on nnapi-reference");
    return checkBias(call, static_cast<size_t>(w[0]));
}

bool runConv(const CpuKernelCall& call, const conv::ConvGeometry& g) {
    if (!prepareConv(call)) return false;
    const std::vector<int32_t> &x = call.in(0).shape(), &w = call.in(1).shape(), &y = call.out(0).shape();
    const size_t units = static_cast<size_t>(w[0]), inC = static_cast<size_t>(x[3]);
    const size_t depth = static_cast<size_t>(w[1]) * w[2] * inC;
    const size_t pixels = static_cast<size_t>(y[0]) * y[1] * y[2];
    std::shared_ptr<void> local;
    GemmState& state = gemmState(call, units, depth, local);
    const auto* input = reinterpret_cast<const float*>(call.in(0).data);
    const bool direct = w[1] == 1 && w[2] == 1 && g.strideH == 1 && g.strideW == 1 && g.dilationH == 1 &&
                        g.dilationW == 1 && g.padTop == 0 && g.padLeft == 0;
    float low, high;
    const auto activation = static_cast<int32_t>(call.params<TfLiteConvParams>()->activation);
    auto* output = reinterpret_cast<float*>(call.out(0).out);
    if (!direct) state.rows.resize(pixels * depth);
    if (call.xnnpack()) {
        xnnpackfloat::activationRange(activation, &low, &high);
        // XNNPACK's order is each pixel's own: the pixels are shared among the threads, each
        // share copying its own windows.
        const size_t shares = cpuShares(call.threads, pixels, static_cast<double>(pixels) * units * depth);
        forCpuShares(call.threads, shares, pixels, [&](size_t, size_t begin, size_t end) {
            const float* rows = input + begin * depth;
            if (!direct) {
                im2col(x, w, y, g, input, begin, end - begin, state.rows.data() + begin * depth);
                rows = state.rows.data() + begin * depth;
            }
            // One share (one pixel, a classifier's): the gemm shares the units instead.
            xnnpackfloat::gemm(rows, end - begin, state.packed.data(), units, depth, biasOf(call), low, high,
                               output + begin * units, direct ? 2 : 1, shares == 1 ? call.threads : nullptr);
        });
        return true;
    }
    // Eigen's order depends on the number of pixels (its blocking): one call over them all.
    const float* rows = input;
    if (!direct) {
        im2col(x, w, y, g, input, 0, pixels, state.rows.data());
        rows = state.rows.data();
    }
    activationRange(activation, &low, &high);
    floatgemm::run(state.plan, rows, pixels, biasOf(call), low, high, output);
    return true;
}

bool prepareFullyConnected(const CpuKernelCall& call) {
    const CpuOperand &input = call.in(0), &weights = call.in(1);
    if (weights.rank() != 2 || weights.shape()[1] <= 0) return call.fail("weights must have shape [units, depth]");
    const auto units = static_cast<size_t>(weights.shape()[0]), depth = static_cast<size_t>(weights.shape()[1]);
    const auto* o = call.params<TfLiteFullyConnectedParams>();
    if (o != nullptr && o->weights_format != kTfLiteFullyConnectedWeightsFormatDefault) {
        return call.fail("shuffled weights are uint8 only");
    }
    if (o != nullptr && o->activation > kTfLiteActRelu6) return call.fail("the fused activation is not supported");
    if (input.count() % depth != 0) return call.fail("input size is not a multiple of the weights' depth");
    if (!checkBias(call, units)) return false;
    std::vector<int32_t> shape{static_cast<int32_t>(input.count() / depth), static_cast<int32_t>(units)};
    if (o != nullptr && o->keep_num_dims) {
        shape = input.shape();
        shape.back() = static_cast<int32_t>(units);
    }
    return call.expectOutputShape(0, shape);
}

bool runFullyConnected(const CpuKernelCall& call) {
    if (!prepareFullyConnected(call)) return false;
    const auto units = static_cast<size_t>(call.in(1).shape()[0]), depth = static_cast<size_t>(call.in(1).shape()[1]);
    const auto* o = call.params<TfLiteFullyConnectedParams>();
    float low, high;
    std::shared_ptr<void> local;
    GemmState& state = gemmState(call, units, depth, local);
    if (call.xnnpack()) {
        xnnpackfloat::activationRange(o != nullptr ? static_cast<int32_t>(o->activation) : 0, &low, &high);
        xnnpackfloat::gemm(reinterpret_cast<const float*>(call.in(0).data), call.in(0).count() / depth,
                           state.packed.data(), units, depth, biasOf(call), low, high,
                           reinterpret_cast<float*>(call.out(0).out), 2, call.threads);
        return true;
    }
    activationRange(o != nullptr ? static_cast<int32_t>(o->activation) : 0, &low, &high);
    floatgemm::run(state.plan, reinterpret_cast<const float*>(call.in(0).data), call.in(0).count() / depth,
                   biasOf(call), low, high, reinterpret_cast<float*>(call.out(0).out));
    return true;
}

bool runDepthwise(const CpuKernelCall& call, int32_t padTop, int32_t padLeft) {
    const std::vector<int32_t> &x = call.in(0).shape(), &w = call.in(1).shape(), &y = call.out(0).shape();
    if (!checkBias(call, static_cast<size_t>(w[3]))) return false;
    const auto* o = call.params<TfLiteDepthwiseConvParams>();
    const auto* input = reinterpret_cast<const float*>(call.in(0).data);
    const auto* filter = reinterpret_cast<const float*>(call.in(1).data);
    const float* bias = biasOf(call);
    auto* output = reinterpret_cast<float*>(call.out(0).out);
    const auto channels = static_cast<size_t>(w[3]), inC = static_cast<size_t>(x[3]);
    const auto multiplier = static_cast<size_t>(o->depth_multiplier);
    float low, high;
    if (call.xnnpack()) {
        xnnpackfloat::activationRange(static_cast<int32_t>(o->activation), &low, &high);
        const xnnpackfloat::DepthwiseShape s{y[0], x[1], x[2], x[3], y[1], y[2], w[1], w[2], o->stride_height,
                                             o->stride_width, o->dilation_height_factor, o->dilation_width_factor,
                                             padTop, padLeft, multiplier};
        xnnpackfloat::depthwise(s, input, filter, bias, low, high, output, call.threads);
        return true;
    }
    activationRange(static_cast<int32_t>(o->activation), &low, &high);
    std::vector<float> acc(channels);
    for (int32_t b = 0; b < y[0]; ++b) {
        for (int32_t oy = 0; oy < y[1]; ++oy) {
            for (int32_t ox = 0; ox < y[2]; ++ox) {
                for (size_t c = 0; c < channels; ++c) acc[c] = bias != nullptr ? bias[c] : 0.0f;
                for (int32_t ky = 0; ky < w[1]; ++ky) {
                    const int32_t iy = oy * o->stride_height - padTop + ky * o->dilation_height_factor;
                    if (iy < 0 || iy >= x[1]) continue;
                    for (int32_t kx = 0; kx < w[2]; ++kx) {
                        const int32_t ix = ox * o->stride_width - padLeft + kx * o->dilation_width_factor;
                        if (ix < 0 || ix >= x[2]) continue;
                        const float* in = input + ((static_cast<size_t>(b) * x[1] + iy) * x[2] + ix) * inC;
                        const float* f = filter + (static_cast<size_t>(ky) * w[2] + kx) * channels;
                        if (multiplier == 1) {
                            for (size_t c = 0; c < channels; ++c) {
                                const float product = in[c] * f[c];
                                acc[c] = acc[c] + product;
                            }
                        } else {
                            for (size_t c = 0; c < channels; ++c) {
                                const float product = in[c / multiplier] * f[c];
                                acc[c] = acc[c] + product;
                            }
                        }
                    }
                }
                float* to = output + ((static_cast<size_t>(b) * y[1] + oy) * y[2] + ox) * channels;
                for (size_t c = 0; c < channels; ++c) to[c] = std::min(std::max(acc[c], low), high);
            }
        }
    }
    return true;
}

}  // namespace nnemu::tflite::kernels::floatconv
