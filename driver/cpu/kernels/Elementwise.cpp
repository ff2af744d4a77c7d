// Reference kernels for ADD, MUL, SUB, DIV with numpy-style broadcasting.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "nnemu/base/Clones.h"
#include "Broadcast.h"
#include "QuantValue.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/kernels/QuantMath.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

// F32 (T = float) or F16 (T = uint16_t, computed in float): `load` and `store` convert an
// element. One loop per operation, so that each inlines its arithmetic and vectorizes.
template <typename T, typename Load, typename Store>
bool binaryFloating(OperationContext& context, int32_t fuse, Load load, Store store) {
    float low, high;
    quant::floatActivationRange(fuse, &low, &high);
    const T* a = context.input(0).as<T>();
    const T* b = context.input(1).as<T>();
    T* out = context.output(0).as<T>();
    const auto run = [&](auto apply) {
        forEachBroadcast(context.output(0).dims, context.input(0).dims, context.input(1).dims,
                         [&](uint64_t o, uint64_t i, uint64_t j) {
                             out[o] = store(quant::activationClamp(apply(load(a[i]), load(b[j])), low, high));
                         });
    };
    switch (context.type) {
        case OperationType::ADD: run([](float x, float y) { return x + y; }); break;
        case OperationType::SUB: run([](float x, float y) { return x - y; }); break;
        case OperationType::MUL: run([](float x, float y) { return x * y; }); break;
        default: run([](float x, float y) { return x / y; }); break;
    }
    return true;
}

// One build per vector unit, chosen once at load (flatten: the broadcast loops and the
// arithmetic are inlined into each build). Each element is one IEEE operation and the clamp,
// the same in every build.
NNEMU_FLATTEN_CLONES
bool binaryFloat32(OperationContext& context, int32_t fuse) {
    const auto same = [](float v) { return v; };
    return binaryFloating<float>(context, fuse, same, same);
}

bool binaryFloat16(OperationContext& context, int32_t fuse) {
    return binaryFloating<uint16_t>(context, fuse, [](uint16_t v) { return base::halfToFloat(v); },
                                    [](float v) { return base::floatToHalf(v); });
}

// ADD / SUB on quant8 (T = uint8_t or int8_t): both inputs are brought to a common scale (twice
// the larger input scale) with 20 bits of headroom, summed as integers, then rescaled to the
// output.
template <typename T>
bool addSubQuant8(OperationContext& context, int32_t fuse) {
    const hal::OperandView& in1 = context.input(0);
    const hal::OperandView& in2 = context.input(1);
    hal::OperandView& out = context.output(0);
    constexpr int kLeftShift = 20;
    const double twiceMaxScale = 2.0 * std::max(in1.scale, in2.scale);
    const double realMult1 = in1.scale / twiceMaxScale;
    const double realMult2 = in2.scale / twiceMaxScale;
    const double realOutMult = twiceMaxScale / ((1 << kLeftShift) * static_cast<double>(out.scale));
    int32_t mult1, mult2, outMult;
    int shift1, shift2, outShift;
    quant::quantizeMultiplier(realMult1, &mult1, &shift1);
    quant::quantizeMultiplier(realMult2, &mult2, &shift2);
    quant::quantizeMultiplier(realOutMult, &outMult, &outShift);
    if (context.type == OperationType::SUB) mult2 = -mult2;  // a - b == a + (-1 * b)
    int32_t low, high;
    quant::quantizedActivationRange(fuse, out.scale, out.zeroPoint, kQuantMin<T>, kQuantMax<T>, &low, &high);
    const T* a = in1.as<T>();
    const T* b = in2.as<T>();
    T* o = out.as<T>();
    // Each input's rescaled value depends on the element alone: computed once per value.
    int32_t scaledA[256], scaledB[256];
    for (int32_t q = kQuantMin<T>; q <= kQuantMax<T>; ++q) {
        const size_t k = static_cast<size_t>(q - kQuantMin<T>);
        scaledA[k] = quant::multiplyByQuantizedMultiplier((q - in1.zeroPoint) * (1 << kLeftShift), mult1, shift1);
        scaledB[k] = quant::multiplyByQuantizedMultiplier((q - in2.zeroPoint) * (1 << kLeftShift), mult2, shift2);
    }
    forEachBroadcast(out.dims, in1.dims, in2.dims, [&](uint64_t oi, uint64_t i, uint64_t j) {
        const int32_t sum = scaledA[static_cast<int32_t>(a[i]) - kQuantMin<T>] +
                            scaledB[static_cast<int32_t>(b[j]) - kQuantMin<T>];
        const int32_t result = quant::multiplyByQuantizedMultiplier(sum, outMult, outShift) + out.zeroPoint;
        o[oi] = static_cast<T>(std::clamp(result, low, high));
    });
    return true;
}

