// CUMSUM: running sums along an axis (an int32 scalar tensor, read at invoke as TFLite does),
// exclusive (each output leaves its own element out) and/or reverse (summed from the end). float32
// sums in order, one addition per step as TFLite's kernel; int32 and int64 wrap on overflow.
#include <type_traits>

#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::scan {

bool prepareCumsum(const CpuKernelCall& call) {
    if (!call.expectCounts(2, 2, 1)) return false;
    const CpuOperand& in = call.in(0);
    if (!call.expectType(in, {ElementType::FLOAT32, ElementType::INT32, ElementType::INT64}, "input")) return false;
    if (!call.expectType(call.in(1), {ElementType::INT32}, "axis")) return false;
    if (call.in(1).count() != 1) return call.fail("axis must hold one value");
    if (in.rank() == 0) return call.fail("input must have rank 1 or more");
    if (call.out(0).type() != in.type()) return call.fail("output type differs from the input's");
    if (call.params<TfLiteCumsumParams>() == nullptr) return call.fail("has no options");
    if (call.in(1).known()) {
        size_t axis = 0;
        if (!normalizeAxis(call, call.in(1).at<int32_t>(0), in.rank(), &axis)) return false;
    }
    return call.expectOutputShape(0, in.shape());
}

// The type sums are kept in: unsigned for integers (two's complement wrap-around, no undefined
// overflow), T itself otherwise.
template <typename T, bool = std::is_integral_v<T>>
struct SumType {
    using type = T;
};
template <typename T>
struct SumType<T, true> {
    using type = std::make_unsigned_t<T>;
};

template <typename T>
void cumsum(const CpuKernelCall& call, size_t axis, bool exclusive, bool reverse) {
    const std::vector<int32_t>& shape = call.in(0).shape();
    size_t outer = 1, inner = 1;
    for (size_t d = 0; d < axis; ++d) outer *= static_cast<size_t>(shape[d]);
    for (size_t d = axis + 1; d < shape.size(); ++d) inner *= static_cast<size_t>(shape[d]);
    const auto length = static_cast<size_t>(shape[axis]);
    using Sum = typename SumType<T>::type;
    for (size_t o = 0; o < outer; ++o) {
        for (size_t i = 0; i < inner; ++i) {
            Sum sum = 0;
            for (size_t step = 0; step < length; ++step) {
                const size_t k = reverse ? length - 1 - step : step;
                const size_t at = (o * length + k) * inner + i;
                const auto value = static_cast<Sum>(call.in(0).at<T>(at));
                if (!exclusive) sum += value;
                call.out(0).set<T>(at, static_cast<T>(sum));
                if (exclusive) sum += value;
            }
        }
    }
}

bool runCumsum(const CpuKernelCall& call) {
    if (!prepareCumsum(call)) return false;
    size_t axis = 0;
    if (!normalizeAxis(call, call.in(1).at<int32_t>(0), call.in(0).rank(), &axis)) return false;
    const auto* options = call.params<TfLiteCumsumParams>();
    switch (call.in(0).type()) {
        case ElementType::FLOAT32: cumsum<float>(call, axis, options->exclusive, options->reverse); break;
        case ElementType::INT32: cumsum<int32_t>(call, axis, options->exclusive, options->reverse); break;
        default: cumsum<int64_t>(call, axis, options->exclusive, options->reverse); break;
    }
    return true;
}

}  // namespace kernels::scan

}  // namespace nnemu::tflite
