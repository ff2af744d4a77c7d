// ADD_N (float32, int32: two or more inputs of one shape, summed in input order; int32 wraps
// around) and ATAN2 (float32: atan2(y, x) of two inputs of one shape), as TFLite's kernels.
// Neither broadcasts in TFLite.
#include <cmath>
#include <cstring>

#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::add_n_atan2 {

bool sameShapeInputs(const CpuKernelCall& call, std::initializer_list<ElementType> types) {
    if (!call.expectType(call.in(0), types, "input")) return false;
    for (size_t i = 1; i < call.inputs.size(); ++i) {
        if (call.in(i).type() != call.in(0).type()) return call.fail("inputs must have the same type");
        if (call.in(i).shape() != call.in(0).shape()) {
            return call.fail("input " + std::to_string(i) + " of shape " + shapeText(call.in(i).shape()) +
                             " differs from input 0's " + shapeText(call.in(0).shape()));
        }
    }
    if (call.out(0).type() != call.in(0).type()) return call.fail("output type differs from the inputs'");
    return call.expectOutputShape(0, call.in(0).shape());
}

bool prepareAddN(const CpuKernelCall& call) {
    if (call.inputs.size() < 2) return call.fail("ADD_N needs at least 2 inputs");
    if (!call.expectCounts(call.inputs.size(), call.inputs.size(), 1)) return false;
    return sameShapeInputs(call, {ElementType::FLOAT32, ElementType::INT32});
}

// Sums from 0 in input order, as TFLite's kernel (so -0 + -0 gives +0): one pass over the
// output per input after the first two.
template <typename T, typename Acc>
void addN(const CpuKernelCall& call) {
    const CpuOperand& out = call.out(0);
    const size_t count = out.count();
    const auto add = [](T a, T b) { return static_cast<T>(static_cast<Acc>(a) + static_cast<Acc>(b)); };
    for (size_t i = 0; i < count; ++i) {
        out.set<T>(i, add(add(T(0), call.in(0).at<T>(i)), call.in(1).at<T>(i)));
    }
    for (size_t k = 2; k < call.inputs.size(); ++k) {
        const CpuOperand& in = call.in(k);
        for (size_t i = 0; i < count; ++i) {
            T sum;
            std::memcpy(&sum, out.out + i * sizeof(T), sizeof(T));
            out.set<T>(i, add(sum, in.at<T>(i)));
        }
    }
}

bool runAddN(const CpuKernelCall& call) {
    if (!prepareAddN(call)) return false;
    if (call.in(0).type() == ElementType::FLOAT32) {
        addN<float, float>(call);
    } else {
        addN<int32_t, uint32_t>(call);
    }
    return true;
}

bool prepareAtan2(const CpuKernelCall& call) {
    return call.expectCounts(2, 2, 1) && sameShapeInputs(call, {ElementType::FLOAT32});
}

bool runAtan2(const CpuKernelCall& call) {
    if (!prepareAtan2(call)) return false;
    const CpuOperand &y = call.in(0), &x = call.in(1), &out = call.out(0);
    const size_t count = out.count();
    for (size_t i = 0; i < count; ++i) out.set<float>(i, std::atan2(y.at<float>(i), x.at<float>(i)));
    return true;
}

}  // namespace kernels::add_n_atan2

}  // namespace nnemu::tflite