template <typename T>
bool mulQuant8(OperationContext& context, int32_t fuse) {
    const hal::OperandView& in1 = context.input(0);
    const hal::OperandView& in2 = context.input(1);
    hal::OperandView& out = context.output(0);
    const double realMult =
            static_cast<double>(in1.scale) * static_cast<double>(in2.scale) / out.scale;
    int32_t mult;
    int shift;
    quant::quantizeMultiplier(realMult, &mult, &shift);
    int32_t low, high;
    quant::quantizedActivationRange(fuse, out.scale, out.zeroPoint, kQuantMin<T>, kQuantMax<T>, &low, &high);
    const T* a = in1.as<T>();
    const T* b = in2.as<T>();
    T* o = out.as<T>();
    forEachBroadcast(out.dims, in1.dims, in2.dims, [&](uint64_t oi, uint64_t i, uint64_t j) {
        const int32_t product = (static_cast<int32_t>(a[i]) - in1.zeroPoint) *
                                (static_cast<int32_t>(b[j]) - in2.zeroPoint);
        const int32_t result = quant::multiplyByQuantizedMultiplier(product, mult, shift) + out.zeroPoint;
        o[oi] = static_cast<T>(std::clamp(result, low, high));
    });
    return true;
}

// NNAPI's integer arithmetic: ADD, SUB and MUL wrap around (two's complement); DIV is floor
// division, and a division by zero (or INT32_MIN / -1) must not crash: it gives 0 (resp. wraps).
int32_t applyInt32(OperationType op, int32_t a, int32_t b) {
    const auto ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
    switch (op) {
        case OperationType::ADD:
            return static_cast<int32_t>(ua + ub);
        case OperationType::SUB:
            return static_cast<int32_t>(ua - ub);
        case OperationType::MUL:
            return static_cast<int32_t>(ua * ub);
        default:
            break;
    }
    if (b == 0) return 0;
    if (b == -1) return static_cast<int32_t>(0u - ua);
    int32_t quotient = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0))) --quotient;  // round toward negative infinity
    return quotient;
}

bool binaryInt32(OperationContext& context, int32_t fuse) {
    if (fuse != 0) return false;
    const int32_t* a = context.input(0).as<int32_t>();
    const int32_t* b = context.input(1).as<int32_t>();
    int32_t* out = context.output(0).as<int32_t>();
    const OperationType op = context.type;
    forEachBroadcast(context.output(0).dims, context.input(0).dims, context.input(1).dims,
                     [&](uint64_t o, uint64_t i, uint64_t j) { out[o] = applyInt32(op, a[i], b[j]); });
    return true;
}

template <typename T>
bool binaryQuant8(OperationContext& context, int32_t fuse) {
    if (context.type == OperationType::ADD || context.type == OperationType::SUB) {
        return addSubQuant8<T>(context, fuse);
    }
    if (context.type == OperationType::MUL) return mulQuant8<T>(context, fuse);
    return false;
}

}  // namespace

bool kernels::binaryKernel(OperationContext& context) {
    if (!broadcastFits(context.input(0), context.input(1), context.output(0))) return false;
    const int32_t fuse = context.scalar<int32_t>(2);
    if (fuse < 0 || fuse > 3) return false;
    switch (context.inputType(0)) {
        case OperandType::TENSOR_FLOAT32:
            return binaryFloat32(context, fuse);
        case OperandType::TENSOR_FLOAT16:
            return binaryFloat16(context, fuse);
        case OperandType::TENSOR_INT32:
            return binaryInt32(context, fuse);
        case OperandType::TENSOR_QUANT8_ASYMM:
            return binaryQuant8<uint8_t>(context, fuse);
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            return binaryQuant8<int8_t>(context, fuse);
        default:
            return false;
    }
}

}  // namespace nnemu::cpu
