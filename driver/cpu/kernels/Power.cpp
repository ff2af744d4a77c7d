// Reference kernels for POW and PRELU with numpy-style broadcasting. Float16 is computed in
// float and stored as half.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "Broadcast.h"
#include "QuantValue.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/kernels/QuantMath.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

float applyFloat(OperationType op, float x, float y) {
    if (op == OperationType::POW) return std::pow(x, y);
    return x >= 0.0f ? x : x * y;  // PRELU, y = alpha
}

bool binaryFloat32(OperationContext& context) {
    const float* a = context.input(0).as<float>();
    const float* b = context.input(1).as<float>();
    float* out = context.output(0).as<float>();
    const OperationType op = context.type;
    forEachBroadcast(context.output(0).dims, context.input(0).dims, context.input(1).dims,
                     [&](uint64_t o, uint64_t i, uint64_t j) { out[o] = applyFloat(op, a[i], b[j]); });
    return true;
}

bool binaryFloat16(OperationContext& context) {
    const uint16_t* a = context.input(0).as<uint16_t>();
    const uint16_t* b = context.input(1).as<uint16_t>();
    uint16_t* out = context.output(0).as<uint16_t>();
    const OperationType op = context.type;
    forEachBroadcast(context.output(0).dims, context.input(0).dims, context.input(1).dims,
                     [&](uint64_t o, uint64_t i, uint64_t j) {
                         const float r = applyFloat(op, base::halfToFloat(a[i]), base::halfToFloat(b[j]));
                         out[o] = base::floatToHalf(r);
                     });
    return true;
}

// PRELU on quant8 in fixed point: a non-negative x - zp is rescaled by inScale / outScale; a
// negative one is multiplied by alpha - alphaZp and rescaled by inScale * alphaScale / outScale.
// T: uint8_t (Q8) or int8_t (Q8S).
template <typename T>
bool preluQuant8(OperationContext& context) {
    const OperandView& input = context.input(0);
    const OperandView& alpha = context.input(1);
    OperandView& output = context.output(0);
    int32_t positiveMult, negativeMult;
    int positiveShift, negativeShift;
    quant::quantizeMultiplier(static_cast<double>(input.scale) / output.scale, &positiveMult, &positiveShift);
    quant::quantizeMultiplier(static_cast<double>(input.scale) * alpha.scale / output.scale, &negativeMult,
                       &negativeShift);
    const T* x = input.as<T>();
    const T* a = alpha.as<T>();
    T* out = output.as<T>();
    forEachBroadcast(output.dims, input.dims, alpha.dims, [&](uint64_t o, uint64_t i, uint64_t j) {
        const int32_t value = static_cast<int32_t>(x[i]) - input.zeroPoint;
        int32_t scaled;
        if (value >= 0) {
            scaled = quant::multiplyByQuantizedMultiplier(value, positiveMult, positiveShift);
        } else {
            const int32_t slope = static_cast<int32_t>(a[j]) - alpha.zeroPoint;
            scaled = quant::multiplyByQuantizedMultiplier(value * slope, negativeMult, negativeShift);
        }
        out[o] = static_cast<T>(std::clamp(quant::saturatingAdd(scaled, output.zeroPoint), kQuantMin<T>, kQuantMax<T>));
    });
    return true;
}

}  // namespace

bool kernels::powPreluKernel(OperationContext& context) {
    if (!broadcastFits(context.input(0), context.input(1), context.output(0))) return false;
    const OperandType type = context.inputType(0);
    if (context.inputType(1) != type || context.output(0).type != type) return false;
    switch (type) {
        case OperandType::TENSOR_FLOAT32:
            return binaryFloat32(context);
        case OperandType::TENSOR_FLOAT16:
            return binaryFloat16(context);
        case OperandType::TENSOR_QUANT8_ASYMM:
            return context.type == OperationType::PRELU && preluQuant8<uint8_t>(context);
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            return context.type == OperationType::PRELU && preluQuant8<int8_t>(context);
        default:
            return false;
    }
}

}  // namespace nnemu::cpu
