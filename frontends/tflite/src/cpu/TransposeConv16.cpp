// int16 TRANSPOSE_CONV with int8 filters ("16x8"; NNAPI has no such form, the 8-bit ones are
// lowered to TRANSPOSE_CONV_2D) as TFLite 2.21's reference kernel computes it: every input value
// times every filter tap added into an int64 sum at its output position (the input's and the
// filter's zero points 0), the optional int64 bias added, each output channel requantized by
// input scale x filter scale / output scale (a double product, per channel or per tensor)
// through the 64-bit requantization, clamped to the fused activation's range. The padding is
// TFLite's: that of a convolution from the output's size back to the input's.
#include <algorithm>

#include "ConvInt8.h"
#include "CpuKernelList.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite::kernels::transpose_conv {
namespace {

// Half the padding a convolution of `filter` taps and `stride` from `in` (the transposed
// convolution's output) to `out` values needs, as TFLite computes it (the odd remainder dropped).
int32_t padding(bool same, int32_t in, int32_t filter, int32_t stride) {
    const int32_t out = same ? (in + stride - 1) / stride : (in - filter + stride) / stride;
    return std::max((out - 1) * stride + filter - in, 0) / 2;
}

bool check(const CpuKernelCall& call, std::vector<int32_t>* outShape) {
    if (!call.expectCounts(3, 4, 1)) return false;
    const auto* options = call.params<TfLiteTransposeConvParams>();
    if (options == nullptr) return call.fail("missing TransposeConvOptions");
    if (options->padding != kTfLitePaddingSame && options->padding != kTfLitePaddingValid) return call.fail("unknown padding");
    if (options->stride_width < 1 || options->stride_height < 1) return call.fail("strides must be positive");
    const CpuOperand &filter = call.in(1), &in = call.in(2), &out = call.out(0);
    if (in.type() != ElementType::INT16 || out.type() != ElementType::INT16 || filter.type() != ElementType::INT8) {
        return call.fail("the tools' TRANSPOSE_CONV takes int16 input and output with int8 filters");
    }
    const bool hasBias = call.inputs.size() == 4 && call.in(3).present();
    if (hasBias && call.in(3).type() != ElementType::INT64) return call.fail("an int16 TRANSPOSE_CONV's bias must be int64");
    if (in.rank() != 4 || filter.rank() != 4) return call.fail("input and filter must be 4-D");
    const std::vector<int32_t> &x = in.shape(), &w = filter.shape();
    if (w[3] != x[3]) return call.fail("filter depth " + std::to_string(w[3]) + " differs from the input's " + std::to_string(x[3]));
    if (hasBias && call.in(3).count() != static_cast<size_t>(w[0])) return call.fail("bias size differs from the output channels");
    if (in.tensor->zeroPoint != 0 || out.tensor->zeroPoint != 0) return call.fail("int16 input and output need zero point 0");
    const Tensor& weights = *filter.tensor;
    if (weights.zeroPoint != 0) return call.fail("the filter needs zero point 0");
    if (weights.isPerChannel() && (weights.quantizedDimension != 0 || weights.channelScales.size() != static_cast<size_t>(w[0]))) {
        return call.fail("per-channel filter scales must run along the output channels");
    }
    if (!(in.tensor->scale > 0) || !(out.tensor->scale > 0) || !(weights.scale > 0)) return call.fail("quantized tensors need scales");
    std::vector<int64_t> dims;
    bool known = false;
    if (!call.ints(0, &dims, &known)) return false;
    if (!known) return true;
    if (dims.size() != 4 || dims[0] != x[0] || dims[3] != w[0] || dims[1] < 1 || dims[2] < 1 || dims[1] > 1 << 20 || dims[2] > 1 << 20) {
        return call.fail("output shape must be [batch, height, width, filter channels]");
    }
    outShape->assign(dims.begin(), dims.end());
    return call.expectOutputShape(0, *outShape);
}

}  // namespace

bool prepareInt16(const CpuKernelCall& call) {
    std::vector<int32_t> shape;
    return check(call, &shape);
}

bool runInt16(const CpuKernelCall& call) {
    std::vector<int32_t> y;
    if (!check(call, &y)) return false;
    if (y.empty()) return call.fail("the output shape is not known");
    const auto* options = call.params<TfLiteTransposeConvParams>();
    const CpuOperand &filter = call.in(1), &in = call.in(2), &out = call.out(0);
    const std::vector<int32_t> &x = in.shape(), &w = filter.shape();
    const Tensor& weights = *filter.tensor;
    const auto channels = static_cast<size_t>(w[0]);
    std::vector<int32_t> multipliers(channels);
    std::vector<int> shifts(channels);
    for (size_t c = 0; c < channels; ++c) {
        const float filterScale = weights.isPerChannel() ? weights.channelScales[c] : weights.scale;
        conv::channelMultiplier(conv::MultiplierFrom::DoubleProduct, in.tensor->scale, filterScale, out.tensor->scale,
                                &multipliers[c], &shifts[c]);
        // The 64-bit requantization takes shifts below 8 (TFLite's too).
        if (shifts[c] < -31 || shifts[c] > 7) return call.fail("requantization multiplier out of range");
    }
    const bool same = options->padding == kTfLitePaddingSame;
    const int32_t padTop = padding(same, y[1], w[1], options->stride_height);
    const int32_t padLeft = padding(same, y[2], w[2], options->stride_width);
    std::vector<int64_t> sums(elementCount(y), 0);
    const auto* input = reinterpret_cast<const int16_t*>(in.data);
    const auto* taps = reinterpret_cast<const int8_t*>(filter.data);
    const size_t depth = static_cast<size_t>(x[3]);
    for (int32_t b = 0; b < x[0]; ++b) {
        for (int32_t iy = 0; iy < x[1]; ++iy) {
            for (int32_t ix = 0; ix < x[2]; ++ix) {
                const int16_t* pixel = input + ((static_cast<size_t>(b) * x[1] + iy) * x[2] + ix) * depth;
                for (int32_t ky = 0; ky < w[1]; ++ky) {
                    const int32_t oy = iy * options->stride_height - padTop + ky;
                    if (oy < 0 || oy >= y[1]) continue;
                    for (int32_t kx = 0; kx < w[2]; ++kx) {
                        const int32_t ox = ix * options->stride_width - padLeft + kx;
                        if (ox < 0 || ox >= y[2]) continue;
                        int64_t* sum = sums.data() + ((static_cast<size_t>(b) * y[1] + oy) * y[2] + ox) * channels;
                        for (size_t c = 0; c < channels; ++c) {
                            const int8_t* tap = taps + ((c * w[1] + ky) * w[2] + kx) * depth;
                            int64_t total = 0;
                            for (size_t d = 0; d < depth; ++d) total += int64_t{pixel[d]} * tap[d];
                            sum[c] += total;
                        }
                    }
                }
            }
        }
    }
    int32_t low = 0, high = 0;
    quant::quantizedActivationRange(static_cast<int32_t>(options->activation), out.tensor->scale, 0, -32768, 32767, &low,
                                    &high);
    const bool hasBias = call.inputs.size() == 4 && call.in(3).present();
    auto* output = reinterpret_cast<int16_t*>(out.out);
    for (size_t i = 0; i < sums.size(); ++i) {
        const size_t c = i % channels;
        const int64_t acc = sums[i] + (hasBias ? call.in(3).at<int64_t>(c) : 0);
        output[i] = static_cast<int16_t>(std::clamp(conv::requantize64(acc, multipliers[c], shifts[c]), low, high));
    }
    return true;
}

}  // namespace nnemu::tflite::kernels::transpose_conv
