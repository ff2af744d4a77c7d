// Reference kernels of CONV_2D, DEPTHWISE_CONV_2D and GROUPED_CONV_2D (F32, F16, Q8 with Q8
// or per-channel filters; types handled by ConvKernel.h). Taps that fall into the padding
// contribute nothing (a real zero).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "ConvKernel.h"
#include "DotProduct.h"
#include "ConvGemm.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Padding.h"
#include "nnemu/hal/ShapeUtils.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

using hal::Image4;
using hal::WindowGeometry;
using hal::WindowKind;
using hal::WindowParams;
using convpool::forEachTap;

struct ConvShape {
    WindowKind kind = WindowKind::CONV;
    WindowParams params;
    WindowGeometry geometry;
    Image4 in, out;
    uint32_t depthMultiplier = 1;
    uint32_t groupInChannels = 0;   // CONV and GROUPED: input channels each output reads
    uint32_t groupOutChannels = 0;  // CONV and GROUPED: output channels of one group
};

bool resolveShape(const OperationContext& context, WindowKind kind, ConvShape* s) {
    const OperandView& input = context.input(0);
    const OperandView& filter = context.input(1);
    const OperandView& output = context.output(0);
    NN_RET_CHECK(input.rank() == 4 && filter.rank() == 4 && output.rank() == 4);
    s->kind = kind;
    s->params = hal::readWindowParams(context, kind);
    NN_RET_CHECK(hal::windowParamsValid(s->params, kind));
    s->in = hal::makeImage4(input.dims, s->params.nchw);
    s->out = hal::makeImage4(output.dims, s->params.nchw);
    s->depthMultiplier = static_cast<uint32_t>(s->params.depthMultiplier);
    NN_RET_CHECK(hal::resolveWindow(s->params, s->in.height, s->in.width, filter.dim(1),
                                    filter.dim(2), &s->geometry));
    NN_RET_CHECK(s->geometry.outHeight == s->out.height && s->geometry.outWidth == s->out.width);
    NN_RET_CHECK(s->out.batches == s->in.batches);
    if (kind == WindowKind::DEPTHWISE) {
        NN_RET_CHECK(filter.dim(3) == s->out.channels);
        NN_RET_CHECK(static_cast<uint64_t>(s->in.channels) * s->depthMultiplier == s->out.channels);
    } else {
        const auto groups = static_cast<uint32_t>(s->params.groups);
        NN_RET_CHECK(filter.dim(0) == s->out.channels && s->out.channels % groups == 0);
        NN_RET_CHECK(static_cast<uint64_t>(filter.dim(3)) * groups == s->in.channels);
        s->groupInChannels = filter.dim(3);
        s->groupOutChannels = s->out.channels / groups;
    }
    return true;
}

// Calls fn(b, oy, ox, y0, x0) for every output pixel, (y0, x0) the input position of its
// window's top-left tap (negative inside the padding).
template <typename Fn>
void forEachWindow(const ConvShape& s, Fn fn) {
    const WindowGeometry& g = s.geometry;
    for (uint32_t b = 0; b < s.out.batches; ++b) {
        for (uint32_t oy = 0; oy < s.out.height; ++oy) {
            for (uint32_t ox = 0; ox < s.out.width; ++ox) {
                fn(b, oy, ox, static_cast<int64_t>(oy) * g.strideH - g.padTop,
                   static_cast<int64_t>(ox) * g.strideW - g.padLeft);
            }
        }
    }
}

// CONV_2D (or a single-group GROUPED_CONV_2D) on NHWC tensors: the blocked GEMM of ConvGemm.h,
// the same sums in the same order as NhwcWindowLoop.
bool takesConvGemm(const ConvShape& s) {
    return !s.params.nchw && s.kind != WindowKind::DEPTHWISE && s.groupInChannels == s.in.channels;
}

convgemm::ConvGeometry gemmGeometry(const ConvShape& s) {
    return {s.in.batches, s.in.channels, s.out.channels, s.geometry};
}

// Visits every output element: `tap(inputIndex, filterIndex)` returns one product to add to
// the accumulator, `store(outputIndex, outChannel, accumulator)` writes the result.
struct WindowLoop {
    const ConvShape& s;

    template <typename Acc, typename Tap, typename Store>
    void run(Tap tap, Store store) const {
        forEachWindow(s, [&](uint32_t b, uint32_t oy, uint32_t ox, int64_t y0, int64_t x0) {
            for (uint32_t oc = 0; oc < s.out.channels; ++oc) {
                Acc acc{};
                forEachTap(s.geometry, y0, x0, [&](uint32_t ky, uint32_t kx, uint32_t iy, uint32_t ix) {
                    addTap(acc, tap, b, iy, ix, ky, kx, oc);
                });
                store(s.out.at(b, oy, ox, oc), oc, acc);
            }
        });
    }

