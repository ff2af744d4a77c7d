// BITWISE_XOR and RIGHT_SHIFT over 8-, 16- and 32-bit integers with broadcasting, as TFLite's
// kernels: the shift count is clamped to [0, bits - 1], signed values shift arithmetically.
// (TFLite also takes uint16 and uint32, which the front end's tensor types do not have yet.)
#include <climits>
#include <type_traits>

#include "Broadcast.h"
#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::bitwise {

bool prepareBitwise(const CpuKernelCall& call) {
    return prepareBroadcastBinary(call, {ElementType::INT8, ElementType::UINT8, ElementType::INT16, ElementType::INT32});
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

bool runBitwiseXor(const CpuKernelCall& call) { return run<BitwiseXor>(call); }
bool runRightShift(const CpuKernelCall& call) { return run<RightShift>(call); }

}  // namespace kernels::bitwise

}  // namespace nnemu::tflite
