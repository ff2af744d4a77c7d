// Outputs whose size depends on input values, sized at invoke as TFLite's dynamic tensors:
// WHERE (the coordinates of the non-zero elements, int64 [count, rank], in row-major order) and
// UNIQUE (the distinct values of a 1-D input in order of first appearance, and each element's
// index among them, int32 or int64 as the options say).
#include <map>

#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::indexing {

bool prepareWhere(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1)) return false;
    const CpuOperand& condition = call.in(0);
    if (!call.expectType(condition, {ElementType::BOOL, ElementType::FLOAT32, ElementType::INT32, ElementType::INT64,
                                     ElementType::INT8, ElementType::UINT8},
                         "condition")) {
        return false;
    }
    if (condition.rank() == 0) return call.fail("condition must have rank 1 or more");
    return call.expectType(call.out(0), {ElementType::INT64}, "output");
}

template <typename T>
bool isSet(const CpuOperand& operand, size_t i) {
    return operand.at<T>(i) != T(0);
}

bool runWhere(const CpuKernelCall& call) {
    if (!prepareWhere(call)) return false;
    const CpuOperand& condition = call.in(0);
    bool (*set)(const CpuOperand&, size_t) = nullptr;
    switch (condition.type()) {
        case ElementType::FLOAT32: set = isSet<float>; break;   // NaN counts as set, -0 does not
        case ElementType::INT32: set = isSet<int32_t>; break;
        case ElementType::INT64: set = isSet<int64_t>; break;
        case ElementType::INT8: set = isSet<int8_t>; break;
        default: set = isSet<uint8_t>; break;                    // bool and uint8
    }
    const size_t count = condition.count();
    std::vector<size_t> found;
    for (size_t i = 0; i < count; ++i) {
        if (set(condition, i)) found.push_back(i);
    }
    const std::vector<int32_t>& dims = condition.shape();
    const size_t rank = dims.size();
    if (!call.resizeOutput(0, {static_cast<int32_t>(found.size()), static_cast<int32_t>(rank)})) return false;
    for (size_t n = 0; n < found.size(); ++n) {
        size_t rest = found[n];
        for (size_t k = rank; k-- > 0;) {
            const auto dim = static_cast<size_t>(dims[k]);
            call.out(0).set<int64_t>(n * rank + k, static_cast<int64_t>(rest % dim));
            rest /= dim;
        }
    }
    return true;
}

bool prepareUnique(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 2)) return false;
    const CpuOperand& in = call.in(0);
    if (!call.expectType(in, {ElementType::INT8, ElementType::INT16, ElementType::INT32, ElementType::INT64,
                              ElementType::FLOAT32, ElementType::UINT8},
                         "input")) {
        return false;
    }
    if (in.rank() != 1) return call.fail("input must be 1-D");
    if (call.out(0).type() != in.type()) return call.fail("output 0 type differs from the input's");
    const auto* options = call.params<TfLiteUniqueParams>();
    if (options == nullptr || (options->index_out_type != kTfLiteInt32 && options->index_out_type != kTfLiteInt64)) {
        return call.fail("index output type must be int32 or int64 (options)");
    }
    const ElementType index = options->index_out_type == kTfLiteInt64 ? ElementType::INT64 : ElementType::INT32;
    if (call.out(1).type() != index) return call.fail("output 1 type differs from the options' index type");
    return call.expectOutputShape(1, in.shape());
}

template <typename T>
bool unique(const CpuKernelCall& call) {
    const CpuOperand& in = call.in(0);
    const size_t count = in.count();
    std::map<T, int64_t> seen;   // ordered as TFLite's kernel keeps them
    std::vector<T> values;
    for (size_t i = 0; i < count; ++i) {
        const T value = in.at<T>(i);
        const auto [at, inserted] = seen.emplace(value, static_cast<int64_t>(values.size()));
        if (inserted) values.push_back(value);
        setIndex(call.out(1), i, at->second);
    }
    if (!call.resizeOutput(0, {static_cast<int32_t>(values.size())})) return false;
    for (size_t i = 0; i < values.size(); ++i) call.out(0).set<T>(i, values[i]);
    return true;
}

bool runUnique(const CpuKernelCall& call) {
    if (!prepareUnique(call)) return false;
    switch (call.in(0).type()) {
        case ElementType::INT8: return unique<int8_t>(call);
        case ElementType::INT16: return unique<int16_t>(call);
        case ElementType::INT32: return unique<int32_t>(call);
        case ElementType::INT64: return unique<int64_t>(call);
        case ElementType::FLOAT32: return unique<float>(call);
        default: return unique<uint8_t>(call);
    }
}

}  // namespace kernels::indexing

}  // namespace nnemu::tflite
