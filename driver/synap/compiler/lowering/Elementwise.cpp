// ADD, SUB and MUL with numpy-style broadcasting and a fused activation; MAXIMUM and MINIMUM.
#include <cmath>

#include "../Lowering.h"
#include "LoweringList.h"

namespace nnemu::synap {
namespace {

using hal::OperandType;
using hal::OperationContext;

bool operandsSupported(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 3 && fuseCodeValid(context, 2));
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatOrAnyQuant8(type) && context.inputType(1) == type && context.output(0).type == type);
    return hal::rankAtMostOrUnknown(context.input(0), 4) && hal::rankAtMostOrUnknown(context.input(1), 4);
}

template <typename Params>
bool lowerBinary(const OperationContext& context, ProgramBuilder& builder, const char* kind) {
    npu::LayerParamsUnion params;
    params.Set(Params{});
    const auto fuse = context.scalar<int32_t>(2);
    auto& layer = builder.addLayer(std::string(kind) + activationName(fuse), std::move(params),
                                   {builder.input(0), builder.input(1)}, {builder.output(0)});
    activationBounds(fuse, &layer.output_min, &layer.output_max);
    return true;
}

template <typename FloatParams, typename QuantizedParams>
bool lowerMaxMin(const OperationContext& context, ProgramBuilder& builder, const char* kind) {
    npu::LayerParamsUnion params;
    if (context.inputType(0) == OperandType::TENSOR_FLOAT32) {
        params.Set(FloatParams{});
    } else {
        params.Set(QuantizedParams{});
    }
    builder.addLayer(kind, std::move(params), {builder.input(0), builder.input(1)}, {builder.output(0)});
    return true;
}

}  // namespace

// The core's quantized add (uint8 or int8) requantizes each input by in/out within [2^-10, 2^8).
bool lowering::supportsAddition(const OperationContext& context) {
    NN_RET_CHECK(operandsSupported(context));
    if (!isQuant8(context.inputType(0))) return true;
    const double out = context.output(0).scale;
    return ratioWithin(context.input(0).scale, out, std::ldexp(1.0, -10), 256.0) &&
           ratioWithin(context.input(1).scale, out, std::ldexp(1.0, -10), 256.0);
}

bool lowering::lowerAdd(const OperationContext& context, ProgramBuilder& builder) {
    return lowerBinary<npu::AddT>(context, builder, "Add");
}

bool lowering::lowerSubtract(const OperationContext& context, ProgramBuilder& builder) {
    return lowerBinary<npu::SubtractT>(context, builder, "Subtract");
}

// The product scale in1·in2/out must lie within [2^-16, 2^8).
bool lowering::supportsMultiplication(const OperationContext& context) {
    NN_RET_CHECK(operandsSupported(context));
    if (!isQuant8(context.inputType(0))) return true;
    return ratioWithin(double{context.input(0).scale} * context.input(1).scale, context.output(0).scale,
                       std::ldexp(1.0, -16), 256.0);
}

bool lowering::lowerMultiply(const OperationContext& context, ProgramBuilder& builder) {
    return lowerBinary<npu::MultiplyT>(context, builder, "Multiply");
}

// Float in the core's XNNPACK, uint8 in the core's own layers (any scales: exact, as NNAPI
// defines them).
bool lowering::supportsMaxMin(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 2);
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatOrQuant8(type) && context.inputType(1) == type && context.output(0).type == type);
    return hal::rankAtMostOrUnknown(context.input(0), 4) && hal::rankAtMostOrUnknown(context.input(1), 4);
}

bool lowering::lowerMaximum(const OperationContext& context, ProgramBuilder& builder) {
    return lowerMaxMin<npu::MaximumT, npu::QuantizedMaximumT>(context, builder, "Maximum");
}

bool lowering::lowerMinimum(const OperationContext& context, ProgramBuilder& builder) {
    return lowerMaxMin<npu::MinimumT, npu::QuantizedMinimumT>(context, builder, "Minimum");
}

}  // namespace nnemu::synap
