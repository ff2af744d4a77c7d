// Quantized ADD and MUL for what NNAPI cannot take: int16 activations (16x8 quantized models) and
// 8-bit scales the runtime refuses (legal in TFLite). ADD rescales as TFLite's general integer
// ADD does: each input, offset and shifted left (20 bits for 8-bit types, 15 for int16), is
// multiplied by its scale over twice the larger input scale; the sum is requantized to the
// output scale. MUL requantizes the product of the offset inputs by in1 x in2 / out scale.
// Float forms stay with the lowering.
#include <algorithm>
#include <limits>

#include "Broadcast.h"
#include "CpuKernelList.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite {
namespace kernels::arithmetic {

int32_t fusedActivation(const CpuKernelCall& call, bool isAdd) {
    if (isAdd) {
        const auto* o = call.params<TfLiteAddParams>();
        return o ? static_cast<int32_t>(o->activation) : 0;
    }
    const auto* o = call.params<TfLiteMulParams>();
    return o ? static_cast<int32_t>(o->activation) : 0;
}

template <typename T>
void activationRange(const CpuKernelCall& call, bool isAdd, int32_t* low, int32_t* high) {
    const Tensor& out = *call.out(0).tensor;
    quant::quantizedActivationRange(fusedActivation(call, isAdd), out.scale, out.zeroPoint, std::numeric_limits<T>::min(),
                                  std::numeric_limits<T>::max(), low, high);
}

// The kernels' fixed-point steps stay inside int32 only for zero points the type can hold
// (int16 ones must be 0, as TFLite's 16-bit kernels require).
bool zeroPointFits(ElementType type, int32_t zeroPoint) {
    switch (type) {
        case ElementType::INT16: return zeroPoint == 0;
        case ElementType::INT8: return zeroPoint >= -128 && zeroPoint <= 127;
        default: return zeroPoint >= 0 && zeroPoint <= 255;
    }
}

bool prepareArithmetic(const CpuKernelCall& call, bool isAdd) {
    if (!call.expectCounts(2, 2, 1)) return false;
    if (!call.expectType(call.in(0), {ElementType::INT16, ElementType::INT8, ElementType::UINT8}, "input")) return false;
    if (call.in(1).type() != call.in(0).type() || call.out(0).type() != call.in(0).type()) {
        return call.fail("inputs and output must have the same type");
    }
    for (const CpuOperand* operand : {&call.in(0), &call.in(1), &call.out(0)}) {
        if (!(operand->tensor->scale > 0) || operand->tensor->isPerChannel()) {
            return call.fail("quantized tensors need one positive scale");
        }
        if (!zeroPointFits(call.in(0).type(), operand->tensor->zeroPoint)) {
            return call.fail(call.in(0).type() == ElementType::INT16 ? "int16 zero points must be 0"
                                                                     : "zero point outside the type's range");
        }
    }
    if (fusedActivation(call, isAdd) > static_cast<int32_t>(kTfLiteActRelu6)) {
        return call.fail("fused activation is not supported");
    }
    std::vector<int32_t> shape;
    if (!broadcastShape(call.in(0).shape(), call.in(1).shape(), &shape)) return call.fail("shapes do not broadcast");
    return call.expectOutputShape(0, shape);
}

template <typename T>
bool addQuantized(const CpuKernelCall& call) {
    const Tensor &a = *call.in(0).tensor, &b = *call.in(1).tensor, &out = *call.out(0).tensor;
    const int leftShift = std::is_same_v<T, int16_t> ? 15 : 20;
    const double twiceMax = 2.0 * std::max<double>(a.scale, b.scale);
    int32_t ma, mb, mo;
    int sa, sb, so;
    quant::quantizeMultiplier(a.scale / twiceMax, &ma, &sa);
    quant::quantizeMultiplier(b.scale / twiceMax, &mb, &sb);
    quant::quantizeMultiplier(twiceMax / (static_cast<double>(1 << leftShift) * out.scale), &mo, &so);
    int32_t low, high;
    activationRange<T>(call, true, &low, &high);
    std::vector<int32_t> shape;
    broadcastShape(a.shape, b.shape, &shape);
    forEachBroadcast(a.shape, b.shape, shape, [&](size_t o, size_t ia, size_t ib) {
        const int32_t x = (call.in(0).at<T>(ia) - a.zeroPoint) * (1 << leftShift);
        const int32_t y = (call.in(1).at<T>(ib) - b.zeroPoint) * (1 << leftShift);
        const int32_t sum = quant::multiplyByQuantizedMultiplier(x, ma, sa) + quant::multiplyByQuantizedMultiplier(y, mb, sb);
        const int32_t result = quant::multiplyByQuantizedMultiplier(sum, mo, so) + out.zeroPoint;
        call.out(0).set<T>(o, static_cast<T>(std::clamp(result, low, high)));
    });
    return true;
}

template <typename T>
bool mulQuantized(const CpuKernelCall& call) {
    const Tensor &a = *call.in(0).tensor, &b = *call.in(1).tensor, &out = *call.out(0).tensor;
    int32_t multiplier;
    int shift;
    quant::quantizeMultiplier(static_cast<double>(a.scale) * b.scale / out.scale, &multiplier, &shift);
    int32_t low, high;
    activationRange<T>(call, false, &low, &high);
    std::vector<int32_t> shape;
    broadcastShape(a.shape, b.shape, &shape);
    forEachBroadcast(a.shape, b.shape, shape, [&](size_t o, size_t ia, size_t ib) {
        const int32_t product = (call.in(0).at<T>(ia) - a.zeroPoint) * (call.in(1).at<T>(ib) - b.zeroPoint);
        const int32_t result = quant::multiplyByQuantizedMultiplier(product, multiplier, shift) + out.zeroPoint;
        call.out(0).set<T>(o, static_cast<T>(std::clamp(result, low, high)));
    });
    return true;
}

bool prepareAdd(const CpuKernelCall& call) { return prepareArithmetic(call, true); }
bool prepareMul(const CpuKernelCall& call) { return prepareArithmetic(call, false); }

template <bool kAdd>
bool runArithmetic(const CpuKernelCall& call) {
    if (!prepareArithmetic(call, kAdd)) return false;
    switch (call.in(0).type()) {
        case ElementType::INT16: return kAdd ? addQuantized<int16_t>(call) : mulQuantized<int16_t>(call);
        case ElementType::INT8: return kAdd ? addQuantized<int8_t>(call) : mulQuantized<int8_t>(call);
        default: return kAdd ? addQuantized<uint8_t>(call) : mulQuantized<uint8_t>(call);
    }
}

bool runAdd(const CpuKernelCall& call) { return runArithmetic<true>(call); }
bool runMul(const CpuKernelCall& call) { return runArithmetic<false>(call); }

}  // namespace kernels::arithmetic

}  // namespace nnemu::tflite
