// FLOOR_DIV, FLOOR_MOD and SQUARED_DIFFERENCE with broadcasting. Floor division and modulo
// round toward negative infinity (the remainder takes the divisor's sign); an integer division
// by zero fails the node, as in TFLite. Quantized SQUARED_DIFFERENCE dequantizes, computes and
// requantizes to the output's parameters, rounding to nearest.
#include <algorithm>
#include <cmath>

#include "Broadcast.h"
#include "CpuKernelList.h"

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
    const bool quantized = call.in(0).type() == ElementType::INT8 || call.in(0).type() == ElementType::UINT8;
    for (const CpuOperand* operand : {&call.in(0), &call.in(1), &call.out(0)}) {
        if (quantized && !(operand->tensor->scale > 0)) return call.fail("quantized tensor without a scale");
    }
    return true;
}

template <typename T>
bool squaredDifferenceQuantized(const CpuKernelCall& call) {
    const Tensor &a = *call.in(0).tensor, &b = *call.in(1).tensor, &out = *call.out(0).tensor;
    std::vector<int32_t> shape;
    broadcastShape(a.shape, b.shape, &shape);
    forEachBroadcast(a.shape, b.shape, shape, [&](size_t o, size_t ia, size_t ib) {
        const double x = (call.in(0).at<T>(ia) - a.zeroPoint) * static_cast<double>(a.scale);
        const double y = (call.in(1).at<T>(ib) - b.zeroPoint) * static_cast<double>(b.scale);
        const double q = std::round((x - y) * (x - y) / out.scale) + out.zeroPoint;
        call.out(0).set<T>(o, static_cast<T>(std::clamp<double>(q, std::numeric_limits<T>::min(),
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

}  // namespace kernels::binary

}  // namespace nnemu::tflite
