// MUL for what NNAPI cannot take: uint8/int8 tensors with scales the runtime refuses (a scale
// below 1e-12, multipliers outside its fixed-point range). As TFLite's integer MUL: the product
// of the offset inputs is requantized by s1 * s2 / s_out (a multiplier too small for 32-bit
// fixed point becomes 0, as in TFLite), then the output's zero point and the fused activation.
// Float MUL and other activations are left to the lowering (as in Add.cpp).
#include <algorithm>
#include <limits>

#include "Broadcast.h"
#include "CpuKernel.h"
#include "nnemu/cpu/QuantMath.h"

namespace nnemu::tflite {
namespace {

fb::ActivationFunctionType activationOf(const CpuKernelCall& call) {
    const fb::MulOptions* options = call.op().builtin_options_as_MulOptions();
    return options != nullptr ? options->fused_activation_function() : fb::ActivationFunctionType_NONE;
}

bool prepareMul(const CpuKernelCall& call) {
    if (!call.expectCounts(2, 2, 1) || !call.expectType(call.in(0), {ElementType::UINT8, ElementType::INT8}, "input")) {
        return false;
    }
    for (const CpuOperand* operand : {&call.in(0), &call.in(1), &call.out(0)}) {
        if (operand->type() != call.in(0).type()) return call.fail("inputs and output must have the same type");
        const float scale = operand->tensor->scale;
        if (!(scale > 0) || scale > std::numeric_limits<float>::max()) return call.fail("quantized tensor without a valid scale");
    }
    if (activationOf(call) > fb::ActivationFunctionType_RELU6) return call.fail("unsupported fused activation");
    std::vector<int32_t> shape;
    if (!broadcastShape(call.in(0).shape(), call.in(1).shape(), &shape)) return call.fail("shapes do not broadcast");
    return call.expectOutputShape(0, shape);
}

template <typename T>
void mulQuantized(const CpuKernelCall& call) {
    const Tensor &a = *call.in(0).tensor, &b = *call.in(1).tensor, &out = *call.out(0).tensor;
    int32_t multiplier = 0, low = 0, high = 0;
    int shift = 0;
    cpu::quantizeMultiplier(static_cast<double>(a.scale) * b.scale / out.scale, &multiplier, &shift);
    cpu::quantizedActivationRange(static_cast<int32_t>(activationOf(call)), out.scale, out.zeroPoint,
                                  std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), &low, &high);
    std::vector<int32_t> shape;
    broadcastShape(a.shape, b.shape, &shape);
    forEachBroadcast(a.shape, b.shape, shape, [&](size_t o, size_t ia, size_t ib) {
        const int32_t x = static_cast<int32_t>(call.in(0).at<T>(ia)) - a.zeroPoint;
        const int32_t y = static_cast<int32_t>(call.in(1).at<T>(ib)) - b.zeroPoint;
        const int32_t value = cpu::saturatingAdd(cpu::multiplyByQuantizedMultiplier(x * y, multiplier, shift), out.zeroPoint);
        call.out(0).set<T>(o, static_cast<T>(std::clamp(value, low, high)));
    });
}

bool runMul(const CpuKernelCall& call) {
    if (!prepareMul(call)) return false;
    if (call.in(0).type() == ElementType::UINT8) {
        mulQuantized<uint8_t>(call);
    } else {
        mulQuantized<int8_t>(call);
    }
    return true;
}

}  // namespace

void addMulKernels(CpuKernelTable& table) { table.add(fb::BuiltinOperator_MUL, {prepareMul, runMul}); }

}  // namespace nnemu::tflite
