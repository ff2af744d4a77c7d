// The 3x3 depthwise convolution in plain C++, one output at a time (also the AVX2 machines' path).
#include <algorithm>

#include "DepthwiseArgs.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::synap::kernels {

void depthwisePortable(const DepthwiseArgs& a) {
    const GemmArgs& q = a.requant;
    const size_t channels = q.channels;
    for (size_t row = a.rowBegin; row < a.rowEnd; ++row) {
        const size_t batch = row / a.outHeight, y = row % a.outHeight;
        for (size_t x = 0; x < a.outWidth; ++x) {
            const uint8_t* taps[9];
            for (int t = 0; t < 9; ++t) {
                const int64_t iy = int64_t(y * a.stride) - a.padTop + t / 3, ix = int64_t(x * a.stride) - a.padLeft + t % 3;
                const bool inside = iy >= 0 && iy < a.inHeight && ix >= 0 && ix < a.inWidth;
                taps[t] = inside ? a.input + ((batch * a.inHeight + iy - a.inRowFirst) * a.inWidth + ix) * channels : a.zeroRow;
            }
            uint8_t* out = q.output + ((row - a.outRowFirst) * a.outWidth + x) * channels;
            for (size_t c = 0; c < channels; ++c) {
                uint32_t sum = static_cast<uint32_t>(q.colTerms[c]);
                const int32_t* w = a.weights + (c / kGemmBlock * 9) * kGemmBlock + c % kGemmBlock;
                for (int t = 0; t < 9; ++t) {
                    const int32_t value = a.signedInput ? static_cast<int8_t>(taps[t][c]) : taps[t][c];
                    sum += static_cast<uint32_t>(value * static_cast<int16_t>(w[t * kGemmBlock]));
                }
                const int32_t acc = quant::saturatingAdd(static_cast<int32_t>(sum), q.bias[c]);
                const int32_t scaled = quant::multiplyByQuantizedMultiplier(acc, q.multipliers[c],
                                                                          q.leftShifts[c] - q.rightShifts[c]);
                out[c] = static_cast<uint8_t>(std::clamp(quant::saturatingAdd(scaled, q.outputZeroPoint), q.low, q.high));
            }
        }
    }
}

}  // namespace nnemu::synap::kernels
