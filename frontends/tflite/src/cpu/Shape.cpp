// SHAPE (the input's dimensions as int32 or int64), UNPACK (split along an axis into `num`
// tensors of one rank less): TFLite operators NNAPI has no form of; SPLIT_V (split along an axis
// into parts of the given sizes) in the forms TFLite's NNAPI delegate does not lower.
#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::shape {

bool prepareShape(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1)) return false;
    if (!call.expectType(call.out(0), {ElementType::INT32, ElementType::INT64}, "output")) return false;
    const auto* options = call.params<TfLiteShapeParams>();
    if (options != nullptr) {
        const bool wants64 = options->out_type == kTfLiteInt64;
        if (wants64 != (call.out(0).type() == ElementType::INT64)) return call.fail("output type differs from out_type");
    }
    return call.expectOutputShape(0, {static_cast<int32_t>(call.in(0).rank())});
}

bool runShape(const CpuKernelCall& call) {
    if (!prepareShape(call)) return false;
    for (size_t d = 0; d < call.in(0).rank(); ++d) setIndex(call.out(0), d, call.in(0).shape()[d]);
    return true;
}

bool unpackAxis(const CpuKernelCall& call, size_t* axis) {
    const auto* options = call.params<TfLiteUnpackParams>();
    if (call.inputs.size() != 1 || !call.in(0).present()) return call.fail("expects one input");
    const CpuOperand& in = call.in(0);
    if (in.rank() == 0) return call.fail("input must have rank 1 or more");
    if (!normalizeAxis(call, options ? options->axis : 0, in.rank(), axis)) return false;
    const int32_t num = options ? options->num : 0;
    if (in.shape()[*axis] != static_cast<int32_t>(call.outputs.size()) || (num != 0 && num != in.shape()[*axis])) {
        return call.fail("num " + std::to_string(num) + " and " + std::to_string(call.outputs.size()) +
                         " outputs must equal dimension " + std::to_string(*axis) + " (" +
                         std::to_string(in.shape()[*axis]) + ")");
    }
    std::vector<int32_t> shape = in.shape();
    shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(*axis));
    for (size_t o = 0; o < call.outputs.size(); ++o) {
        if (!call.out(o).present()) return call.fail("output " + std::to_string(o) + " is absent");
        if (call.out(o).type() != in.type()) return call.fail("output type differs from the input's");
        if (!call.expectOutputShape(o, shape)) return false;
    }
    return elementSize(in.type()) != 0 || call.fail("input type is not supported");
}

bool prepareUnpack(const CpuKernelCall& call) {
    size_t axis = 0;
    return unpackAxis(call, &axis);
}

// Copies consecutive parts of the input along `axis`, `parts[p]` elements of that dimension
// to output p (UNPACK: one each, SPLIT_V: its sizes).
void splitAlongAxis(const CpuKernelCall& call, size_t axis, const std::vector<int64_t>& parts) {
    const std::vector<int32_t>& shape = call.in(0).shape();
    size_t outer = 1, inner = elementSize(call.in(0).type());
    for (size_t d = 0; d < axis; ++d) outer *= static_cast<size_t>(shape[d]);
    for (size_t d = axis + 1; d < shape.size(); ++d) inner *= static_cast<size_t>(shape[d]);
    const size_t row = static_cast<size_t>(shape[axis]) * inner;
    for (size_t o = 0; o < outer; ++o) {
        size_t offset = o * row;
        for (size_t p = 0; p < parts.size(); ++p) {
            const size_t bytes = static_cast<size_t>(parts[p]) * inner;
            if (bytes != 0) std::memcpy(call.out(p).out + o * bytes, call.in(0).data + offset, bytes);
            offset += bytes;
        }
    }
}

bool runUnpack(const CpuKernelCall& call) {
    size_t axis = 0;
    if (!unpackAxis(call, &axis)) return false;
    splitAlongAxis(call, axis, std::vector<int64_t>(call.outputs.size(), 1));
    return true;
}

// SPLIT_V as TFLite's kernel: value, size_splits (int32 or int64, one per output, at most one
// -1 for the rest), axis (int32 scalar or one-element). Outputs take the input's type, sized
// when sizes and axis are known (at prepare for constants, else at invoke).
bool splitVSizes(const CpuKernelCall& call, size_t* axis, std::vector<int64_t>* sizes, bool* known) {
    if (!call.expectCounts(3, 3, call.outputs.size())) return false;
    const auto* options = call.params<TfLiteSplitVParams>();
    if (options == nullptr || options->num_splits != static_cast<int32_t>(call.outputs.size()) || call.outputs.empty()) {
        return call.fail("num_splits must equal the " + std::to_string(call.outputs.size()) + " outputs");
    }
    const CpuOperand& in = call.in(0);
    if (!call.expectType(in, {ElementType::FLOAT32, ElementType::UINT8, ElementType::INT8, ElementType::INT16,
                              ElementType::INT32, ElementType::INT64},
                         "input")) {
        return false;
    }
    for (size_t o = 0; o < call.outputs.size(); ++o) {
        if (!call.out(o).present() || call.out(o).type() != in.type()) {
            return call.fail("output " + std::to_string(o) + " must have the input's type");
        }
    }
    if (call.in(1).rank() != 1 || call.in(1).count() != call.outputs.size()) {
        return call.fail("size_splits must be a vector of one size per output");
    }
    if (!call.expectType(call.in(2), {ElementType::INT32}, "axis") || call.in(2).count() != 1) {
        return call.fail("axis must be one int32 value");
    }
    if (!call.ints(1, sizes, known)) return false;
    if (!*known || !call.in(2).known()) {
        *known = false;
        return true;
    }
    if (in.rank() == 0) return call.fail("input must have rank 1 or more");
    if (!normalizeAxis(call, call.in(2).at<int32_t>(0), in.rank(), axis)) return false;
    const int64_t dimension = in.shape()[*axis];
    int64_t sum = 0;
    size_t unknown = sizes->size();
    for (size_t i = 0; i < sizes->size(); ++i) {
        const int64_t size = (*sizes)[i];
        if (size == -1 && unknown == sizes->size()) {
            unknown = i;
        } else if (size < 0) {
            return call.fail(size == -1 ? "size_splits contains more than one -1"
                                        : "size_splits value " + std::to_string(size) + " is negative");
        } else {
            sum += size;
        }
    }
    if (unknown < sizes->size() ? sum > dimension : sum != dimension) {
        return call.fail("size_splits sum to " + std::to_string(sum) + ", dimension " + std::to_string(*axis) +
                         " of the input is " + std::to_string(dimension));
    }
    if (unknown < sizes->size()) (*sizes)[unknown] = dimension - sum;
    std::vector<int32_t> shape = in.shape();
    for (size_t o = 0; o < sizes->size(); ++o) {
        shape[*axis] = static_cast<int32_t>((*sizes)[o]);
        if (!call.expectOutputShape(o, shape)) return false;
    }
    return true;
}

bool prepareSplitV(const CpuKernelCall& call) {
    size_t axis = 0;
    std::vector<int64_t> sizes;
    bool known = false;
    return splitVSizes(call, &axis, &sizes, &known);
}

bool runSplitV(const CpuKernelCall& call) {
    size_t axis = 0;
    std::vector<int64_t> sizes;
    bool known = false;
    if (!splitVSizes(call, &axis, &sizes, &known)) return false;
    if (!known) return call.fail("size_splits and axis must be known at invoke");
    splitAlongAxis(call, axis, sizes);
    return true;
}

}  // namespace kernels::shape

}  // namespace nnemu::tflite
