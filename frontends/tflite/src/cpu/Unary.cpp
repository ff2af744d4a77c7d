// One-input builtins TFLite runs on its own kernels and NNAPI at feature level 29 cannot express:
// SQUARE, CEIL and ROUND (float32), SIGN (float32, int32), ZEROS_LIKE (float32, int32, int64) and
// RANK (any input, an int32 scalar). ROUND rounds halves to even as TFLite's kernel does, from
// the floor (so -0.4 gives +0, as in TFLite, not -0). SIGN gives 0 for zero and NaN.
#include <cmath>
#include <cstring>

#include "CpuKernelList.h"
#include "Elementwise.h"

namespace nnemu::tflite {

bool prepareSameShape(const CpuKernelCall& call, std::initializer_list<ElementType> types) {
    if (!call.expectCounts(1, 1, 1)) return false;
    if (!call.expectType(call.in(0), types, "input")) return false;
    if (call.out(0).type() != call.in(0).type()) {
        return call.fail(std::string("output type ") + elementTypeName(call.out(0).type()) + " differs from the input's " +
                         elementTypeName(call.in(0).type()));
    }
    return call.expectOutputShape(0, call.in(0).shape());
}

bool prepareFixedOutput8(const CpuKernelCall& call, float scale, const char* scaleText, int32_t uint8Zero,
                         int32_t int8Zero) {
    if (!prepareSameShape(call, {ElementType::UINT8, ElementType::INT8})) return false;
    if (call.in(0).rank() == 0) return call.fail("input must have at least one dimension");
    if (!(call.in(0).tensor->scale > 0)) return call.fail("quantized input needs a scale");
    const int32_t zero = call.in(0).type() == ElementType::UINT8 ? uint8Zero : int8Zero;
    if (call.out(0).tensor->scale != scale || call.out(0).tensor->zeroPoint != zero) {
        return call.fail(std::string("output must have scale ") + scaleText + " and zero point " + std::to_string(zero));
    }
    return true;
}

namespace kernels::unary {

// TFLite's rounding: from the floor, halves to the even neighbour.
float roundHalfToEven(float value) {
    const float low = std::floor(value);
    const float fraction = value - low;
    if (fraction < 0.5f || (fraction == 0.5f && static_cast<int>(low) % 2 == 0)) return low;
    return low + 1.0f;
}

bool prepareFloat(const CpuKernelCall& call) { return prepareSameShape(call, {ElementType::FLOAT32}); }

bool runSquare(const CpuKernelCall& call) {
    if (!prepareFloat(call)) return false;
    mapElements<float>(call, [](float x) { return x * x; });
    return true;
}

bool runCeil(const CpuKernelCall& call) {
    if (!prepareFloat(call)) return false;
    mapElements<float>(call, [](float x) { return std::ceil(x); });
    return true;
}

bool runRound(const CpuKernelCall& call) {
    if (!prepareFloat(call)) return false;
    mapElements<float>(call, [](float x) { return roundHalfToEven(x); });
    return true;
}

template <typename T>
T sign(T x) {
    return x > 0 ? T(1) : x < 0 ? T(-1) : T(0);
}

bool prepareSign(const CpuKernelCall& call) { return prepareSameShape(call, {ElementType::FLOAT32, ElementType::INT32}); }

bool runSign(const CpuKernelCall& call) {
    if (!prepareSign(call)) return false;
    if (call.in(0).type() == ElementType::FLOAT32) {
        mapElements<float>(call, [](float x) { return sign(x); });
    } else {
        mapElements<int32_t>(call, [](int32_t x) { return sign(x); });
    }
    return true;
}

bool prepareZerosLike(const CpuKernelCall& call) {
    return prepareSameShape(call, {ElementType::FLOAT32, ElementType::INT32, ElementType::INT64});
}

bool runZerosLike(const CpuKernelCall& call) {
    if (!prepareZerosLike(call)) return false;
    const size_t bytes = call.out(0).count() * elementSize(call.out(0).type());
    if (bytes != 0) std::memset(call.out(0).out, 0, bytes);
    return true;
}

bool prepareRank(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1)) return false;
    if (!call.expectType(call.out(0), {ElementType::INT32}, "output")) return false;
    return call.expectOutputShape(0, {});
}

bool runRank(const CpuKernelCall& call) {
    if (!prepareRank(call)) return false;
    call.out(0).set<int32_t>(0, static_cast<int32_t>(call.in(0).rank()));
    return true;
}

}  // namespace kernels::unary

}  // namespace nnemu::tflite
