// EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER and GREATER_EQUAL of 8-bit quantized tensors as
// TFLite's builtin kernel compares them: each offset value shifted left by 8 and multiplied by
// its own scale as a Q31 multiplier (a fixed-point product rounded to an integer), the two
// integers compared. Values a step apart can round to the same integer where the scales are
// small, so the result is not the exact comparison of the real values NNAPI's reference makes.
// With broadcasting.
#include <cstdint>

#include "Broadcast.h"
#include "CpuKernelList.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite {
namespace kernels::comparison {
namespace {

enum class Relation { kEqual, kNotEqual, kLess, kLessEqual, kGreater, kGreaterEqual };

bool holds(Relation relation, int32_t a, int32_t b) {
    switch (relation) {
        case Relation::kEqual: return a == b;
        case Relation::kNotEqual: return a != b;
        case Relation::kLess: return a < b;
        case Relation::kLessEqual: return a <= b;
        case Relation::kGreater: return a > b;
        default: return a >= b;
    }
}

// An input's stored values as TFLite scales them for the comparison.
struct Scaling {
    int32_t zeroPoint = 0, multiplier = 0;
    int shift = 0;

    explicit Scaling(const Tensor& tensor) : zeroPoint(static_cast<int32_t>(tensor.zeroPoint)) {
        quant::quantizeMultiplier(static_cast<double>(tensor.scale), &multiplier, &shift);
    }
    int32_t operator()(int32_t stored) const {
        // The offset value shifted left by 8 in int32, wrapping as TFLite's x86 build does (zero
        // points far outside the type).
        const uint32_t offset = static_cast<uint32_t>(stored) - static_cast<uint32_t>(zeroPoint);
        return quant::multiplyByQuantizedMultiplier(static_cast<int32_t>(offset << 8), multiplier, shift);
    }
};

template <typename T>
void compare(const CpuKernelCall& call, Relation relation) {
    const CpuOperand &a = call.in(0), &b = call.in(1);
    const Scaling scaleA(*a.tensor), scaleB(*b.tensor);
    std::vector<int32_t> shape;
    broadcastShape(a.shape(), b.shape(), &shape);
    forEachBroadcast(a.shape(), b.shape(), shape, [&](size_t o, size_t ia, size_t ib) {
        call.out(0).set<uint8_t>(o, holds(relation, scaleA(a.at<T>(ia)), scaleB(b.at<T>(ib))) ? 1 : 0);
    });
}

bool run(const CpuKernelCall& call, Relation relation) {
    if (!prepareQuantized(call)) return false;
    if (call.in(0).type() == ElementType::UINT8) {
        compare<uint8_t>(call, relation);
    } else {
        compare<int8_t>(call, relation);
    }
    return true;
}

}  // namespace

bool prepareQuantized(const CpuKernelCall& call) {
    if (!call.expectCounts(2, 2, 1)) return false;
    if (!call.expectType(call.in(0), {ElementType::UINT8, ElementType::INT8}, "input")) return false;
    if (call.in(1).type() != call.in(0).type()) return call.fail("inputs must have the same type");
    if (call.out(0).type() != ElementType::BOOL) return call.fail("output must be bool");
    if (!(call.in(0).tensor->scale > 0) || !(call.in(1).tensor->scale > 0)) return call.fail("quantized inputs need scales");
    std::vector<int32_t> shape;
    if (!broadcastShape(call.in(0).shape(), call.in(1).shape(), &shape)) return call.fail("input shapes do not broadcast");
    return call.expectOutputShape(0, shape);
}

bool runEqual(const CpuKernelCall& call) { return run(call, Relation::kEqual); }
bool runNotEqual(const CpuKernelCall& call) { return run(call, Relation::kNotEqual); }
bool runLess(const CpuKernelCall& call) { return run(call, Relation::kLess); }
bool runLessEqual(const CpuKernelCall& call) { return run(call, Relation::kLessEqual); }
bool runGreater(const CpuKernelCall& call) { return run(call, Relation::kGreater); }
bool runGreaterEqual(const CpuKernelCall& call) { return run(call, Relation::kGreaterEqual); }

}  // namespace kernels::comparison
}  // namespace nnemu::tflite
