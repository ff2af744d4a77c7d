// SHAPE (the input's dimensions as int32 or int64) and UNPACK (split along an axis into `num`
// tensors of one rank less): TFLite operators NNAPI has no form of.
#include "CpuKernel.h"

namespace nnemu::tflite {
namespace {

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
    return in.type() != ElementType::OTHER || call.fail("input type is not supported");
}

bool prepareUnpack(const CpuKernelCall& call) {
    size_t axis = 0;
    return unpackAxis(call, &axis);
}

bool runUnpack(const CpuKernelCall& call) {
    size_t axis = 0;
    if (!unpackAxis(call, &axis)) return false;
    const std::vector<int32_t>& shape = call.in(0).shape();
    size_t outer = 1, inner = elementSize(call.in(0).type());
    for (size_t d = 0; d < axis; ++d) outer *= static_cast<size_t>(shape[d]);
    for (size_t d = axis + 1; d < shape.size(); ++d) inner *= static_cast<size_t>(shape[d]);
    const size_t parts = call.outputs.size();
    for (size_t o = 0; o < outer; ++o) {
        for (size_t p = 0; p < parts; ++p) {
            std::memcpy(call.out(p).out + o * inner, call.in(0).data + (o * parts + p) * inner, inner);
        }
    }
    return true;
}

}  // namespace

void addShapeKernels(CpuKernelTable& table) {
    table.add(fb::BuiltinOperator_SHAPE, {prepareShape, runShape});
    table.add(fb::BuiltinOperator_UNPACK, {prepareUnpack, runUnpack});
}

}  // namespace nnemu::tflite
