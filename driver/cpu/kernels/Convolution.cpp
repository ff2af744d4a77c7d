// Reference kernels of CONV_2D and DEPTHWISE_CONV_2D (F32, F16, Q8 with Q8 or per-channel
// filters). Taps that fall into the padding contribute nothing (a real zero).
#include <cstdint>
#include <vector>

#include "ConvPoolUtils.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/cpu/QuantMath.h"
#include "nnemu/hal/Padding.h"
#include "nnemu/hal/ShapeUtils.h"

namespace nnemu::cpu {
namespace {

using hal::Image4;
using hal::OperandType;
using hal::OperandView;
using hal::OperationContext;
using hal::WindowGeometry;
using hal::WindowKind;
using hal::WindowParams;

struct ConvShape {
    WindowKind kind = WindowKind::CONV;
    WindowParams params;
    WindowGeometry geometry;
    Image4 in, out;
    uint32_t depthMultiplier = 1;
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
    if (kind == WindowKind::CONV) {
        NN_RET_CHECK(filter.dim(0) == s->out.channels && filter.dim(3) == s->in.channels);
    } else {
        NN_RET_CHECK(filter.dim(3) == s->out.channels);
        NN_RET_CHECK(static_cast<uint64_t>(s->in.channels) * s->depthMultiplier == s->out.channels);
    }
    NN_RET_CHECK(context.input(2).elements() == s->out.channels);
    return true;
}

// Visits every output element: `tap(inputIndex, filterIndex)` returns one product to add to
// the accumulator, `store(outputIndex, outChannel, accumulator)` writes the result.
template <typename Acc, typename Tap, typename Store>
void convolve(const ConvShape& s, Tap tap, Store store) {
    const WindowGeometry& g = s.geometry;
    const uint32_t inChannels = s.in.channels;
    const uint32_t outChannels = s.out.channels;
    for (uint32_t b = 0; b < s.out.batches; ++b) {
        for (uint32_t oy = 0; oy < s.out.height; ++oy) {
            for (uint32_t ox = 0; ox < s.out.width; ++ox) {
                const int64_t y0 = static_cast<int64_t>(oy) * g.strideH - g.padTop;
                const int64_t x0 = static_cast<int64_t>(ox) * g.strideW - g.padLeft;
                for (uint32_t oc = 0; oc < outChannels; ++oc) {
                    Acc acc{};
                    for (uint32_t ky = 0; ky < g.filterHeight; ++ky) {
                        const int64_t iy = y0 + static_cast<int64_t>(ky) * g.dilationH;
                        if (iy < 0 || iy >= g.inHeight) continue;
                        for (uint32_t kx = 0; kx < g.filterWidth; ++kx) {
                            const int64_t ix = x0 + static_cast<int64_t>(kx) * g.dilationW;
                            if (ix < 0 || ix >= g.inWidth) continue;
                            const auto y = static_cast<uint32_t>(iy);
                            const auto x = static_cast<uint32_t>(ix);
                            if (s.kind == WindowKind::CONV) {
                                // filter [Cout, kH, kW, Cin]
                                const size_t filterBase =
                                        ((static_cast<size_t>(oc) * g.filterHeight + ky) *
                                                 g.filterWidth + kx) * inChannels;
                                for (uint32_t ic = 0; ic < inChannels; ++ic) {
                                    acc += tap(s.in.at(b, y, x, ic), filterBase + ic);
                                }
                            } else {
                                // filter [1, kH, kW, Cout]; output channel oc reads input
                                // channel oc / depthMultiplier
                                const uint32_t ic = oc / s.depthMultiplier;
                                const size_t filterIndex =
                                        (static_cast<size_t>(ky) * g.filterWidth + kx) *
                                                outChannels + oc;
                                acc += tap(s.in.at(b, y, x, ic), filterIndex);
                            }
                        }
                    }
                    store(s.out.at(b, oy, ox, oc), oc, acc);
                }
            }
        }
    }
}

void convFloat(const ConvShape& s, const float* input, const float* filter, const float* bias,
               float* output) {
    float low, high;
    floatActivationRange(s.params.activation, &low, &high);
    convolve<float>(
            s, [&](size_t i, size_t f) { return input[i] * filter[f]; },
            [&](size_t o, uint32_t oc, float acc) {
                output[o] = convpool::clampFloat(acc + bias[oc], low, high);
            });
}

bool convQuant8(const ConvShape& s, const OperationContext& context, OperandView& outputView) {
    const OperandView& inputView = context.input(0);
    const OperandView& filterView = context.input(1);
    const bool perChannel = filterView.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
    const uint32_t outChannels = s.out.channels;
    if (perChannel) {
        NN_RET_CHECK(filterView.channelQuant != nullptr);
        NN_RET_CHECK(filterView.channelQuant->scales.size() == outChannels);
    }
    std::vector<int32_t> multipliers(outChannels);
    std::vector<int> shifts(outChannels);
    for (uint32_t oc = 0; oc < outChannels; ++oc) {
        const float filterScale = perChannel ? filterView.channelQuant->scales[oc] : filterView.scale;
        const float productScale = inputView.scale * filterScale;
        const double real = static_cast<double>(productScale / outputView.scale);
        NN_RET_CHECK(real >= 0.0);
        quantizeMultiplier(real, &multipliers[oc], &shifts[oc]);
    }
    int32_t low, high;
    quantizedActivationRange(s.params.activation, outputView.scale, outputView.zeroPoint, 0, 255,
                             &low, &high);
    const uint8_t* input = inputView.as<uint8_t>();
    const int32_t* bias = context.input(2).as<int32_t>();
    const int32_t inputZeroPoint = inputView.zeroPoint;
    const int32_t outputZeroPoint = outputView.zeroPoint;
    uint8_t* output = outputView.as<uint8_t>();
    auto store = [&](size_t o, uint32_t oc, int32_t acc) {
        const int32_t scaled = multiplyByQuantizedMultiplier(saturatingAdd(acc, bias[oc]), multipliers[oc], shifts[oc]);
        output[o] = static_cast<uint8_t>(convpool::clampInt(scaled + outputZeroPoint, low, high));
    };
    if (perChannel) {
        const int8_t* filter = filterView.as<int8_t>();
        convolve<int32_t>(
                s,
                [&](size_t i, size_t f) {
                    return (static_cast<int32_t>(input[i]) - inputZeroPoint) *
                           static_cast<int32_t>(filter[f]);
                },
                store);
    } else {
        const uint8_t* filter = filterView.as<uint8_t>();
        const int32_t filterZeroPoint = filterView.zeroPoint;
        convolve<int32_t>(
                s,
                [&](size_t i, size_t f) {
                    return (static_cast<int32_t>(input[i]) - inputZeroPoint) *
                           (static_cast<int32_t>(filter[f]) - filterZeroPoint);
                },
                store);
    }
    return true;
}

bool runWindowConv(OperationContext& context, WindowKind kind) {
    ConvShape s;
    NN_RET_CHECK(resolveShape(context, kind, &s));
    const OperandView& input = context.input(0);
    const OperandView& filter = context.input(1);
    const OperandView& bias = context.input(2);
    OperandView& output = context.output(0);
    const uint64_t outCount = output.elements();
    switch (input.type) {
        case OperandType::TENSOR_FLOAT32:
            NN_RET_CHECK(filter.type == input.type && bias.type == input.type);
            NN_RET_CHECK(convpool::fits(output, outCount, sizeof(float)));
            convFloat(s, input.as<float>(), filter.as<float>(), bias.as<float>(),
                      output.as<float>());
            return true;
        case OperandType::TENSOR_FLOAT16: {
            NN_RET_CHECK(filter.type == input.type && bias.type == input.type);
            NN_RET_CHECK(convpool::fits(output, outCount, sizeof(uint16_t)));
            const std::vector<float> in = convpool::halfToFloatVector(input);
            const std::vector<float> f = convpool::halfToFloatVector(filter);
            const std::vector<float> b = convpool::halfToFloatVector(bias);
            std::vector<float> out(static_cast<size_t>(outCount));
            convFloat(s, in.data(), f.data(), b.data(), out.data());
            convpool::storeAsHalf(out, output);
            return true;
        }
        case OperandType::TENSOR_QUANT8_ASYMM:
            NN_RET_CHECK(filter.type == OperandType::TENSOR_QUANT8_ASYMM ||
                         filter.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL);
            NN_RET_CHECK(bias.type == OperandType::TENSOR_INT32);
            NN_RET_CHECK(convpool::fits(output, outCount, sizeof(uint8_t)));
            return convQuant8(s, context, output);
        default:
            return false;
    }
}

bool conv2D(OperationContext& context) { return runWindowConv(context, WindowKind::CONV); }

bool depthwiseConv2D(OperationContext& context) {
    return runWindowConv(context, WindowKind::DEPTHWISE);
}

}  // namespace

NN_REGISTER_KERNEL(CONV_2D, conv2D);
NN_REGISTER_KERNEL(DEPTHWISE_CONV_2D, depthwiseConv2D);

}  // namespace nnemu::cpu
