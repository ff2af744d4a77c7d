// Reference kernels for MAXIMUM, MINIMUM (numpy-style broadcasting) and SELECT. Each output
// element is one of the input elements; on quant8 the chosen value is requantized from its
// input's scale and zero point to the output's (round to nearest, clamp to the type's range).
#include <cstdint>
#include <cstring>

#include "Broadcast.h"
#include "QuantValue.h"
#include "nnemu/cpu/Kernels.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

// Whether b (rather than a) is the result: strictly greater for MAXIMUM, strictly less for
// MINIMUM, so ties and NaN comparisons keep a.
template <typename T>
bool takeSecond(bool isMax, T a, T b) {
    return isMax ? b > a : b < a;
}

// Float32, int32 and float16 (compared as float, copied as stored) elements.
template <typename Stored, typename Value>
bool maxMinTyped(OperationContext& context, Value (*value)(Stored)) {
    const OperandView& a = context.input(0);
    const OperandView& b = context.input(1);
    const Stored* x = a.as<Stored>();
    const Stored* y = b.as<Stored>();
    Stored* out = context.output(0).as<Stored>();
    const bool isMax = context.type == OperationType::MAXIMUM;
    forEachBroadcast(context.output(0).dims, a.dims, b.dims, [&](uint64_t o, uint64_t i, uint64_t j) {
        out[o] = takeSecond(isMax, value(x[i]), value(y[j])) ? y[j] : x[i];
    });
    return true;
}

// Q8 and Q8S: the real values are compared, then the chosen one is requantized.
bool maxMinQuant8(OperationContext& context) {
    const OperandView& a = context.input(0);
    const OperandView& b = context.input(1);
    OperandView& output = context.output(0);
    const bool isMax = context.type == OperationType::MAXIMUM;
    forEachBroadcast(output.dims, a.dims, b.dims, [&](uint64_t o, uint64_t i, uint64_t j) {
        const double x = quant8RealValue(a, i), y = quant8RealValue(b, j);
        storeQuant8FromReal(takeSecond(isMax, x, y) ? y : x, output, o);
    });
    return true;
}

template <typename T>
T identity(T v) { return v; }

bool selectFits(const OperationContext& context) {
    const OperandView& condition = context.input(0);
    const OperandView& output = context.output(0);
    if (condition.type != OperandType::TENSOR_BOOL8) return false;
    for (uint32_t k = 1; k <= 2; ++k) {
        const OperandView& v = context.input(k);
        if (v.type != output.type || v.dims != condition.dims || !holdsElements(v)) return false;
    }
    return output.dims == condition.dims && holdsElements(condition) && holdsElements(output);
}

}  // namespace

bool kernels::maxMinKernel(OperationContext& context) {
    if (!broadcastFits(context.input(0), context.input(1), context.output(0))) return false;
    const OperandType type = context.inputType(0);
    if (context.inputType(1) != type || context.output(0).type != type) return false;
    switch (type) {
        case OperandType::TENSOR_FLOAT32:
            return maxMinTyped<float, float>(context, identity<float>);
        case OperandType::TENSOR_INT32:
            return maxMinTyped<int32_t, int32_t>(context, identity<int32_t>);
        case OperandType::TENSOR_FLOAT16:
            return maxMinTyped<uint16_t, float>(context, base::halfToFloat);
        case OperandType::TENSOR_QUANT8_ASYMM:
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            return maxMinQuant8(context);
        default:
            return false;
    }
}

bool kernels::selectKernel(OperationContext& context) {
    if (!selectFits(context)) return false;
    const uint8_t* condition = context.input(0).as<uint8_t>();
    OperandView& output = context.output(0);
    const uint64_t n = output.elements();
    if (hal::isQuant8Asymm(output.type)) {
        for (uint64_t i = 0; i < n; ++i) {
            storeQuant8FromReal(quant8RealValue(context.input(condition[i] ? 1 : 2), i), output, i);
        }
        return true;
    }
    // Other types: the chosen element's bytes.
    const size_t size = hal::elementSize(output.type);
    for (uint64_t i = 0; i < n; ++i) {
        std::memcpy(output.data + i * size, context.input(condition[i] ? 1 : 2).data + i * size, size);
    }
    return true;
}

}  // namespace nnemu::cpu
