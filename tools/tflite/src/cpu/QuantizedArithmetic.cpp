// ADD and MUL for the forms NNAPI refuses, chiefly uint8/int8 tensors with scales it cannot
// requantize (a scale below 1e-12, multipliers outside its fixed-point range), with TFLite's
// integer arithmetic: ADD brings both inputs to a common scale (twice the larger input scale,
// with 20 bits of headroom) and requantizes the sum; MUL requantizes the product of the offset
// values by s1 * s2 / s_out. A multiplier too small for 32-bit fixed point becomes 0, as in
// TFLite, so an input of negligible scale adds nothing. Float32 and int32 compute directly.
// Both broadcast, and apply the fused activation.
#include <algorithm>
#include <limits>

#include "../../../../driver/cpu/include/nnemu/cpu/QuantMath.h"
#include "Broadcast.h"
#include "CpuKernel.h"

namespace nnemu::tflite {
namespace {

using cpu::multiplyByQuantizedMultiplier;
using cpu::quantizeMultiplier;

fb::ActivationFunctionType activationOf(const CpuKernelCall& call, bool isAdd) {
    if (isAdd) {
        const fb::AddOptions* options = call.op().builtin_options_as_AddOptions();
        return options != nullptr ? options->fused_activation_function() : fb::ActivationFunctionType_NONE;
    }
    const fb::MulOptions* options = call.op().builtin_options_as_MulOptions();
    return options != nullptr ? options->fused_activation_function() : fb::ActivationFunctionType_NONE;
}

bool isQuantized(ElementType type) { return type == ElementType::UINT8 || type == ElementType::INT8; }

template <bool kAdd>
bool prepareArithmetic(const CpuKernelCall& call) {
    if (!call.expectCounts(2, 2, 1)) return false;
    if (!call.expectType(call.in(0), {ElementType::FLOAT32, ElementType::INT32, ElementType::UINT8, ElementType::INT8},
                         "input")) {
        return false;
    }
    if (call.in(1).type() != call.in(0).type() || call.out(0).type() != call.in(0).type()) {
        return call.fail("inputs and output must have the same type");
    }
    const fb::ActivationFunctionType activation = activationOf(call, kAdd);
    if (activation > fb::ActivationFunctionType_RELU6) return call.fail("unsupported fused activation");
    if (isQuantized(call.in(0).type())) {
        for (const CpuOperand* operand : {&call.in(0), &call.in(1), &call.out(0)}) {
            const float scale = operand->tensor->scale;
            if (!(scale > 0) || scale > std::numeric_limits<float>::max()) return call.fail("quantized tensor without a valid scale");
        }
    }
    std::vector<int32_t> shape;
    if (!broadcastShape(call.in(0).shape(), call.in(1).shape(), &shape)) {
        return call.fail("shapes " + shapeText(call.in(0).shape()) + " and " + shapeText(call.in(1).shape()) +
                         " do not broadcast");
    }
    return call.expectOutputShape(0, shape);
}

// The quantized form: per element, f(offset a, offset b) gives the output before its zero point.
template <typename T, typename F>
void runQuantized(const CpuKernelCall& call, bool isAdd, F&& f) {
    const Tensor &a = *call.in(0).tensor, &b = *call.in(1).tensor, &out = *call.out(0).tensor;
    int32_t low = 0, high = 0;
    cpu::quantizedActivationRange(static_cast<int32_t>(activationOf(call, isAdd)), out.scale, out.zeroPoint,
                                  std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), &low, &high);
    std::vector<int32_t> shape;
    broadcastShape(a.shape, b.shape, &shape);
    forEachBroadcast(a.shape, b.shape, shape, [&](size_t o, size_t ia, size_t ib) {
        const int32_t x = static_cast<int32_t>(call.in(0).at<T>(ia)) - a.zeroPoint;
        const int32_t y = static_cast<int32_t>(call.in(1).at<T>(ib)) - b.zeroPoint;
        const int32_t value = cpu::saturatingAdd(f(x, y), out.zeroPoint);
        call.out(0).set<T>(o, static_cast<T>(std::clamp(value, low, high)));
    });
}

template <typename T>
void addQuantized(const CpuKernelCall& call) {
    constexpr int kLeftShift = 20;
    const double sa = call.in(0).tensor->scale, sb = call.in(1).tensor->scale, so = call.out(0).tensor->scale;
    const double common = 2 * std::max(sa, sb);
    int32_t ma, mb, mo;
    int shiftA, shiftB, shiftO;
    quantizeMultiplier(sa / common, &ma, &shiftA);
    quantizeMultiplier(sb / common, &mb, &shiftB);
    quantizeMultiplier(common / ((1 << kLeftShift) * so), &mo, &shiftO);
    runQuantized<T>(call, true, [&](int32_t x, int32_t y) {
        const int32_t scaledA = multiplyByQuantizedMultiplier(x * (1 << kLeftShift), ma, shiftA);
        const int32_t scaledB = multiplyByQuantizedMultiplier(y * (1 << kLeftShift), mb, shiftB);
        return multiplyByQuantizedMultiplier(cpu::saturatingAdd(scaledA, scaledB), mo, shiftO);
    });
}

template <typename T>
void mulQuantized(const CpuKernelCall& call) {
    const double real = static_cast<double>(call.in(0).tensor->scale) * call.in(1).tensor->scale / call.out(0).tensor->scale;
    int32_t multiplier;
    int shift;
    quantizeMultiplier(real, &multiplier, &shift);
    runQuantized<T>(call, false, [&](int32_t x, int32_t y) { return multiplyByQuantizedMultiplier(x * y, multiplier, shift); });
}

// Float32 and int32: the operation, then the fused activation's clamp.
template <typename T>
void runPlain(const CpuKernelCall& call, bool isAdd) {
    float low, high;
    cpu::floatActivationRange(static_cast<int32_t>(activationOf(call, isAdd)), &low, &high);
    std::vector<int32_t> shape;
    broadcastShape(call.in(0).shape(), call.in(1).shape(), &shape);
    forEachBroadcast(call.in(0).shape(), call.in(1).shape(), shape, [&](size_t o, size_t ia, size_t ib) {
        const T x = call.in(0).at<T>(ia), y = call.in(1).at<T>(ib);
        T value;
        if constexpr (std::is_floating_point_v<T>) {
            value = isAdd ? x + y : x * y;
            value = cpu::activationClamp(value, low, high);
        } else {
            // Wrapping as two's complement, as TFLite's int32 kernels do on overflow.
            const auto ux = static_cast<uint32_t>(x), uy = static_cast<uint32_t>(y);
            value = static_cast<T>(isAdd ? ux + uy : ux * uy);
            value = static_cast<T>(std::clamp<double>(value, low, high));
        }
        call.out(0).set<T>(o, value);
    });
}

template <bool kAdd>
bool runArithmetic(const CpuKernelCall& call) {
    if (!prepareArithmetic<kAdd>(call)) return false;
    switch (call.in(0).type()) {
        case ElementType::UINT8: kAdd ? addQuantized<uint8_t>(call) : mulQuantized<uint8_t>(call); break;
        case ElementType::INT8: kAdd ? addQuantized<int8_t>(call) : mulQuantized<int8_t>(call); break;
        case ElementType::INT32: runPlain<int32_t>(call, kAdd); break;
        default: runPlain<float>(call, kAdd); break;
    }
    return true;
}

}  // namespace

void addQuantizedArithmeticKernels(CpuKernelTable& table) {
    table.add(fb::BuiltinOperator_ADD, {prepareArithmetic<true>, runArithmetic<true>});
    table.add(fb::BuiltinOperator_MUL, {prepareArithmetic<false>, runArithmetic<false>});
}

}  // namespace nnemu::tflite
