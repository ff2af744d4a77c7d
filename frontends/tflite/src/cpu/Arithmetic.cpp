// Quantized ADD, SUB and MUL for what NNAPI cannot take: int16 activations (16x8 quantized models)
// and 8-bit scales the runtime refuses (legal in TFLite). ADD rescales as TFLite's general integer
// ADD does: each input, offset and shifted left (20 bits for 8-bit types, 15 for int16), is
// multiplied by its scale over twice the larger input scale; the sum is requantized to the
// output scale. SUB is that ADD with the second input's multiplier negated (TFLite runs its int16
// SUB so). MUL requantizes the product of the offset inputs by in1 x in2 / out scale. int16 ADD and
// SUB with pot_scale_int16 (the schema's default) take TFLite's power-of-two path instead: every
// scale a power of two, one input's that of the output; the other input is shifted right to it
// (rounding half away from zero) and the two added or subtracted with int16 saturation.
// Under XNNPACK's arithmetic (call.xnnpack(): TFLite's default delegate would run the node), an
// 8-bit ADD or MUL is XNNPACK's (addXnnpack, mulXnnpack). Float forms stay with the lowering.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "Broadcast.h"
#include "CpuKernelList.h"
#include "Elementwise.h"
#include "nnemu/base/Clones.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite {
namespace kernels::arithmetic {

enum class Op { kAdd, kSub, kMul };

int32_t fusedActivation(const CpuKernelCall& call, Op op) {
    switch (op) {
        case Op::kAdd: {
            const auto* o = call.params<TfLiteAddParams>();
            return o ? static_cast<int32_t>(o->activation) : 0;
        }
        case Op::kSub: {
            const auto* o = call.params<TfLiteSubParams>();
            return o ? static_cast<int32_t>(o->activation) : 0;
        }
        default: {
            const auto* o = call.params<TfLiteMulParams>();
            return o ? static_cast<int32_t>(o->activation) : 0;
        }
    }
}

template <typename T>
void activationRange(const CpuKernelCall& call, Op op, int32_t* low, int32_t* high) {
    const Tensor& out = *call.out(0).tensor;
    quant::quantizedActivationRange(fusedActivation(call, op), out.scale, out.zeroPoint, std::numeric_limits<T>::min(),
                                  std::numeric_limits<T>::max(), low, high);
}

// pot_scale_int16 of an int16 ADD or SUB (TFLite's power-of-two path).
bool powerOfTwoPath(const CpuKernelCall& call, Op op) {
    if (call.in(0).type() != ElementType::INT16) return false;
    if (op == Op::kAdd) {
        const auto* o = call.params<TfLiteAddParams>();
        return o != nullptr && o->pot_scale_int16;
    }
    const auto* o = call.params<TfLiteSubParams>();
    return op == Op::kSub && o != nullptr && o->pot_scale_int16;
}

// The power-of-two path's right shifts of the inputs (one of them 0).
bool powerOfTwoShifts(const CpuKernelCall& call, int* shiftA, int* shiftB) {
    int a = 0, b = 0, out = 0;
    if (!checkedLog2(call.in(0).tensor->scale, &a) || !checkedLog2(call.in(1).tensor->scale, &b) ||
        !checkedLog2(call.out(0).tensor->scale, &out)) {
        return call.fail("int16 pot_scale_int16 needs power-of-two scales");
    }
    *shiftA = out - a;
    *shiftB = out - b;
    if ((*shiftA != 0 && *shiftB != 0) || *shiftA < 0 || *shiftB < 0) {
        return call.fail("int16 pot_scale_int16 needs one input's scale on the output and the other's no larger");
    }
    return true;
}

// An 8-bit ADD under XNNPACK's arithmetic.
bool xnnpackAdd(const CpuKernelCall& call, Op op) {
    return call.xnnpack() && op == Op::kAdd && call.in(0).type() != ElementType::INT16;
}
// An 8-bit MUL under XNNPACK's arithmetic; XNNPACK takes in1 x in2 / out scales in [2^-16, 2^8).
bool xnnpackMul(const CpuKernelCall& call, Op op) {
    return call.xnnpack() && op == Op::kMul && call.in(0).type() != ElementType::INT16;
}

bool xnnpackAddRatios(const CpuKernelCall& call, float* ratioA, float* ratioB);

bool prepareArithmetic(const CpuKernelCall& call, Op op) {
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
    if (fusedActivation(call, op) > static_cast<int32_t>(kTfLiteActRelu6)) {
        return call.fail("fused activation is not supported");
    }
    float ratioA = 0, ratioB = 0;
    if (xnnpackAdd(call, op) && !xnnpackAddRatios(call, &ratioA, &ratioB)) return false;
    if (xnnpackMul(call, op)) {
        const float product = call.in(0).tensor->scale * call.in(1).tensor->scale;
        const float scale = product / call.out(0).tensor->scale;
        if (!(scale >= 0x1p-16f && scale < 0x1p8f)) return call.fail("XNNPACK's MUL needs a product/output scale in [2^-16, 2^8)");
    }
    int shiftA = 0, shiftB = 0;
    if (powerOfTwoPath(call, op) && !powerOfTwoShifts(call, &shiftA, &shiftB)) return false;
    std::vector<int32_t> shape;
    if (!broadcastShape(call.in(0).shape(), call.in(1).shape(), &shape)) return call.fail("shapes do not broadcast");
    return call.expectOutputShape(0, shape);
}

bool addPowerOfTwo(const CpuKernelCall& call, Op op) {
    int shiftA = 0, shiftB = 0;
    powerOfTwoShifts(call, &shiftA, &shiftB);
    int32_t low, high;
    activationRange<int16_t>(call, op, &low, &high);
    const int32_t sign = op == Op::kSub ? -1 : 1;
    const std::vector<int32_t>&a = call.in(0).shape(), &b = call.in(1).shape();
    std::vector<int32_t> shape;
    broadcastShape(a, b, &shape);
    forEachBroadcast(a, b, shape, [&](size_t o, size_t ia, size_t ib) {
        const int32_t x = quant::roundingDivideByPOT(call.in(0).at<int16_t>(ia), shiftA);
        const int32_t y = quant::roundingDivideByPOT(call.in(1).at<int16_t>(ib), shiftB);
        const int32_t sum = std::clamp<int32_t>(x + sign * y, std::numeric_limits<int16_t>::min(),
                                                std::numeric_limits<int16_t>::max());
        call.out(0).set<int16_t>(o, static_cast<int16_t>(std::clamp(sum, low, high)));
    });
    return true;
}

template <typename T>
bool addQuantized(const CpuKernelCall& call, Op op) {
    const Tensor &a = *call.in(0).tensor, &b = *call.in(1).tensor, &out = *call.out(0).tensor;
    const int leftShift = std::is_same_v<T, int16_t> ? 15 : 20;
    const double twiceMax = 2.0 * std::max<double>(a.scale, b.scale);
    int32_t ma, mb, mo;
    int sa, sb, so;
    quant::quantizeMultiplier(a.scale / twiceMax, &ma, &sa);
    quant::quantizeMultiplier(b.scale / twiceMax, &mb, &sb);
    if (op == Op::kSub) mb = -mb;
    quant::quantizeMultiplier(twiceMax / (static_cast<double>(1 << leftShift) * out.scale), &mo, &so);
    int32_t low, high;
    activationRange<T>(call, op, &low, &high);
    // The input multipliers are below 1 (a right shift only): scaled without the general left
    // shift's saturation, the same values.
    const int ra = std::clamp(-sa, 0, 31), rb = std::clamp(-sb, 0, 31);
    const auto scaled = [](int32_t x, int32_t m, int right) {
        return quant::roundingDivideByPOT(quant::saturatingRoundingDoublingHighMul(x, m), right);
    };
    const auto element = [&](size_t o, size_t ia, size_t ib) {
        const int32_t x = (call.in(0).at<T>(ia) - a.zeroPoint) * (1 << leftShift);
        const int32_t y = (call.in(1).at<T>(ib) - b.zeroPoint) * (1 << leftShift);
        const int32_t sum = scaled(x, ma, ra) + scaled(y, mb, rb);
        const int32_t result = quant::multiplyByQuantizedMultiplier(sum, mo, so) + out.zeroPoint;
        call.out(0).set<T>(o, static_cast<T>(std::clamp(result, low, high)));
    };
    if (a.shape == b.shape) {   // nothing broadcast: one flat walk
        for (size_t i = 0, n = call.in(0).count(); i < n; ++i) element(i, i, i);
        return true;
    }
    std::vector<int32_t> shape;
    broadcastShape(a.shape, b.shape, &shape);
    forEachBroadcast(a.shape, b.shape, shape, element);
    return true;
}

// XNNPACK's ratios of each input's scale to the output's (float quotients); its ADD takes them in
// [2^-10, 2^8) only.
bool xnnpackAddRatios(const CpuKernelCall& call, float* ratioA, float* ratioB) {
    const float out = call.out(0).tensor->scale;
    *ratioA = call.in(0).tensor->scale / out;
    *ratioB = call.in(1).tensor->scale / out;
    for (float ratio : {*ratioA, *ratioB}) {
        if (!(ratio >= 0x1p-10f && ratio < 0x1p8f)) return call.fail("XNNPACK's ADD needs input/output scale ratios in [2^-10, 2^8)");
    }
    return true;
}

// XNNPACK's ADD (addXnnpack, below) on two inputs of one shape (MobileNet v2's residual ADDs), in one
// loop GCC vectorizes; |offset input x multiplier| < 255 x 2^21, so no sum leaves int32.
struct XnnpackAddSteps {
    int32_t zeroA, zeroB, multiplierA, multiplierB, rounding, shift, zeroOut, low, high;
};
template <typename T>
inline void addXnnpackSameShape(const T* a, const T* b, size_t count, const XnnpackAddSteps& s,
                                T* out) {
    const XnnpackAddSteps k = s;
    for (size_t i = 0; i < count; ++i) {
        const int32_t sum = k.rounding + (a[i] - k.zeroA) * k.multiplierA + (b[i] - k.zeroB) * k.multiplierB;
        out[i] = static_cast<T>(std::clamp((sum >> k.shift) + k.zeroOut, k.low, k.high));
    }
}
NNEMU_CLONES
void addXnnpackSameShapeInt8(const int8_t* a, const int8_t* b, size_t count, const XnnpackAddSteps& s, int8_t* out) {
    addXnnpackSameShape(a, b, count, s, out);
}
NNEMU_CLONES
void addXnnpackSameShapeUint8(const uint8_t* a, const uint8_t* b, size_t count, const XnnpackAddSteps& s, uint8_t* out) {
    addXnnpackSameShape(a, b, count, s, out);
}

// The 8-bit ADD as XNNPACK 2025's vadd kernels compute it: shift = 20 - the binary exponent of the
// larger ratio; each ratio times 2^shift rounded to nearest even is its multiplier; the offset
// inputs times their multipliers plus 2^(shift - 1), shifted right arithmetically by shift, plus
// the output's zero point, clamped to the fused activation's range.
template <typename T>
bool addXnnpack(const CpuKernelCall& call) {
    const Tensor &a = *call.in(0).tensor, &b = *call.in(1).tensor, &out = *call.out(0).tensor;
    float ratioA = 0, ratioB = 0;
    if (!xnnpackAddRatios(call, &ratioA, &ratioB)) return false;
    const int shift = 20 - std::ilogb(std::max(ratioA, ratioB));
    const auto ma = static_cast<int32_t>(std::lrint(std::ldexp(ratioA, shift)));
    const auto mb = static_cast<int32_t>(std::lrint(std::ldexp(ratioB, shift)));
    const int32_t rounding = int32_t{1} << (shift - 1);
    int32_t low, high;
    activationRange<T>(call, Op::kAdd, &low, &high);
    if (a.shape == b.shape) {
        const XnnpackAddSteps steps{a.zeroPoint, b.zeroPoint, ma, mb, rounding, shift, out.zeroPoint, low, high};
        const size_t count = call.out(0).count();
        if constexpr (std::is_same_v<T, int8_t>) {
            addXnnpackSameShapeInt8(reinterpret_cast<const int8_t*>(call.in(0).data),
                                    reinterpret_cast<const int8_t*>(call.in(1).data), count, steps,
                                    reinterpret_cast<int8_t*>(call.out(0).out));
        } else {
            addXnnpackSameShapeUint8(call.in(0).data, call.in(1).data, count, steps, call.out(0).out);
        }
        return true;
    }
    std::vector<int32_t> shape;
    broadcastShape(a.shape, b.shape, &shape);
    forEachBroadcast(a.shape, b.shape, shape, [&](size_t o, size_t ia, size_t ib) {
        const int32_t sum = rounding + (call.in(0).at<T>(ia) - a.zeroPoint) * ma + (call.in(1).at<T>(ib) - b.zeroPoint) * mb;
        const int32_t result = (sum >> shift) + out.zeroPoint;   // arithmetic shift, as XNNPACK's
        call.out(0).set<T>(o, static_cast<T>(std::clamp(result, low, high)));
    });
    return true;
}

// The 8-bit MUL as XNNPACK 2025's vmul kernels compute it (fp32 requantization): the product of
// the offset inputs as a float times in1 x in2 / out scale (float products), clamped, rounded to
// nearest even, plus the output's zero point.
template <typename T>
bool mulXnnpack(const CpuKernelCall& call) {
    const Tensor &a = *call.in(0).tensor, &b = *call.in(1).tensor, &out = *call.out(0).tensor;
    const float productScale = a.scale * b.scale;
    const float scale = productScale / out.scale;
    int32_t low, high;
    activationRange<T>(call, Op::kMul, &low, &high);
    const auto below = static_cast<float>(low - out.zeroPoint), above = static_cast<float>(high - out.zeroPoint);
    std::vector<int32_t> shape;
    broadcastShape(a.shape, b.shape, &shape);
    forEachBroadcast(a.shape, b.shape, shape, [&](size_t o, size_t ia, size_t ib) {
        const int32_t product = (call.in(0).at<T>(ia) - a.zeroPoint) * (call.in(1).at<T>(ib) - b.zeroPoint);
        const float scaled = std::min(std::max(static_cast<float>(product) * scale, below), above);
        call.out(0).set<T>(o, static_cast<T>(static_cast<int32_t>(std::nearbyint(scaled)) + out.zeroPoint));
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
    activationRange<T>(call, Op::kMul, &low, &high);
    std::vector<int32_t> shape;
    broadcastShape(a.shape, b.shape, &shape);
    forEachBroadcast(a.shape, b.shape, shape, [&](size_t o, size_t ia, size_t ib) {
        const int32_t product = (call.in(0).at<T>(ia) - a.zeroPoint) * (call.in(1).at<T>(ib) - b.zeroPoint);
        const int32_t result = quant::multiplyByQuantizedMultiplier(product, multiplier, shift) + out.zeroPoint;
        call.out(0).set<T>(o, static_cast<T>(std::clamp(result, low, high)));
    });
    return true;
}

bool prepareAdd(const CpuKernelCall& call) { return prepareArithmetic(call, Op::kAdd); }
bool prepareSub(const CpuKernelCall& call) { return prepareArithmetic(call, Op::kSub); }
bool prepareMul(const CpuKernelCall& call) { return prepareArithmetic(call, Op::kMul); }

template <typename T>
bool runAs(const CpuKernelCall& call, Op op) {
    if (powerOfTwoPath(call, op)) return addPowerOfTwo(call, op);
    if constexpr (!std::is_same_v<T, int16_t>) {
        if (xnnpackAdd(call, op)) return addXnnpack<T>(call);
        if (xnnpackMul(call, op)) return mulXnnpack<T>(call);
    }
    return op == Op::kMul ? mulQuantized<T>(call) : addQuantized<T>(call, op);
}

template <Op kOp>
bool runArithmetic(const CpuKernelCall& call) {
    if (!prepareArithmetic(call, kOp)) return false;
    switch (call.in(0).type()) {
        case ElementType::INT16: return runAs<int16_t>(call, kOp);
        case ElementType::INT8: return runAs<int8_t>(call, kOp);
        default: return runAs<uint8_t>(call, kOp);
    }
}

bool runAdd(const CpuKernelCall& call) { return runArithmetic<Op::kAdd>(call); }
bool runSub(const CpuKernelCall& call) { return runArithmetic<Op::kSub>(call); }
bool runMul(const CpuKernelCall& call) { return runArithmetic<Op::kMul>(call); }

}  // namespace kernels::arithmetic

}  // namespace nnemu::tflite
