// CONV_2D in the forms NNAPI has no type for: float32 activations with int8 weights (the hybrid
// form of TFLite's dynamic-range quantization, runHybridConv), and int16 activations with int8
// weights (TFLite's 16x8 quantization): an int64 accumulator plus the int64 (or int32) bias, requantized per output
// channel with TFLite's 64-bit multiply (multiplier rounded to 16 bits, one rounding shift).
// NHWC input, OHWI filter, grouped when the filter has fewer input channels than the input.
// And int8 CONV_2D with ruy's rounding, TFLite's on x86 (ConvInt8.cpp), and float CONV_2D in the summation
// order of TFLite's Eigen GEMM (FloatConv.cpp), which NNAPI compute otherwise.
#include <algorithm>
#include <limits>

#include "ConvInt8.h"
#include "CpuKernelList.h"
#include "FloatConv.h"
#include "HybridQuantization.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite {
namespace kernels::conv {

int32_t outputSize(bool same, int32_t in, int32_t filter, int32_t stride, int32_t dilation) {
    const int32_t effective = (filter - 1) * dilation + 1;
    return same ? (in + stride - 1) / stride : (in - effective + stride) / stride;
}

int32_t padBefore(int32_t in, int32_t out, int32_t filter, int32_t stride, int32_t dilation) {
    const int32_t total = (out - 1) * stride + (filter - 1) * dilation + 1 - in;
    return std::max(total, 0) / 2;
}

// The hybrid form of TFLite's dynamic-range quantization: float32 input and output, int8 weights.
bool isHybrid(const CpuKernelCall& call) {
    return call.in(0).type() == ElementType::FLOAT32 && call.in(1).type() == ElementType::INT8 &&
           call.out(0).type() == ElementType::FLOAT32;
}

bool convGeometry(const CpuKernelCall& call, ConvGeometry* g) {
    if (!call.expectCounts(2, 3, 1)) return false;
    const CpuOperand &in = call.in(0), &filter = call.in(1);
    const bool hybrid = isHybrid(call), int8 = isInt8Conv(call), floatForm = floatconv::isFloatForm(call);
    if (!hybrid && !int8 && !floatForm && (in.type() != ElementType::INT16 || filter.type() != ElementType::INT8 ||
                    call.out(0).type() != ElementType::INT16)) {
        return call.fail("only float32 and int8 convolutions, int16 activations with int8 weights, or float32 ones "
                         "with int8 weights (hybrid), run on the CPU kernel");
    }
    if (in.rank() != 4 || filter.rank() != 4) return call.fail("input and filter must have rank 4");
    if (!hybrid && !int8 && !floatForm && (in.tensor->zeroPoint != 0 || call.out(0).tensor->zeroPoint != 0)) {
        return call.fail("int16 zero points must be 0");
    }
    if (hybrid && filter.tensor->zeroPoint != 0) return call.fail("hybrid weights must have zero point 0");
    const std::vector<int32_t> &x = in.shape(), &w = filter.shape();
    if (w[3] <= 0 || x[3] <= 0 || x[3] % w[3] != 0 || w[0] % (x[3] / w[3]) != 0) {
        return call.fail("filter channels do not divide the input's");
    }
    if (hybrid && w[3] != x[3]) return call.fail("a hybrid convolution cannot be grouped");
    if (filter.tensor->isPerChannel() && filter.tensor->channelScales.size() != static_cast<size_t>(w[0])) {
        return call.fail("one filter scale per output channel expected");
    }
    if (!floatForm && !(filter.tensor->scale > 0 && (hybrid || (in.tensor->scale > 0 && call.out(0).tensor->scale > 0)))) {
        return call.fail("quantized tensors need positive scales");
    }
    if (call.inputs.size() == 3 && call.in(2).present() && !int8 && !floatForm) {
        if (hybrid ? !call.expectType(call.in(2), {ElementType::FLOAT32}, "bias")
                   : !call.expectType(call.in(2), {ElementType::INT64, ElementType::INT32}, "bias")) {
            return false;
        }
        if (call.in(2).count() != static_cast<size_t>(w[0])) return call.fail("bias must have one value per output channel");
    }
    const auto* o = call.params<TfLiteConvParams>();
    if (o == nullptr) return call.fail("missing Conv2DOptions");
    if (o->activation < kTfLiteActNone || o->activation > kTfLiteActRelu6) return call.fail("fused activation is not supported");
    if (o->padding != kTfLitePaddingSame && o->padding != kTfLitePaddingValid) return call.fail("unknown padding");
    *g = {o->stride_height, o->stride_width, o->dilation_height_factor, o->dilation_width_factor, 0, 0};
    if (g->strideH < 1 || g->strideW < 1 || g->dilationH < 1 || g->dilationW < 1) return call.fail("strides and dilations must be positive");
    if (hybrid && (g->dilationH != 1 || g->dilationW != 1)) return call.fail("a hybrid convolution cannot be dilated");
    const bool same = o->padding == kTfLitePaddingSame;
    const int32_t outH = outputSize(same, x[1], w[1], g->strideH, g->dilationH);
    const int32_t outW = outputSize(same, x[2], w[2], g->strideW, g->dilationW);
    if (outH <= 0 || outW <= 0) return call.fail("the filter is larger than the input");
    if (same) {
        g->padTop = padBefore(x[1], outH, w[1], g->strideH, g->dilationH);
        g->padLeft = padBefore(x[2], outW, w[2], g->strideW, g->dilationW);
    }
    return call.expectOutputShape(0, {x[0], outH, outW, w[0]});
}

bool prepareConv(const CpuKernelCall& call) {
    ConvGeometry g;
    if (!convGeometry(call, &g)) return false;
    if (floatconv::isFloatForm(call)) return floatconv::prepareConv(call);
    return !isInt8Conv(call) || prepareInt8Conv(call, nullptr);
}

// The hybrid convolution as TFLite computes it: each image quantized on the fly (per-tensor
// weights: symmetrically, scale times the weights'; per-channel weights: asymmetrically, its zero
// point standing for the padding), integer sums of weights times (input - zero point), scaled
// back to float ((sum x channel scale) x image scale with per-channel weights), plus the bias,
// clamped to the fused activation.
bool runHybridConv(const CpuKernelCall& call, const ConvGeometry& g) {
    const CpuOperand &in = call.in(0), &filter = call.in(1), &out = call.out(0);
    const std::vector<int32_t> &x = in.shape(), &w = filter.shape(), &y = out.shape();
    const Tensor& weights = *filter.tensor;
    const bool perChannel = weights.isPerChannel();
    const size_t imageSize = static_cast<size_t>(x[1]) * x[2] * x[3];
    std::vector<float> image(imageSize);
    std::vector<int8_t> quantized(imageSize);
    const auto* o = call.params<TfLiteConvParams>();
    const bool hasBias = call.inputs.size() == 3 && call.in(2).present();
    size_t index = 0;
    for (int32_t b = 0; b < y[0]; ++b) {
        if (imageSize != 0) std::memcpy(image.data(), in.data + b * imageSize * sizeof(float), imageSize * sizeof(float));
        const hybrid::RowQuantization q = perChannel ? hybrid::quantizeAsymmetric(image.data(), imageSize, quantized.data())
                                                     : hybrid::quantizeSymmetric(image.data(), imageSize, quantized.data());
        const float imageScale = perChannel ? q.scale : q.scale * weights.scale;
        for (int32_t oy = 0; oy < y[1]; ++oy) {
            for (int32_t ox = 0; ox < y[2]; ++ox) {
                for (int32_t oc = 0; oc < y[3]; ++oc, ++index) {
                    int32_t acc = 0;
                    for (int32_t ky = 0; ky < w[1]; ++ky) {
                        const int32_t iy = oy * g.strideH - g.padTop + ky;
                        if (iy < 0 || iy >= x[1]) continue;
                        for (int32_t kx = 0; kx < w[2]; ++kx) {
                            const int32_t ix = ox * g.strideW - g.padLeft + kx;
                            if (ix < 0 || ix >= x[2]) continue;
                            const size_t inBase = (static_cast<size_t>(iy) * x[2] + ix) * x[3];
                            const size_t wBase = ((static_cast<size_t>(oc) * w[1] + ky) * w[2] + kx) * w[3];
                            for (int32_t ic = 0; ic < w[3]; ++ic) {
                                acc += int32_t{filter.at<int8_t>(wBase + ic)} * (quantized[inBase + ic] - q.offset);
                            }
                        }
                    }
                    float total = perChannel ? static_cast<float>(acc) * weights.channelScales[oc] * imageScale
                                             : static_cast<float>(acc) * imageScale;
                    if (hasBias) total += call.in(2).at<float>(oc);
                    out.set<float>(index, hybrid::activatedWithMinMax(total, o->activation));
                }
            }
        }
    }
    return true;
}

// TFLite's 64-bit requantization: the Q31 multiplier rounded to Q15, then one rounding shift.
int32_t requantize64(int64_t acc, int32_t multiplier, int shift) {
    const int64_t reduced = multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
    const int total = 15 - shift;
    const int64_t rounded = acc * reduced + (int64_t{1} << (total - 1));
    return static_cast<int32_t>(rounded >> total);
}

bool runConv(const CpuKernelCall& call) {
    ConvGeometry g;
    if (!convGeometry(call, &g)) return false;
    if (isHybrid(call)) return runHybridConv(call, g);
    if (isInt8Conv(call)) return runInt8Conv(call, g);
    if (floatconv::isFloatForm(call)) return floatconv::runConv(call, g);
    const CpuOperand &in = call.in(0), &filter = call.in(1), &out = call.out(0);
    const std::vector<int32_t> &x = in.shape(), &w = filter.shape(), &y = out.shape();
    const int32_t groupIn = w[3], groupOut = w[0] / (x[3] / w[3]);
    std::vector<int32_t> multipliers(static_cast<size_t>(w[0]));
    std::vector<int> shifts(multipliers.size());
    for (size_t c = 0; c < multipliers.size(); ++c) {
        const double filterScale = filter.tensor->isPerChannel() ? filter.tensor->channelScales[c] : filter.tensor->scale;
        const double real = static_cast<double>(in.tensor->scale) * filterScale / out.tensor->scale;
        quant::quantizeMultiplier(real, &multipliers[c], &shifts[c]);
        if (shifts[c] < -31 || shifts[c] > 7) return call.fail("requantization multiplier out of range");
    }
    const auto* o = call.params<TfLiteConvParams>();
    int32_t low, high;
    quant::quantizedActivationRange(static_cast<int32_t>(o->activation), out.tensor->scale, 0,
                                  std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max(), &low, &high);
    const bool hasBias = call.inputs.size() == 3 && call.in(2).present();
    size_t index = 0;
    for (int32_t b = 0; b < y[0]; ++b) {
        for (int32_t oy = 0; oy < y[1]; ++oy) {
            for (int32_t ox = 0; ox < y[2]; ++ox) {
                for (int32_t oc = 0; oc < y[3]; ++oc, ++index) {
                    int64_t acc = 0;
                    const int32_t firstIn = (oc / groupOut) * groupIn;
                    for (int32_t ky = 0; ky < w[1]; ++ky) {
                        const int32_t iy = oy * g.strideH - g.padTop + ky * g.dilationH;
                        if (iy < 0 || iy >= x[1]) continue;
                        for (int32_t kx = 0; kx < w[2]; ++kx) {
                            const int32_t ix = ox * g.strideW - g.padLeft + kx * g.dilationW;
                            if (ix < 0 || ix >= x[2]) continue;
                            const size_t inBase = ((static_cast<size_t>(b) * x[1] + iy) * x[2] + ix) * x[3] + firstIn;
                            const size_t wBase = ((static_cast<size_t>(oc) * w[1] + ky) * w[2] + kx) * w[3];
                            for (int32_t ic = 0; ic < groupIn; ++ic) {
                                acc += int64_t{in.at<int16_t>(inBase + ic)} * filter.at<int8_t>(wBase + ic);
                            }
                        }
                    }
                    if (hasBias) {
                        acc += call.in(2).type() == ElementType::INT64 ? call.in(2).at<int64_t>(oc) : call.in(2).at<int32_t>(oc);
                    }
                    const int32_t result = requantize64(acc, multipliers[oc], shifts[oc]);
                    out.set<int16_t>(index, static_cast<int16_t>(std::clamp(result, low, high)));
                }
            }
        }
    }
    return true;
}

}  // namespace kernels::conv

}  // namespace nnemu::tflite