    // Adds the products of one filter tap (ky, kx) for output channel oc at input pixel (b, y, x).
    template <typename Acc, typename Tap>
    void addTap(Acc& acc, Tap& tap, uint32_t b, uint32_t y, uint32_t x, uint32_t ky, uint32_t kx,
                uint32_t oc) const {
        const WindowGeometry& g = s.geometry;
        if (s.kind == WindowKind::DEPTHWISE) {
            // filter [1, kH, kW, Cout]; output channel oc reads input channel oc / multiplier
            const size_t filterIndex = (static_cast<size_t>(ky) * g.filterWidth + kx) * s.out.channels + oc;
            acc += tap(s.in.at(b, y, x, oc / s.depthMultiplier), filterIndex);
            return;
        }
        // filter [Cout, kH, kW, Cin / groups]; oc's group reads its own run of input channels
        const size_t filterBase =
                ((static_cast<size_t>(oc) * g.filterHeight + ky) * g.filterWidth + kx) * s.groupInChannels;
        const uint32_t firstInput = oc / s.groupOutChannels * s.groupInChannels;
        for (uint32_t ic = 0; ic < s.groupInChannels; ++ic) {
            acc += tap(s.in.at(b, y, x, firstInput + ic), filterBase + ic);
        }
    }
};

// The same sums for NHWC tensors, with the input and filter offsets of each tap computed once
// per window position instead of per product: CONV_2D and GROUPED_CONV_2D walk a tap's input
// channels as one run, DEPTHWISE_CONV_2D keeps one accumulator per output channel of a pixel
// and adds each tap to all of them. Every output element adds the same products in the same
// order as WindowLoop, so float results are identical.
struct NhwcWindowLoop {
    const ConvShape& s;

    template <typename Acc, typename Tap, typename Store>
    void run(Tap tap, Store store) const {
        const uint32_t channels = s.out.channels;
        std::vector<Acc> acc(channels);
        forEachWindow(s, [&](uint32_t b, uint32_t oy, uint32_t ox, int64_t y0, int64_t x0) {
            std::fill(acc.begin(), acc.end(), Acc{});
            if (s.kind == WindowKind::DEPTHWISE) {
                depthwisePixel(acc.data(), tap, b, y0, x0);
            } else {
                uint32_t oc = 0;
                for (; oc + kBlock <= channels && sameGroup(oc, kBlock); oc += kBlock) {
                    convolutionSums<kBlock>(acc.data() + oc, tap, b, y0, x0, oc);
                }
                for (; oc < channels; ++oc) convolutionSums<1>(acc.data() + oc, tap, b, y0, x0, oc);
            }
            const size_t out = s.out.at(b, oy, ox, 0);
            for (uint32_t oc = 0; oc < channels; ++oc) store(out + oc, oc, acc[oc]);
        });
    }

    // Quantized sums: sum((x - zx) * (w - zw)) over a tap's input channels is computed as
    // sum(x * w) - zw * sum(x) - zx * sum(w) + n * zx * zw, with the filter sums taken once per
    // execution, so the innermost loop is a plain 8-bit dot product. Integer sums are exact in
    // any order. Depthwise keeps the generic path (its loop is already per channel).
    template <typename T, typename W, typename Store>
    bool runQuant(const T* input, int32_t inputZeroPoint, const W* filter, int32_t filterZeroPoint, Store store,
                  const convpool::QuantOutput<T>& quantOutput) const {
        if (s.kind == WindowKind::DEPTHWISE) {
            run<int32_t>(
                    [&](size_t i, size_t f) {
                        return (static_cast<int32_t>(input[i]) - inputZeroPoint) *
                               (static_cast<int32_t>(filter[f]) - filterZeroPoint);
                    },
                    store);
            return true;
        }
        if (takesConvGemm(s)) {
            convgemm::convolveQuant(gemmGeometry(s), input, inputZeroPoint, filter, filterZeroPoint, quantOutput.bias,
                                    quantOutput.requantize, quantOutput.output);
            return true;
        }
        const WindowGeometry& g = s.geometry;
        const uint32_t depth = s.groupInChannels, channels = s.out.channels;
        const size_t taps = static_cast<size_t>(g.filterHeight) * g.filterWidth;
        std::vector<int32_t> filterSums(channels * taps);
        for (size_t t = 0; t < filterSums.size(); ++t) {
            filterSums[t] = elementSum(filter + t * depth, depth);
        }
        const int32_t zeroProduct = static_cast<int32_t>(depth) * inputZeroPoint * filterZeroPoint;
        std::vector<uint32_t> firstInput(channels);  // the first input channel of oc's group
        for (uint32_t oc = 0; oc < channels; ++oc) firstInput[oc] = oc / s.groupOutChannels * s.groupInChannels;
        std::vector<int32_t> acc(channels);
        forEachWindow(s, [&](uint32_t b, uint32_t oy, uint32_t ox, int64_t y0, int64_t x0) {
            std::fill(acc.begin(), acc.end(), 0);
            forEachTap(g, y0, x0, [&](uint32_t ky, uint32_t kx, uint32_t iy, uint32_t ix) {
                const T* pixel = input + s.in.at(b, iy, ix, 0);
                const size_t tapIndex = static_cast<size_t>(ky) * g.filterWidth + kx;
                int32_t inputSum = 0;
                uint32_t summed = UINT32_MAX;  // the group whose input sum inputSum holds
                for (uint32_t oc = 0; oc < channels; ++oc) {
                    const T* x = pixel + firstInput[oc];
                    const size_t tap = oc * taps + tapIndex;
                    if (filterZeroPoint != 0 && summed != firstInput[oc]) {
                        inputSum = elementSum(x, depth);
                        summed = firstInput[oc];
                    }
                    acc[oc] += dotProduct(x, filter + tap * depth, depth) - filterZeroPoint * inputSum -
                               inputZeroPoint * filterSums[tap] + zeroProduct;
                }
            });
            const size_t out = s.out.at(b, oy, ox, 0);
            for (uint32_t oc = 0; oc < channels; ++oc) store(out + oc, oc, acc[oc]);
        });
        return true;
    }

