// BITWISE_XOR and RIGHT_SHIFT over 8-, 16- and 32-bit integers with broadcasting, as TFLite's
// kernels: the shift count is clamped to [0, bits - 1], signed values shift arithmetically.
// (TFLite also takes uint16 and uint32, which the front end's tensor types do not have yet.)
#include <climits>
#include <type_traits>

#include "Broadcast.h"
#include "CpuKernel.h"

namespace nnemu::tflite {
namespace {

bool prepareBitwise(const CpuKernelCall& call) {
    if (!call.expectCounts(2, 2, 1)) return false;
    if (!call.expectType(call.in(0), {ElementType::INT8, ElementType::UINT8, ElementType::INT16, ElementType::INT32},
                         "input")) {
        return false;
    }
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

struct RightShift {
    template <typename T>
    static T apply(T x, T y) {
        constexpr T kMaxShift = static_cast<T>(sizeof(T) * CHAR_BIT - 1);
        T count = y > kMaxShift ? kMaxShift : y;
        if constexpr (std::is_signed_v<T>) count = y < 0 ? T(0) : count;
        return static_cast<T>(x >> count);
    }
};

struct BitwiseXor {
    template <typename T>
    static T apply(T x, T y) {
        return static_cast<T>(x ^ y);
    }
};

template <typename Op, typename T>
void applyTo(const CpuKernelCall& call) {
    const CpuOperand &a = call.in(0), &b = call.in(1), &out = call.out(0);
    if (a.shape() == b.shape()) {
        const size_t count = a.count();
        for (size_t i = 0; i < count; ++i) out.set<T>(i, Op::apply(a.at<T>(i), b.at<T>(i)));
        return;
    }
    std::vector<int32_t> shape;
    broadcastShape(a.shape(), b.shape(), &shape);
    forEachBroadcast(a.shape(), b.shape(), shape,
                     [&](size_t o, size_t ia, size_t ib) { out.set<T>(o, Op::apply(a.at<T>(ia), b.at<T>(ib))); });
}

template <typename Op>
bool run(const CpuKernelCall& call) {
    if (!prepareBitwise(call)) return false;
    switch (call.in(0).type()) {
        case ElementType::INT8: applyTo<Op, int8_t>(call); break;
        case ElementType::UINT8: applyTo<Op, uint8_t>(call); break;
        case ElementType::INT16: applyTo<Op, int16_t>(call); break;
        default: applyTo<Op, int32_t>(call); break;
    }
    return true;
}

}  // namespace

void addBitwiseKernels(CpuKernelTable& table) {
    table.add(fb::BuiltinOperator_BITWISE_XOR, {prepareBitwise, run<BitwiseXor>});
    table.add(fb::BuiltinOperator_RIGHT_SHIFT, {prepareBitwise, run<RightShift>});
}

}  // namespace nnemu::tflite
