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

bool runDensify(const CpuKernelCall& call) {
    if (!prepareDensify(call)) return false;
    const Tensor& input = *call.in(0).tensor;
    const Status done = densify(*input.sparsity, input.shape, elementSize(input.type), input.data, input.dataSize,
                                call.out(0).out);
    return done ? true : call.fail(done.message());
}

}  // namespace

void addDensifyKernels(CpuKernelTable& table) { table.add(fb::BuiltinOperator_DENSIFY, {prepareDensify, runDensify}); }

}  // namespace nnemu::tflite
