// FLOOR_DIV, FLOOR_MOD and SQUARED_DIFFERENCE with broadcasting. Floor division and modulo
// round toward negative infinity (the remainder takes the divisor's sign); an integer division
// by zero fails the node, as in TFLite. Quantized SQUARED_DIFFERENCE dequantizes, computes and
// requantizes to the output's parameters, rounding to nearest.
#include <algorithm>
#include <array>
#include <cmath>

#include "Broadcast.h"
#include "CpuKernelList.h"
#include "Elementwise.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite {

bool broadcastShape(const std::vector<int32_t>& a, const std::vector<int32_t>& b, std::vector<int32_t>* out) {
    const size_t rank = std::max(a.size(), b.size());
    out->assign(rank, 1);
    for (size_t k = 0; k < rank; ++k) {
        const int32_t da = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
        const int32_t db = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
        if (da != db && da != 1 && db != 1) return false;
        (*out)[k] = da == 1 ? db : da;
    }
    return true;
}

bool prepareBroadcastBinary(const CpuKernelCall& call, std::initializer_list<ElementType> types) {
    if (!call.expectCounts(2, 2, 1)) return false;
    if (!call.expectType(call.in(0), types, "input")) return false;
    if (call.in(1).type() != call.in(0).type() || call.out(0).type() != call.in(0).type()) {
        return call.fail("inputs and output must have the same type");
    }
    std::vector<int32_t> shape;
    if (!broadcastShape(call.in(0).shape(), call.in(1).shape(), &shape)) {
        return call.fail("shapes " + shapeText(call.in(0).shape()) + " and " + shapeText(call.in(1).shape()) +
                         " do not broadcast");
    }
    return call.expectOutputShape(0, shape);
}

