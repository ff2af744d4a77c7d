// int16 AVERAGE_POOL_2D and MAX_POOL_2D (NHWC), which NNAPI has no form for, as TFLite's reference
// integer kernels compute them: over each window's in-range taps (SAME padding puts the odd
// padding row or column at the end), the maximum, or the sum divided by the tap count rounding
// half away from zero; then clamped to the fused activation's range on the output's quantization
// (TFLite takes the input's quantization on the output). 8-bit pools stay with NNAPI; a float
// AVERAGE_POOL_2D under XNNPACK's arithmetic goes to XnnpackFloatPool.cpp.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "CpuKernelList.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite {
namespace kernels::pooling {
namespace {

// TFLite's output size and leading padding of one spatial dimension.
void window(TfLitePadding padding, int32_t in, int32_t filter, int32_t stride, int32_t* out, int32_t* pad) {
    *out = padding == kTfLitePaddingSame ? (in + stride - 1) / stride : (in - filter + stride) / stride;
    *pad = padding == kTfLitePaddingSame ? std::max((*out - 1) * stride + filter - in, 0) / 2 : 0;
}

bool pool(const CpuKernelCall& call, bool average) {
    const std::vector<int32_t>& s = call.in(0).shape();
    const auto* p = call.params<TfLitePoolParams>();
    int32_t outH = 0, outW = 0, padH = 0, padW = 0;
    window(p->padding, s[1], p->filter_height, p->stride_height, &outH, &padH);
    window(p->padding, s[2], p->filter_width, p->stride_width, &outW, &padW);
    const Tensor& out = *call.out(0).tensor;
    int32_t low = 0, high = 0;
    quant::quantizedActivationRange(static_cast<int32_t>(p->activation), out.scale, out.zeroPoint,
                                    std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max(), &low, &high);
    const int32_t channels = s[3];
    const auto* in = reinterpret_cast<const int16_t*>(call.in(0).data);
    auto* result = reinterpret_cast<int16_t*>(call.out(0).out);
    std::vector<int32_t> acc(static_cast<size_t>(channels));
    for (int32_t n = 0; n < s[0]; ++n) {
        for (int32_t y = 0; y < outH; ++y) {
            for (int32_t x = 0; x < outW; ++x) {
                const int32_t y0 = y * p->stride_height - padH, x0 = x * p->stride_width - padW;
                const int32_t yBegin = std::max(0, -y0), yEnd = std::min(p->filter_height, s[1] - y0);
                const int32_t xBegin = std::max(0, -x0), xEnd = std::min(p->filter_width, s[2] - x0);
                const int32_t count = std::max(0, yEnd - yBegin) * std::max(0, xEnd - xBegin);
                if (count == 0) return call.fail("a pooling window holds no input");
                std::fill(acc.begin(), acc.end(), average ? 0 : std::numeric_limits<int16_t>::lowest());
                // Each tap's channels are contiguous: one pass over them per tap.
                for (int32_t fy = yBegin; fy < yEnd; ++fy) {
                    for (int32_t fx = xBegin; fx < xEnd; ++fx) {
                        const int16_t* tap = in + static_cast<size_t>(((n * s[1] + y0 + fy) * s[2] + x0 + fx) * channels);
                        for (int32_t c = 0; c < channels; ++c) {
                            acc[static_cast<size_t>(c)] = average ? acc[static_cast<size_t>(c)] + tap[c]
                                                                  : std::max<int32_t>(acc[static_cast<size_t>(c)], tap[c]);
                        }
                    }
                }
                int16_t* pixel = result + static_cast<size_t>(((n * outH + y) * outW + x) * channels);
                for (int32_t c = 0; c < channels; ++c) {
                    int32_t v = acc[static_cast<size_t>(c)];
                    if (average) v = v > 0 ? (v + count / 2) / count : (v - count / 2) / count;
                    pixel[c] = static_cast<int16_t>(std::clamp(v, low, high));
                }
            }
        }
    }
    return true;
}

}  // namespace

bool poolWindow(const CpuKernelCall& call, PoolWindow* shape) {
    if (call.in(0).rank() != 4) return call.fail("input must have rank 4");
    const auto* p = call.params<TfLitePoolParams>();
    if (p == nullptr) return call.fail("missing Pool2DOptions");
    if (p->stride_height <= 0 || p->stride_width <= 0 || p->filter_height <= 0 || p->filter_width <= 0) {
        return call.fail("strides and filter sizes must be positive");
    }
    if (p->padding != kTfLitePaddingSame && p->padding != kTfLitePaddingValid) return call.fail("unknown padding");
    if (static_cast<int32_t>(p->activation) > static_cast<int32_t>(kTfLiteActRelu6)) {
        return call.fail("fused activation is not supported");
    }
    const std::vector<int32_t>& s = call.in(0).shape();
    window(p->padding, s[1], p->filter_height, p->stride_height, &shape->outH, &shape->padH);
    window(p->padding, s[2], p->filter_width, p->stride_width, &shape->outW, &shape->padW);
    if (shape->outH <= 0 || shape->outW <= 0) return call.fail("the window does not fit the input");
    return call.expectOutputShape(0, {s[0], shape->outH, shape->outW, s[3]});
}

bool preparePool16(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1)) return false;
    if (!call.expectType(call.in(0), {ElementType::INT16}, "input")) return false;
    if (call.out(0).type() != ElementType::INT16) return call.fail("output type differs from the input's");
    if (!(call.out(0).tensor->scale > 0)) return call.fail("quantized output needs a scale");
    PoolWindow shape;
    return poolWindow(call, &shape);
}

bool runAveragePool16(const CpuKernelCall& call) { return preparePool16(call) && pool(call, true); }
bool runMaxPool16(const CpuKernelCall& call) { return preparePool16(call) && pool(call, false); }

bool isFloatPool(const CpuKernelCall& call) {
    return !call.inputs.empty() && call.in(0).present() && call.in(0).type() == ElementType::FLOAT32;
}
bool prepareAveragePool(const CpuKernelCall& call) {
    return isFloatPool(call) ? prepareXnnpackAveragePool(call) : preparePool16(call);
}
bool runAveragePool(const CpuKernelCall& call) {
    return isFloatPool(call) ? runXnnpackAveragePool(call) : runAveragePool16(call);
}

}  // namespace kernels::pooling
}  // namespace nnemu::tflite
