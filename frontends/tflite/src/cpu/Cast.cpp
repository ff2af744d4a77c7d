// CAST among float32, int16, int32, int64, uint8, int8 and bool with TFLite's semantics: a C++
// conversion of the stored value (quantization is ignored; floats out of an integer's range as
// x86 truncates them), to bool as "not zero", from bool as 0 or 1. NNAPI at feature level 29 has no int64, bool or int8 form of it.
#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::cast {

struct Bool {};   // stored as one byte, 0 or 1

template <typename F>
bool withType(ElementType type, F&& f) {
    switch (type) {
        case ElementType::FLOAT32: f(float{}); return true;
        case ElementType::INT16: f(int16_t{}); return true;
        case ElementType::INT32: f(int32_t{}); return true;
        case ElementType::INT64: f(int64_t{}); return true;
        case ElementType::UINT8: f(uint8_t{}); return true;
        case ElementType::INT8: f(int8_t{}); return true;
        case ElementType::BOOL: f(Bool{}); return true;
        default: return false;
    }
}

template <typename From, typename To>
void convert(const CpuOperand& in, const CpuOperand& out) {
    const size_t count = in.count();
    for (size_t i = 0; i < count; ++i) {
        if constexpr (std::is_same_v<From, Bool>) {
            const bool value = in.at<uint8_t>(i) != 0;
            if constexpr (std::is_same_v<To, Bool>) {
                out.set<uint8_t>(i, value ? 1 : 0);
            } else {
                out.set<To>(i, static_cast<To>(value ? 1 : 0));
            }
        } else if constexpr (std::is_same_v<To, Bool>) {
            out.set<uint8_t>(i, in.at<From>(i) != From{} ? 1 : 0);
        } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
            out.set<To>(i, truncateLikeX86<To>(in.at<From>(i)));
        } else {
            out.set<To>(i, static_cast<To>(in.at<From>(i)));  // integers: modulo 2^bits
        }
    }
}

bool prepareCast(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1)) return false;
    const auto known = [](ElementType type) { return withType(type, [](auto) {}); };
    if (!known(call.in(0).type())) return call.fail(std::string("input type ") + elementTypeName(call.in(0).type()) + " is not supported");
    if (!known(call.out(0).type())) return call.fail(std::string("output type ") + elementTypeName(call.out(0).type()) + " is not supported");
    return call.expectOutputShape(0, call.in(0).shape());
}

bool runCast(const CpuKernelCall& call) {
    if (!prepareCast(call)) return false;
    withType(call.in(0).type(), [&](auto from) {
        withType(call.out(0).type(), [&](auto to) { convert<decltype(from), decltype(to)>(call.in(0), call.out(0)); });
    });
    return true;
}

// BITCAST: the same bytes as another type. A wider input type adds a last dimension of
// (input size / output size) elements, a narrower one removes a last dimension that must hold
// (output size / input size) elements; equal sizes keep the shape.
bool prepareBitcast(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1)) return false;
    const size_t from = elementSize(call.in(0).type()), to = elementSize(call.out(0).type());
    if (from == 0 || to == 0) return call.fail("the input and output types must be plain numbers");
    std::vector<int32_t> shape = call.in(0).shape();
    if (from > to) {
        shape.push_back(static_cast<int32_t>(from / to));
    } else if (from < to) {
        if (shape.empty() || static_cast<size_t>(shape.back()) != to / from) {
            return call.fail("the input's last dimension must be " + std::to_string(to / from) + " (" +
                             elementTypeName(call.out(0).type()) + " from " + elementTypeName(call.in(0).type()) + ")");
        }
        shape.pop_back();
    }
    return call.expectOutputShape(0, shape);
}

bool runBitcast(const CpuKernelCall& call) {
    if (!prepareBitcast(call)) return false;
    const size_t bytes = call.in(0).count() * elementSize(call.in(0).type());
    if (bytes != 0 && call.out(0).out != call.in(0).data) std::memcpy(call.out(0).out, call.in(0).data, bytes);
    return true;
}

}  // namespace kernels::cast

}  // namespace nnemu::tflite
