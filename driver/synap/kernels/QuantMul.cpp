#include "QuantMul.h"

#include <algorithm>
#include <cmath>

#include "QuantAdd.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::synap::kernels {
namespace {

template <typename T>
void mulRow(const QuantMulParams& p, const uint8_t* a, size_t aStep, const uint8_t* b, size_t bStep, uint8_t* out,
            size_t count) {
    for (size_t i = 0; i < count; ++i) {
        const int32_t x = static_cast<T>(a[i * aStep]) - p.zeroPoints[0];
        const int32_t y = static_cast<T>(b[i * bStep]) - p.zeroPoints[1];
        const int32_t value = quant::multiplyByQuantizedMultiplier(x * y, p.multiplier, p.shift) + p.outputZeroPoint;
        out[i] = static_cast<uint8_t>(std::clamp(value, p.low, p.high));
    }
}

}  // namespace

bool prepareQuantMul(const QuantMulSpec& spec, QuantMulParams* params) {
    for (float scale : {spec.scales[0], spec.scales[1], spec.outputScale}) {
        if (!(scale > 0.0f) || !std::isfinite(scale)) return false;
    }
    int shift;
    quant::quantizeMultiplier(static_cast<double>(spec.scales[0]) * static_cast<double>(spec.scales[1]) /
                                      spec.outputScale,
                              &params->multiplier, &shift);
    params->shift = shift;
    params->signedValues = spec.signedValues;
    params->zeroPoints[0] = spec.zeroPoints[0];
    params->zeroPoints[1] = spec.zeroPoints[1];
    params->outputZeroPoint = spec.outputZeroPoint;
    params->low = spec.low;
    params->high = spec.high;
    return true;
}

bool runQuantMul(const QuantMulParams& params, const std::vector<uint32_t>& aDims, const uint8_t* a,
                 const std::vector<uint32_t>& bDims, const uint8_t* b, const std::vector<uint32_t>& outDims,
                 uint8_t* out) {
    return forEachBroadcastRow(aDims, bDims, outDims,
                               [&](size_t aOffset, bool aSteps, size_t bOffset, bool bSteps, size_t o, size_t count) {
        if (params.signedValues) {
            mulRow<int8_t>(params, a + aOffset, aSteps, b + bOffset, bSteps, out + o, count);
        } else {
            mulRow<uint8_t>(params, a + aOffset, aSteps, b + bOffset, bSteps, out + o, count);
        }
    });
}

}  // namespace nnemu::synap::kernels
