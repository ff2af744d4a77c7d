// Reference kernels of ELU and HARD_SWISH: evaluated in float; quantized HARD_SWISH in 16-bit
// fixed point as Android's reference implementation computes it (TensorFlow Lite's reference
// HardSwish): the input on a scale 128 times finer, a "reluish" factor relu6(x + 3) / 6 in
// [0, 1] on Q15, their product rescaled to the output's scale.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "FloatMath.h"
#include "MapFloat.h"
#include "nnemu/kernels/FixedPoint16.h"
#include "QuantValue.h"
#include "nnemu/cpu/Kernels.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

// The multipliers of the fixed-point form, from the scales as float arithmetic gives them.
struct HardSwishParams {
    int16_t outputMultiplier = 0, reluishMultiplier = 0;
    int outputExponent = 0, reluishExponent = 0;
};

// A Q31 multiplier rounded to its 16 high bits (saturating at the largest int16).
int16_t highHalf(int32_t q31) {
    constexpr int32_t kRounding = 1 << 15;
    if (q31 >= std::numeric_limits<int32_t>::max() - kRounding) return std::numeric_limits<int16_t>::max();
    return static_cast<int16_t>((q31 + kRounding) >> 16);
}

HardSwishParams hardSwishParams(float inputScale, float outputScale) {
    const float hiresInputScale = (1.0f / 128.0f) * inputScale;
    const float reluishScale = 3.0f / 32768.0f;
    HardSwishParams p;
    int32_t q31 = 0;
    quant::quantizeMultiplier(hiresInputScale / outputScale, &q31, &p.outputExponent);
    p.outputMultiplier = highHalf(q31);
    quant::quantizeMultiplier(hiresInputScale / reluishScale, &q31, &p.reluishExponent);
    p.reluishMultiplier = highHalf(q31);
    return p;
}

// One quantized value (minus its zero point) to the output's quantized value (minus its own).
int32_t hardSwishQuantized(int32_t input, const HardSwishParams& p) {
    namespace f16 = quant::fixed16;
    const auto hires = static_cast<int16_t>(input * (1 << 7));
    const int16_t onOutputScale = f16::multiply(hires, p.outputMultiplier);
    int16_t reluish = hires;
    if (p.reluishExponent > 0) reluish = f16::multiplyByPOT(reluish, p.reluishExponent - 1);
    reluish = f16::multiply(reluish, p.reluishMultiplier);
    if (p.reluishExponent > 0) reluish = f16::multiplyByPOT(reluish, 1);
    if (p.reluishExponent < 0) reluish = f16::multiplyByPOT(reluish, p.reluishExponent);
    reluish = static_cast<int16_t>((int32_t{reluish} + (1 << 15)) >> 1);   // [-1, 1] -> [0, 1]
    // The product truncated, not rounded, as the reference does.
    const int32_t product = int32_t{reluish} * onOutputScale;
    const auto preshift = static_cast<int16_t>(reluish == f16::kMin && onOutputScale == f16::kMin ? f16::kMax
                                                                                                  : product / (1 << 15));
    return f16::multiplyByPOT(preshift, p.outputExponent);
}

}  // namespace

bool kernels::eluKernel(OperationContext& context) {
    const float alpha = context.scalar<float>(1);
    return mapFloat(context, [alpha](float x) {
        return std::max(0.0f, x) + std::min(0.0f, alpha * std::expm1(x));
    });
}

bool kernels::hardSwishKernel(OperationContext& context) {
    if (context.inputType(0) == OperandType::TENSOR_FLOAT32) {
        const uint64_t n = context.output(0).elements();
        NN_RET_CHECK(context.input(0).elements() == n);
        floatmath::hardSwish(context.input(0).as<float>(), context.output(0).as<float>(), n);
        return true;
    }
    if (!hal::isQuant8Asymm(context.inputType(0))) {
        return mapFloat(context, [](float x) { return floatmath::hardSwish(x); });
    }
    const hal::OperandView& input = context.input(0);
    hal::OperandView& output = context.output(0);
    const uint64_t n = output.elements();
    NN_RET_CHECK(input.elements() == n);
    const HardSwishParams params = hardSwishParams(input.scale, output.scale);
    // The output multiplier must not scale up (the reference refuses such scales too).
    if (params.outputExponent > 0) {
        for (uint64_t i = 0; i < n; ++i) storeQuant8FromReal(floatmath::hardSwish(quant8RealValue(input, i)), output, i);
        return true;
    }
    const int32_t low = hal::quant8Min(output.type), high = hal::quant8Max(output.type);
    for (uint64_t i = 0; i < n; ++i) {
        const int32_t value = hardSwishQuantized(quant8At(input, i) - input.zeroPoint, params) + output.zeroPoint;
        storeQuant8(std::clamp(value, low, high), output, i);
    }
    return true;
}

}  // namespace nnemu::cpu