    // Output channels are summed kBlock at a time, each in its own accumulator and in the same
    // order as alone (taps, then input channels): independent chains of additions.
    static constexpr uint32_t kBlock = 4;

    bool sameGroup(uint32_t oc, uint32_t count) const {
        return oc / s.groupOutChannels == (oc + count - 1) / s.groupOutChannels;
    }

    template <uint32_t N, typename Acc, typename Tap>
    void convolutionSums(Acc* sums, Tap& tap, uint32_t b, int64_t y0, int64_t x0, uint32_t oc) const {
        const WindowGeometry& g = s.geometry;
        const uint32_t firstInput = oc / s.groupOutChannels * s.groupInChannels;
        const size_t filterStride = static_cast<size_t>(g.filterHeight) * g.filterWidth * s.groupInChannels;
        Acc acc[N] = {};
        forEachTap(g, y0, x0, [&](uint32_t ky, uint32_t kx, uint32_t iy, uint32_t ix) {
            const size_t in = s.in.at(b, iy, ix, firstInput);
            const size_t filter =
                    ((static_cast<size_t>(oc) * g.filterHeight + ky) * g.filterWidth + kx) * s.groupInChannels;
            for (uint32_t ic = 0; ic < s.groupInChannels; ++ic) {
                for (uint32_t k = 0; k < N; ++k) acc[k] += tap(in + ic, filter + k * filterStride + ic);
            }
        });
        for (uint32_t k = 0; k < N; ++k) sums[k] = acc[k];
    }

    template <typename Acc, typename Tap>
    void depthwisePixel(Acc* acc, Tap& tap, uint32_t b, int64_t y0, int64_t x0) const {
        const WindowGeometry& g = s.geometry;
        const uint32_t channels = s.out.channels, multiplier = s.depthMultiplier;
        forEachTap(g, y0, x0, [&](uint32_t ky, uint32_t kx, uint32_t iy, uint32_t ix) {
            const size_t in = s.in.at(b, iy, ix, 0);
            const size_t filter = (static_cast<size_t>(ky) * g.filterWidth + kx) * channels;
            if (multiplier == 1) {
                for (uint32_t oc = 0; oc < channels; ++oc) acc[oc] += tap(in + oc, filter + oc);
            } else {
                for (uint32_t oc = 0; oc < channels; ++oc) acc[oc] += tap(in + oc / multiplier, filter + oc);
            }
        });
    }
};

bool convolveFloatGemm(OperationContext& context, const ConvShape& s) {
    const OperandView& filter = context.input(1);
    const OperandView& bias = context.input(2);
    OperandView& output = context.output(0);
    NN_RET_CHECK(filter.type == OperandType::TENSOR_FLOAT32 && bias.type == OperandType::TENSOR_FLOAT32);
    NN_RET_CHECK(bias.elements() == s.out.channels);
    NN_RET_CHECK(convpool::fits(output, output.elements(), sizeof(float)));
    float low, high;
    quant::floatActivationRange(s.params.activation, &low, &high);
    convgemm::convolve(gemmGeometry(s), context.input(0).as<float>(), filter.as<float>(), bias.as<float>(), low, high,
                       output.as<float>());
    return true;
}

bool runWindowConv(OperationContext& context, WindowKind kind) {
    ConvShape s;
    NN_RET_CHECK(resolveShape(context, kind, &s));
    if (takesConvGemm(s) && context.input(0).type == OperandType::TENSOR_FLOAT32) {
        return convolveFloatGemm(context, s);
    }
    if (!s.params.nchw) return convpool::convolve(context, s.params.activation, s.out.channels, NhwcWindowLoop{s});
    return convpool::convolve(context, s.params.activation, s.out.channels, WindowLoop{s});
}

}  // namespace

bool kernels::conv2D(OperationContext& context) { return runWindowConv(context, WindowKind::CONV); }

bool kernels::depthwiseConv2D(OperationContext& context) {
    return runWindowConv(context, WindowKind::DEPTHWISE);
}

bool kernels::groupedConv2D(OperationContext& context) {
    return runWindowConv(context, WindowKind::GROUPED);
}

}  // namespace nnemu::cpu