namespace kernels::binary {

enum class Binary { kFloorDiv, kFloorMod, kSquaredDifference };

template <typename T>
bool floorDivide(T a, T b, T* result) {
    if constexpr (std::is_floating_point_v<T>) {
        *result = std::floor(a / b);
    } else {
        if (b == 0) return false;
        T q = a / b;
        if (a % b != 0 && ((a < 0) != (b < 0))) --q;
        *result = q;
    }
    return true;
}

template <typename T>
bool floorModulo(T a, T b, T* result) {
    T r;
    if constexpr (std::is_floating_point_v<T>) {
        r = std::fmod(a, b);
    } else {
        if (b == 0) return false;
        r = a % b;
    }
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    *result = r;
    return true;
}

template <typename T, Binary kOp>
bool applyBinary(const CpuKernelCall& call) {
    std::vector<int32_t> shape;
    broadcastShape(call.in(0).shape(), call.in(1).shape(), &shape);
    bool ok = true;
    forEachBroadcast(call.in(0).shape(), call.in(1).shape(), shape, [&](size_t o, size_t ia, size_t ib) {
        const T a = call.in(0).at<T>(ia), b = call.in(1).at<T>(ib);
        T result{};
        if constexpr (kOp == Binary::kFloorDiv) {
            ok = floorDivide(a, b, &result) && ok;
        } else if constexpr (kOp == Binary::kFloorMod) {
            ok = floorModulo(a, b, &result) && ok;
        } else {
            result = static_cast<T>((a - b) * (a - b));
        }
        call.out(0).set<T>(o, result);
    });
    return ok ? true : call.fail("integer division by zero");
}

template <Binary kOp>
bool runIntegerOrFloat(const CpuKernelCall& call) {
    switch (call.in(0).type()) {
        case ElementType::FLOAT32: return applyBinary<float, kOp>(call);
        case ElementType::INT32: return applyBinary<int32_t, kOp>(call);
        case ElementType::INT64: return applyBinary<int64_t, kOp>(call);
        default: return applyBinary<int16_t, kOp>(call);
    }
}

bool prepareFloorDiv(const CpuKernelCall& call) {
    return prepareBroadcastBinary(call, {ElementType::FLOAT32, ElementType::INT32, ElementType::INT16});
}
bool runFloorDiv(const CpuKernelCall& call) {
    return prepareFloorDiv(call) && runIntegerOrFloat<Binary::kFloorDiv>(call);
}

bool prepareFloorMod(const CpuKernelCall& call) {
    return prepareBroadcastBinary(call, {ElementType::FLOAT32, ElementType::INT32, ElementType::INT64, ElementType::INT16});
}
bool runFloorMod(const CpuKernelCall& call) {
    return prepareFloorMod(call) && runIntegerOrFloat<Binary::kFloorMod>(call);
}

bool prepareSquaredDifference(const CpuKernelCall& call) {
    if (!prepareBroadcastBinary(call, {ElementType::FLOAT32, ElementType::INT32, ElementType::INT8, ElementType::UINT8})) {
        return false;
    }
    if (call.in(0).type() != ElementType::INT8 && call.in(0).type() != ElementType::UINT8) return true;
    for (const CpuOperand* operand : {&call.in(0), &call.in(1), &call.out(0)}) {
        if (!(std::isfinite(operand->tensor->scale) && operand->tensor->scale > 0)) {
            return call.fail("quantized tensor without a finite positive scale");
        }
        if (!zeroPointFits(operand->type(), operand->tensor->zeroPoint)) {
            return call.fail("zero point " + std::to_string(operand->tensor->zeroPoint) + " outside its type");
        }
    }
    return true;
}

// TFLite's int8 kernel, in fixed point: each input's offset value shifted left by 7 and scaled by
// its scale over twice the larger input scale (Q31 multipliers), the difference squared in int32,
// scaled by (twice the larger scale)^2 / (2^14 * output scale), plus the output's zero point.
template <typename T>
bool squaredDifferenceQuantized(const CpuKernelCall& call) {
    const Tensor &a = *call.in(0).tensor, &b = *call.in(1).tensor, &out = *call.out(0).tensor;
    constexpr int kLeftShift = 7;
    const double twiceMax = 2.0 * std::max(a.scale, b.scale);
    int32_t multiplierA = 0, multiplierB = 0, multiplierOut = 0;
    int shiftA = 0, shiftB = 0, shiftOut = 0;
    quant::quantizeMultiplier(a.scale / twiceMax, &multiplierA, &shiftA);
    quant::quantizeMultiplier(b.scale / twiceMax, &multiplierB, &shiftB);
    quant::quantizeMultiplier(twiceMax * twiceMax / (static_cast<double>(1 << (2 * kLeftShift)) * out.scale), &multiplierOut,
                              &shiftOut);
    // Each input's scaled value per stored byte.
    std::array<int32_t, 256> scaledA{}, scaledB{};
    for (int32_t v = std::numeric_limits<T>::min(); v <= std::numeric_limits<T>::max(); ++v) {
        const auto index = static_cast<uint8_t>(static_cast<T>(v));
        scaledA[index] = quant::multiplyByQuantizedMultiplier((v - a.zeroPoint) * (1 << kLeftShift),
                                                              multiplierA, shiftA);
        scaledB[index] = quant::multiplyByQuantizedMultiplier((v - b.zeroPoint) * (1 << kLeftShift),
                                                              multiplierB, shiftB);
    }
    std::vector<int32_t> shape;
    broadcastShape(a.shape, b.shape, &shape);
    forEachBroadcast(a.shape, b.shape, shape, [&](size_t o, size_t ia, size_t ib) {
        // In range (prepare): |scaled| <= 255 * 2^7 / 2, so the square fits int32; the sum with the
        // zero point may not (the multiplier saturates), hence 64 bits there.
        const int32_t difference = scaledA[static_cast<uint8_t>(call.in(0).at<T>(ia))] -
                                   scaledB[static_cast<uint8_t>(call.in(1).at<T>(ib))];
        const int64_t value =
                int64_t{quant::multiplyByQuantizedMultiplier(difference * difference, multiplierOut, shiftOut)} + out.zeroPoint;
        call.out(0).set<T>(o, static_cast<T>(std::clamp<int64_t>(value, std::numeric_limits<T>::min(),
                                                                 std::numeric_limits<T>::max())));
    });
    return true;
}

bool runSquaredDifference(const CpuKernelCall& call) {
    if (!prepareSquaredDifference(call)) return false;
    switch (call.in(0).type()) {
        case ElementType::INT8: return squaredDifferenceQuantized<int8_t>(call);
        case ElementType::UINT8: return squaredDifferenceQuantized<uint8_t>(call);
        default: return runIntegerOrFloat<Binary::kSquaredDifference>(call);
    }
}

// ---- MAXIMUM and MINIMUM of quantized tensors: TFLite compares the stored values and stores
// the larger (smaller) one in the output, whatever the three tensors' quantizations.
bool prepareQuantizedExtremum(const CpuKernelCall& call) {
    return prepareBroadcastBinary(call, {ElementType::UINT8, ElementType::INT8, ElementType::INT16});
}

template <typename T, bool kMaximum>
bool extremumOfStored(const CpuKernelCall& call) {
    std::vector<int32_t> shape;
    broadcastShape(call.in(0).shape(), call.in(1).shape(), &shape);
    forEachBroadcast(call.in(0).shape(), call.in(1).shape(), shape, [&](size_t o, size_t ia, size_t ib) {
        const T a = call.in(0).at<T>(ia), b = call.in(1).at<T>(ib);
        call.out(0).set<T>(o, kMaximum ? std::max(a, b) : std::min(a, b));
    });
    return true;
}

template <bool kMaximum>
bool runQuantizedExtremum(const CpuKernelCall& call) {
    if (!prepareQuantizedExtremum(call)) return false;
    switch (call.in(0).type()) {
        case ElementType::UINT8: return extremumOfStored<uint8_t, kMaximum>(call);
        case ElementType::INT8: return extremumOfStored<int8_t, kMaximum>(call);
        default: return extremumOfStored<int16_t, kMaximum>(call);
    }
}
bool runQuantizedMaximum(const CpuKernelCall& call) { return runQuantizedExtremum<true>(call); }
bool runQuantizedMinimum(const CpuKernelCall& call) { return runQuantizedExtremum<false>(call); }

}  // namespace kernels::binary

}  // namespace nnemu::tflite
