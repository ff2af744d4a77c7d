// RESHAPE, CONCATENATION, PAD, RESIZE_BILINEAR, QUANTIZE, DEQUANTIZE and CHANNEL_SHUFFLE.
#include "../Lowering.h"
#include "nnemu/hal/Axis.h"
#include "LoweringList.h"

namespace nnemu::synap {
namespace {

using hal::OperandType;
using hal::OperationContext;

bool sameQuantization(const OperationContext& context) {
    const auto& in = context.input(0);
    const auto& out = context.output(0);
    return !isQuant8(in.type) || (in.scale == out.scale && in.zeroPoint == out.zeroPoint);
}

}  // namespace

bool lowering::supportsReshape(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 2 && isFloatOrAnyQuant8(context.inputType(0)));
    NN_RET_CHECK(context.output(0).type == context.inputType(0) && sameQuantization(context));
    return context.hasValue(1);  // the core's reshape is static
}

bool lowering::lowerReshape(const OperationContext&, ProgramBuilder& builder) {
    npu::LayerParamsUnion params;
    params.Set(npu::ReshapeT{});
    builder.addLayer("Reshape", std::move(params), {builder.input(0)}, {builder.output(0)});
    return true;
}

// Any number of same-type tensors of rank <= 4 along a constant axis; quantized inputs with
// other scales are requantized to the output's.
bool lowering::supportsConcatenation(const OperationContext& context) {
    const uint32_t count = context.numInputs();
    NN_RET_CHECK(count >= 2 && context.hasValue(count - 1) && context.inputType(count - 1) == OperandType::INT32);
    const OperandType type = context.output(0).type;
    NN_RET_CHECK(isFloatOrAnyQuant8(type));
    const auto rank = static_cast<int32_t>(context.input(0).rank());
    NN_RET_CHECK(rank >= 1 && rank <= 4);
    const auto axis = context.scalar<int32_t>(count - 1);
    NN_RET_CHECK(axis >= -rank && axis < rank);
    for (uint32_t i = 0; i + 1 < count; ++i) {
        NN_RET_CHECK(context.inputType(i) == type && context.input(i).rank() == context.input(0).rank());
    }
    return true;
}

bool lowering::lowerConcatenation(const OperationContext& context, ProgramBuilder& builder) {
    const uint32_t count = context.numInputs();
    const auto rank = static_cast<int32_t>(context.input(0).rank());
    const auto axis = context.scalar<int32_t>(count - 1);
    npu::ConcatenationT concat;
    concat.axis = static_cast<uint32_t>(axis < 0 ? axis + rank : axis);
    std::vector<uint32_t> inputs;
    for (uint32_t i = 0; i + 1 < count; ++i) inputs.push_back(builder.input(i));
    npu::LayerParamsUnion params;
    params.Set(std::move(concat));
    builder.addLayer("Concatenation", std::move(params), std::move(inputs), {builder.output(0)});
    return true;
}

// PAD with the logical zero (the zero point when quantized), constant paddings.
bool lowering::supportsPad(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 2 && isFloatOrAnyQuant8(context.inputType(0)));
    NN_RET_CHECK(context.output(0).type == context.inputType(0) && sameQuantization(context));
    NN_RET_CHECK(context.hasValue(1) && context.inputType(1) == OperandType::TENSOR_INT32);
    const auto& paddings = context.input(1);
    for (uint64_t i = 0; i < paddings.elements(); ++i) NN_RET_CHECK(paddings.as<int32_t>()[i] >= 0);
    return hal::rankAtMostOrUnknown(context.input(0), 4);
}

bool lowering::lowerPad(const OperationContext& context, ProgramBuilder& builder) {
    npu::ConstantPadT pad;
    const auto* paddings = context.input(1).as<int32_t>();
    for (uint32_t axis = 0; axis < context.input(0).rank(); ++axis) {
        pad.before.push_back(static_cast<uint32_t>(paddings[2 * axis]));
        pad.after.push_back(static_cast<uint32_t>(paddings[2 * axis + 1]));
    }
    npu::LayerParamsUnion params;
    params.Set(std::move(pad));
    builder.addLayer("Pad", std::move(params), {builder.input(0)}, {builder.output(0)});
    return true;
}

// Float NHWC bilinear resize with NNAPI's (legacy TensorFlow) sampling.
bool lowering::supportsResizeBilinear(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 3 || context.numInputs() == 4);
    NN_RET_CHECK(context.inputType(0) == OperandType::TENSOR_FLOAT32 &&
                 context.output(0).type == OperandType::TENSOR_FLOAT32);
    NN_RET_CHECK(context.hasValue(1) && context.hasValue(2) && isNhwc(context, 3));
    return hal::rankIsOrUnknown(context.input(0), 4);
}

bool lowering::lowerResizeBilinear(const OperationContext& context, ProgramBuilder& builder) {
    const auto& out = context.output(0).dims;
    npu::ResizeBilinearT resize;
    resize.output_height = out[1];
    resize.output_width = out[2];
    npu::LayerParamsUnion params;
    params.Set(std::move(resize));
    builder.addLayer("ResizeBilinear", std::move(params), {builder.input(0)}, {builder.output(0)});
    return true;
}

bool lowering::supportsQuantize(const OperationContext& context) {
    return context.numInputs() == 1 && context.inputType(0) == OperandType::TENSOR_FLOAT32 &&
           isQuant8(context.output(0).type);
}

bool lowering::lowerConvert(const OperationContext& context, ProgramBuilder& builder) {
    npu::LayerParamsUnion params;
    params.Set(npu::ConvertT{});
    const bool toFloat = context.output(0).type == OperandType::TENSOR_FLOAT32;
    builder.addLayer(toFloat ? "Dequantize" : "Quantize", std::move(params), {builder.input(0)},
                     {builder.output(0)});
    return true;
}

bool lowering::supportsDequantize(const OperationContext& context) {
    return context.numInputs() == 1 && isQuant8(context.inputType(0)) &&
           context.output(0).type == OperandType::TENSOR_FLOAT32;
}

// A pure data move the core makes itself, so of every type NNAPI allows.
bool lowering::supportsChannelShuffle(const OperationContext& context) {
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(context.numInputs() == 3 && (isFloatOrAnyQuant8(type) || type == OperandType::TENSOR_FLOAT16));
    NN_RET_CHECK(context.output(0).type == context.inputType(0) && sameQuantization(context));
    NN_RET_CHECK(context.hasValue(1) && context.hasValue(2));
    return hal::rankAtMostOrUnknown(context.input(0), 4);
}

bool lowering::lowerChannelShuffle(const OperationContext& context, ProgramBuilder& builder) {
    npu::ChannelShuffleT shuffle;
    const int32_t groups = context.scalar<int32_t>(1);
    if (groups < 1 || !hal::resolveAxis(context.scalar<int32_t>(2), context.input(0).rank(), &shuffle.axis)) {
        return false;
    }
    shuffle.groups = static_cast<uint32_t>(groups);
    npu::LayerParamsUnion params;
    params.Set(std::move(shuffle));
    builder.addLayer("ChannelShuffle", std::move(params), {builder.input(0)}, {builder.output(0)});
    return true;
}

}  // namespace nnemu::synap
