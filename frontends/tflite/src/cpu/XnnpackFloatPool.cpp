// Float AVERAGE_POOL_2D as TFLite's XNNPACK delegate computes it (XNNPACK 2025, its 9p average
// pooling kernel for AVX-512), for a node the tools run with XNNPACK's arithmetic; with TFLite's
// builtin arithmetic the float form stays with NNAPI (prepare refuses it). XNNPACK reads each
// window's taps through its indirection buffer (columns outer, rows inner; a padded tap reads
// zeros) in passes of 9: a pass's taps t0..t8 (the missing ones of the last pass read zeros) sum as
// ((t2 + t3) + (t4 + t5)) + (((t0 + t1) + t8) + (t6 + t7)), added to the previous passes' sum; the
// total is multiplied by 1 / (taps in the input) as a float, then clamped to the activation.
// A 1x1 window is a copy, clamped. Checked against tflite_run --xnnpack=1
// (RealTfliteFloatXnnpackTest.cpp).
#include <algorithm>
#include <limits>
#include <vector>

#include "CpuKernelList.h"
#include "XnnpackFloatConv.h"

namespace nnemu::tflite {
namespace kernels::pooling {
namespace {

bool floatPoolShape(const CpuKernelCall& call, PoolWindow* shape) {
    if (!call.expectCounts(1, 1, 1)) return false;
    if (!call.xnnpack()) return call.fail("float AVERAGE_POOL_2D runs on NNAPI (XNNPACK's form only here)");
    if (call.out(0).type() != ElementType::FLOAT32) return call.fail("output type differs from the input's");
    return poolWindow(call, shape);
}

// The sum of one pass's (up to) 9 taps, in XNNPACK's tree.
float passSum(const float t[9]) {
    const float s018 = (t[0] + t[1]) + t[8];
    return ((t[2] + t[3]) + (t[4] + t[5])) + (s018 + (t[6] + t[7]));
}

}  // namespace

bool prepareXnnpackAveragePool(const CpuKernelCall& call) {
    PoolWindow shape;
    return floatPoolShape(call, &shape);
}

bool runXnnpackAveragePool(const CpuKernelCall& call) {
    PoolWindow g;
    if (!floatPoolShape(call, &g)) return false;
    const std::vector<int32_t>& s = call.in(0).shape();
    const auto* p = call.params<TfLitePoolParams>();
    float low, high;
    xnnpackfloat::activationRange(static_cast<int32_t>(p->activation), &low, &high);
    const auto* in = reinterpret_cast<const float*>(call.in(0).data);
    auto* out = reinterpret_cast<float*>(call.out(0).out);
    const auto channels = static_cast<size_t>(s[3]);
    const int32_t kh = p->filter_height, kw = p->filter_width, taps = kh * kw;
    std::vector<const float*> window(static_cast<size_t>(taps));
    const std::vector<float> zeros(channels, 0.0f);
    size_t index = 0;
    for (int32_t n = 0; n < s[0]; ++n) {
        for (int32_t oy = 0; oy < g.outH; ++oy) {
            for (int32_t ox = 0; ox < g.outW; ++ox) {
                int32_t inside = 0;
                for (int32_t t = 0; t < taps; ++t) {
                    const int32_t iy = oy * p->stride_height - g.padH + t % kh;
                    const int32_t ix = ox * p->stride_width - g.padW + t / kh;
                    const bool valid = iy >= 0 && iy < s[1] && ix >= 0 && ix < s[2];
                    inside += valid ? 1 : 0;
                    window[t] = valid ? in + ((static_cast<size_t>(n) * s[1] + iy) * s[2] + ix) * channels : zeros.data();
                }
                if (inside == 0) return call.fail("a pooling window holds no input");
                const float scale = 1.0f / static_cast<float>(inside);
                for (size_t c = 0; c < channels; ++c, ++index) {
                    float value;
                    if (taps == 1) {
                        value = window[0][c];
                    } else {
                        float acc = 0.0f;
                        for (int32_t first = 0; first < taps; first += 9) {
                            float t[9];
                            for (int32_t j = 0; j < 9; ++j) t[j] = first + j < taps ? window[first + j][c] : 0.0f;
                            acc = acc + passSum(t);
                        }
                        value = acc * scale;
                    }
                    out[index] = std::min(std::max(value, low), high);
                }
            }
        }
    }
    return true;
}

}  // namespace kernels::pooling
}  // namespace nnemu::tflite
