// Float SOFTMAX (beta 1) as TFLite's XNNPACK delegate computes it on x86-64 with AVX-512 (XNNPACK
// 2025: the row's maximum, its raddstoreexpminusmax kernel for AVX-512F (rr2, p5, 64 elements a
// step, two accumulators), then the row times 1 / sum), for a node the tools run with XNNPACK's
// arithmetic. Each step one rounding; fma() is one fused multiply-add:
// - x = v - max; n = fma(x, log2(e), 0x1.8000FEp23) (a magic bias whose low bits become the
//   exponent); s = the float whose bits are n's shifted left by 23; n = n - the bias;
//   t = fma(n, -0x1.62E400p-1, x), then t = fma(n, -0x1.7F7D1Cp-20, t) (two-step ln 2);
//   p = fma(c5, t, c4), fma(p, t, c3), fma(p, t, c2), fma(p, t, c1) (c5..c1 = 0x1.0F9F9Cp-7,
//   0x1.573A1Ap-5, 0x1.555A80p-3, 0x1.FFFDC6p-2, 0x1.FFFFF6p-1); f = fma(t * s, p, s); f = 0
//   when x < -0x1.5D589Ep6;
// - the sum in 16 lanes (element i into lane i mod 16): over whole steps of 64 elements, the
//   16-element vectors 0 and 2 of each step into one accumulator, 1 and 3 into another, the two
//   added lane by lane; the rest, 16 then fewer at a time, into that sum; then the 16 lanes
//   halved three times (lane j plus lane j + 8, then j + 4) and (q0 + q2) + (q1 + q3);
// - each output f times 1 / sum.
// Measured against tflite_run --xnnpack=1 (RealTfliteFloatXnnpackTest.cpp).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "CpuKernelList.h"

namespace nnemu::tflite::kernels::softmax {
namespace {

float expMinusMax(float v, float max) {
    const float x = v - max;
    float n = std::fma(x, 0x1.715476p+0f, 0x1.8000FEp23f);
    const float s = std::bit_cast<float>(std::bit_cast<uint32_t>(n) << 23);
    n = n - 0x1.8000FEp23f;
    float t = std::fma(n, -0x1.62E400p-1f, x);
    t = std::fma(n, -0x1.7F7D1Cp-20f, t);
    float p = std::fma(0x1.0F9F9Cp-7f, t, 0x1.573A1Ap-5f);
    p = std::fma(p, t, 0x1.555A80p-3f);
    p = std::fma(p, t, 0x1.FFFDC6p-2f);
    p = std::fma(p, t, 0x1.FFFFF6p-1f);
    t = t * s;
    const float f = std::fma(t, p, s);
    return x < -0x1.5D589Ep6f ? 0.0f : f;
}

}  // namespace

bool prepareXnnpackSoftmax(const CpuKernelCall& call) {
    const auto* options = call.params<TfLiteSoftmaxParams>();
    if (options == nullptr || options->beta != 1.0f) return call.fail("XNNPACK takes SOFTMAX with beta 1 only");
    return true;
}

void runXnnpackSoftmax(const float* in, float* out, size_t rows, size_t depth) {
    for (size_t r = 0; r < rows; ++r) {
        const float* x = in + r * depth;
        float* y = out + r * depth;
        const float largest = *std::max_element(x, x + depth);
        float lanes[16] = {}, odd[16] = {};
        const size_t steps = depth / 64 * 64;
        for (size_t i = 0; i < depth; ++i) {
            y[i] = expMinusMax(x[i], largest);
            float& lane = i < steps && (i / 16) % 2 == 1 ? odd[i % 16] : lanes[i % 16];
            lane = lane + y[i];
            if (i + 1 == steps) {
                for (size_t j = 0; j < 16; ++j) lanes[j] = lanes[j] + odd[j];
            }
        }
        float half[8], quarter[4];
        for (size_t j = 0; j < 8; ++j) half[j] = lanes[j + 8] + lanes[j];
        for (size_t j = 0; j < 4; ++j) quarter[j] = half[j + 4] + half[j];
        const float sum = (quarter[0] + quarter[2]) + (quarter[1] + quarter[3]);
        const float scale = 1.0f / sum;
        for (size_t i = 0; i < depth; ++i) y[i] = y[i] * scale;
    }
}

}  // namespace nnemu::tflite::kernels::softmax
