// DEPTHWISE_CONV_2D in its hybrid form (TFLite's dynamic-range quantization: float32 input and
// output, int8 weights with one scale per output channel and zero point 0, float32 bias), which
// NNAPI has no operation for, as TFLite's kernel computes it: each image quantized on the fly
// asymmetrically (HybridQuantization.h; its zero point stands for the padding), integer sums of
// weights times (input - zero point), times (channel scale x image scale) in float, plus the bias,
// then the fused activation. Strides, dilations and depth multipliers as the float operator. And the
// float form, in the order of TFLite's optimized float loops (FloatConv.cpp), and the int8 form with
// TFLite's multipliers (DepthwiseInt8.cpp).
#include "CpuKernelList.h"
#include "DepthwiseInt8.h"
#include "FloatConv.h"
#include "HybridQuantization.h"

namespace nnemu::tflite {
namespace kernels::hybrid {
namespace {

struct DepthwiseGeometry {
    int32_t outHeight = 0, outWidth = 0, padTop = 0, padLeft = 0;
};

bool depthwiseGeometry(const CpuKernelCall& call, DepthwiseGeometry* g) {
    if (!call.expectCounts(2, 3, 1)) return false;
    const CpuOperand &in = call.in(0), &filter = call.in(1);
    const bool floatForm = floatconv::isFloatForm(call), int8 = conv::isInt8Conv(call);
    const bool hybrid = in.type() == ElementType::FLOAT32 && filter.type() == ElementType::INT8 &&
                        call.out(0).type() == ElementType::FLOAT32;
    if (!floatForm && !int8 && !hybrid) {
        return call.fail("the tools' CPU kernel computes the float32, hybrid (float32 input, int8 weights) and int8 "
                         "forms only");
    }
    if (in.rank() != 4 || filter.rank() != 4 || filter.shape()[0] != 1) {
        return call.fail("input must have rank 4 and the filter shape [1, h, w, channels]");
    }
    const std::vector<int32_t> &x = in.shape(), &w = filter.shape();
    const auto* o = call.params<TfLiteDepthwiseConvParams>();
    if (o == nullptr) return call.fail("missing DepthwiseConv2DOptions");
    if (x[3] <= 0) return call.fail("the input has no channels");   // TFLite refuses it too
    if (o->depth_multiplier <= 0 || int64_t{x[3]} * o->depth_multiplier != w[3]) {
        return call.fail("filter channels must be the input's times the depth multiplier");
    }
    const Tensor& weights = *filter.tensor;
    if (hybrid && weights.zeroPoint != 0) return call.fail("hybrid weights must have zero point 0");
    if (hybrid && (weights.channelScales.size() != static_cast<size_t>(w[3]) || weights.quantizedDimension != 3)) {
        return call.fail("hybrid depthwise weights need one scale per output channel, along dimension 3");
    }
    if (call.inputs.size() == 3 && call.in(2).present() && !int8) {
        if (!call.expectType(call.in(2), {ElementType::FLOAT32}, "bias")) return false;
        if (call.in(2).count() != static_cast<size_t>(w[3])) return call.fail("bias must have one value per output channel");
    }
    if (o->activation > kTfLiteActRelu6) return call.fail("the fused activation is not supported");
    if (o->padding != kTfLitePaddingSame && o->padding != kTfLitePaddingValid) return call.fail("unknown padding");
    if (o->stride_height < 1 || o->stride_width < 1 || o->dilation_height_factor < 1 || o->dilation_width_factor < 1) {
        return call.fail("strides and dilations must be positive");
    }
    const bool same = o->padding == kTfLitePaddingSame;
    g->outHeight = conv::outputSize(same, x[1], w[1], o->stride_height, o->dilation_height_factor);
    g->outWidth = conv::outputSize(same, x[2], w[2], o->stride_width, o->dilation_width_factor);
    if (g->outHeight <= 0 || g->outWidth <= 0) return call.fail("the filter is larger than the input");
    if (same) {
        g->padTop = conv::padBefore(x[1], g->outHeight, w[1], o->stride_height, o->dilation_height_factor);
        g->padLeft = conv::padBefore(x[2], g->outWidth, w[2], o->stride_width, o->dilation_width_factor);
    }
    return call.expectOutputShape(0, {x[0], g->outHeight, g->outWidth, w[3]});
}

}  // namespace

bool prepareDepthwise(const CpuKernelCall& call) {
    DepthwiseGeometry g;
    return depthwiseGeometry(call, &g) && (!conv::isInt8Conv(call) || depthwise_int8::prepare(call));
}

bool runDepthwise(const CpuKernelCall& call) {
    DepthwiseGeometry g;
    if (!depthwiseGeometry(call, &g)) return false;
    if (floatconv::isFloatForm(call)) return floatconv::runDepthwise(call, g.padTop, g.padLeft);
    if (conv::isInt8Conv(call)) return depthwise_int8::run(call, g.padTop, g.padLeft);
    const CpuOperand &in = call.in(0), &filter = call.in(1), &out = call.out(0);
    const std::vector<int32_t> &x = in.shape(), &w = filter.shape();
    const auto* o = call.params<TfLiteDepthwiseConvParams>();
    const auto scales = filter.tensor->channelScales;
    const bool hasBias = call.inputs.size() == 3 && call.in(2).present();
    const size_t imageSize = static_cast<size_t>(x[1]) * x[2] * x[3];
    std::vector<float> image(imageSize);
    std::vector<int8_t> quantized(imageSize);
    size_t index = 0;
    for (int32_t b = 0; b < x[0]; ++b) {
        if (imageSize != 0) std::memcpy(image.data(), in.data + b * imageSize * sizeof(float), imageSize * sizeof(float));
        const RowQuantization q = quantizeAsymmetric(image.data(), imageSize, quantized.data());
        for (int32_t oy = 0; oy < g.outHeight; ++oy) {
            for (int32_t ox = 0; ox < g.outWidth; ++ox) {
                for (int32_t oc = 0; oc < w[3]; ++oc, ++index) {
                    const int32_t ic = oc / o->depth_multiplier;
                    int32_t acc = 0;
                    for (int32_t ky = 0; ky < w[1]; ++ky) {
                        const int32_t iy = oy * o->stride_height - g.padTop + ky * o->dilation_height_factor;
                        if (iy < 0 || iy >= x[1]) continue;
                        for (int32_t kx = 0; kx < w[2]; ++kx) {
                            const int32_t ix = ox * o->stride_width - g.padLeft + kx * o->dilation_width_factor;
                            if (ix < 0 || ix >= x[2]) continue;
                            const int32_t value = quantized[(static_cast<size_t>(iy) * x[2] + ix) * x[3] + ic];
                            acc += int32_t{filter.at<int8_t>((static_cast<size_t>(ky) * w[2] + kx) * w[3] + oc)} *
                                   (value - q.offset);
                        }
                    }
                    float total = static_cast<float>(acc) * scales[oc] * q.scale;
                    if (hasBias) total += call.in(2).at<float>(oc);
                    out.set<float>(index, activatedWithMinMax(total, o->activation));
                }
            }
        }
    }
    return true;
}

}  // namespace kernels::hybrid
}  // namespace nnemu::tflite
