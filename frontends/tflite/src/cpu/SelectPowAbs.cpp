// Forms of SELECT_V2, POW and ABS that NNAPI cannot take at the runtime's feature level, with
// TFLite's semantics:
// - SELECT_V2: condition, x and y broadcast against each other (NumPy-style, the output takes
//   the broadcast shape); values are copied as stored (x, y and the output share a type).
// - POW on int32 / int64: every exponent must be >= 0 (TFLite refuses a negative one); the power
//   is std::pow's in double, converted as x86's cvttsd2si does (out of range: the type's lowest).
// - ABS on int8 / int16: |q - zero_in| rescaled by scale_in / scale_out with TFLite's fixed-point
//   multiplier (MultiplyByQuantizedMultiplier), plus zero_out, clamped to the type's range.
#include <algorithm>
#include <cmath>
#include <limits>

#include "Broadcast.h"
#include "CpuKernelList.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite {
namespace kernels::select_pow_abs {
namespace {

// Per dimension of `out`, the flat step in an operand of shape `in` (0 where broadcast).
std::vector<size_t> broadcastSteps(const std::vector<int32_t>& in, const std::vector<int32_t>& out) {
    std::vector<size_t> steps(out.size(), 0);
    size_t stride = 1;
    for (size_t k = out.size(); k-- > 0;) {
        const size_t dim = k + in.size() >= out.size() ? static_cast<size_t>(in[k + in.size() - out.size()]) : 1;
        steps[k] = dim == 1 ? 0 : stride;
        stride *= dim;
    }
    return steps;
}

bool selectShape(const CpuKernelCall& call, std::vector<int32_t>* shape) {
    if (!call.expectCounts(3, 3, 1)) return false;
    if (!call.expectType(call.in(0), {ElementType::BOOL}, "condition")) return false;
    if (call.in(1).type() != call.in(2).type() || call.out(0).type() != call.in(1).type()) {
        return call.fail("x, y and the output must have the same type");
    }
    if (elementSize(call.in(1).type()) == 0) return call.fail("values of type " + std::string(elementTypeName(call.in(1).type())) + " are not supported");
    std::vector<int32_t> xy;
    if (!broadcastShape(call.in(1).shape(), call.in(2).shape(), &xy) ||
        !broadcastShape(call.in(0).shape(), xy, shape)) {
        return call.fail("shapes " + shapeText(call.in(0).shape()) + ", " + shapeText(call.in(1).shape()) + " and " +
                         shapeText(call.in(2).shape()) + " do not broadcast");
    }
    return true;
}

template <typename T>
T truncateToInteger(double value) {
    // cvttsd2si: NaN and out-of-range values give the integer indefinite (the lowest value).
    if (!(value >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
          value < -static_cast<double>(std::numeric_limits<T>::lowest()))) {
        return std::numeric_limits<T>::lowest();
    }
    return static_cast<T>(value);
}

template <typename T>
bool powAs(const CpuKernelCall& call) {
    const CpuOperand &a = call.in(0), &b = call.in(1), &out = call.out(0);
    const size_t exponents = b.count();
    for (size_t i = 0; i < exponents; ++i) {
        if (b.at<T>(i) < 0) return call.fail("POW does not support a negative exponent for integers");
    }
    forEachBroadcast(a.shape(), b.shape(), out.shape(), [&](size_t o, size_t ia, size_t ib) {
        out.set<T>(o, truncateToInteger<T>(std::pow(static_cast<double>(a.at<T>(ia)), static_cast<double>(b.at<T>(ib)))));
    });
    return true;
}

template <typename T>
void absAs(const CpuKernelCall& call) {
    const CpuOperand &in = call.in(0), &out = call.out(0);
    int32_t multiplier = 0;
    int shift = 0;
    // TFLite divides the scales in float, then widens the quotient.
    quant::quantizeMultiplier(static_cast<double>(in.tensor->scale / out.tensor->scale), &multiplier, &shift);
    const bool rescale = in.tensor->scale != out.tensor->scale;
    const size_t count = in.count();
    for (size_t i = 0; i < count; ++i) {
        const int32_t value = std::abs(static_cast<int32_t>(in.at<T>(i)) - in.tensor->zeroPoint);
        const int32_t scaled = rescale ? quant::multiplyByQuantizedMultiplier(value, multiplier, shift) : value;
        out.set<T>(i, static_cast<T>(std::clamp<int32_t>(scaled + out.tensor->zeroPoint, std::numeric_limits<T>::min(),
                                                         std::numeric_limits<T>::max())));
    }
}

}  // namespace

bool prepareSelectV2(const CpuKernelCall& call) {
    std::vector<int32_t> shape;
    return selectShape(call, &shape) && call.expectOutputShape(0, shape);
}

bool runSelectV2(const CpuKernelCall& call) {
    std::vector<int32_t> shape;
    if (!selectShape(call, &shape) || !call.expectOutputShape(0, shape)) return false;
    const std::vector<size_t> stepC = broadcastSteps(call.in(0).shape(), shape),
                              stepX = broadcastSteps(call.in(1).shape(), shape),
                              stepY = broadcastSteps(call.in(2).shape(), shape);
    const size_t size = elementSize(call.out(0).type()), total = elementCount(shape);
    std::vector<int32_t> index(shape.size(), 0);
    size_t ic = 0, ix = 0, iy = 0;
    for (size_t o = 0; o < total; ++o) {
        const bool pick = call.in(0).at<uint8_t>(ic) != 0;
        std::memcpy(call.out(0).out + o * size, (pick ? call.in(1).data + ix * size : call.in(2).data + iy * size), size);
        for (size_t k = shape.size(); k-- > 0;) {
            ic += stepC[k];
            ix += stepX[k];
            iy += stepY[k];
            if (++index[k] < shape[k]) break;
            const size_t n = static_cast<size_t>(shape[k]);
            ic -= stepC[k] * n;
            ix -= stepX[k] * n;
            iy -= stepY[k] * n;
            index[k] = 0;
        }
    }
    return true;
}

bool preparePow(const CpuKernelCall& call) { return prepareBroadcastBinary(call, {ElementType::INT32, ElementType::INT64}); }

bool runPow(const CpuKernelCall& call) {
    if (!preparePow(call)) return false;
    return call.in(0).type() == ElementType::INT32 ? powAs<int32_t>(call) : powAs<int64_t>(call);
}

bool prepareAbs(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1)) return false;
    if (!call.expectType(call.in(0), {ElementType::INT8, ElementType::INT16}, "input")) return false;
    if (call.out(0).type() != call.in(0).type()) return call.fail("output type differs from the input's");
    if (!(call.in(0).tensor->scale > 0) || !(call.out(0).tensor->scale > 0)) {
        return call.fail("quantized input and output need scales");
    }
    return call.expectOutputShape(0, call.in(0).shape());
}

bool runAbs(const CpuKernelCall& call) {
    if (!prepareAbs(call)) return false;
    if (call.in(0).type() == ElementType::INT8) {
        absAs<int8_t>(call);
    } else {
        absAs<int16_t>(call);
    }
    return true;
}

}  // namespace kernels::select_pow_abs
}  // namespace nnemu::tflite
