// DENSIFY as TFLite's kernel: a constant sparse tensor (pruned weights) expanded to its dense
// shape and type (float32, int8; TFLite's float16 is no element type of nnemu's), the encoding
// checked as it is walked (SparseTensor.cpp). The input must be a constant with sparsity
// parameters, as TFLite's Prepare requires.
#include "../SparseTensor.h"
#include "CpuKernel.h"

namespace nnemu::tflite {
namespace {

bool prepareDensify(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1)) return false;
    const CpuOperand& input = call.in(0);
    if (!input.tensor->isConstant || input.tensor->sparsity == nullptr) {
        return call.fail("input must be a constant sparse tensor");
    }
    if (!call.expectType(input, {ElementType::FLOAT32, ElementType::INT8}, "input") ||
        !call.expectType(call.out(0), {input.type()}, "output")) {
        return false;
    }
    if (!call.expectOutputShape(0, input.shape())) return false;
    // The whole encoding is checked once here, so that a malformed one fails when the model loads.
    const Status valid = densify(*input.tensor->sparsity, input.shape(), elementSize(input.type()), input.data,
                                 input.tensor->dataSize, nullptr);
    return valid ? true : call.fail(valid.message());
}

// The dense tensor is computed once (TFLite too densifies only in its first invoke) and copied
// into the output at every invoke (the unit may convert the output's int8 in place afterwards).
bool runDensify(const CpuKernelCall& call) {
    if (*call.state == nullptr) {
        if (!prepareDensify(call)) return false;
        const Tensor& input = *call.in(0).tensor;
        auto dense = std::make_shared<std::vector<uint8_t>>(input.byteSize());
        const Status done = densify(*input.sparsity, input.shape, elementSize(input.type), input.data, input.dataSize,
                                    dense->data());
        if (!done) return call.fail(done.message());
        *call.state = std::move(dense);
    }
    const auto& dense = *static_cast<const std::vector<uint8_t>*>(call.state->get());
    if (!dense.empty()) std::memcpy(call.out(0).out, dense.data(), dense.size());
    return true;
}

}  // namespace

void addDensifyKernels(CpuKernelTable& table) { table.add(fb::BuiltinOperator_DENSIFY, {prepareDensify, runDensify}); }

}  // namespace nnemu::tflite
