// RELU, RELU1, RELU6, LOGISTIC, TANH, SOFTMAX, PRELU and (float) HARD_SWISH.
#include "../Lowering.h"
#include "LoweringList.h"

namespace nnemu::synap {
namespace {

using hal::OperandType;
using hal::OperationContext;

bool sameTypeUnary(const OperationContext& context) {
    return context.numInputs() >= 1 && isFloatOrAnyQuant8(context.inputType(0)) &&
           context.output(0).type == context.inputType(0);
}

bool lowerClamp(ProgramBuilder& builder, const char* kind, int32_t fuseCode) {
    npu::LayerParamsUnion params;
    params.Set(npu::ClampT{});
    auto& layer = builder.addLayer(kind, std::move(params), {builder.input(0)}, {builder.output(0)});
    activationBounds(fuseCode, &layer.output_min, &layer.output_max);
    return true;
}

// The fixed output quantization of quantized LOGISTIC and SOFTMAX (scale 1/256, the lowest
// value real 0) and of TANH (scale 1/128, real 0 in the middle), per signedness.
bool fixedOutputQuantization(const OperationContext& context, float scale, int32_t unsignedZeroPoint) {
    const OperandType type = context.inputType(0);
    if (!isQuant8(type)) return true;
    const int32_t zeroPoint = type == OperandType::TENSOR_QUANT8_ASYMM ? unsignedZeroPoint : unsignedZeroPoint - 128;
    return context.output(0).scale == scale && context.output(0).zeroPoint == zeroPoint;
}

template <typename Params>
uint32_t binary(ProgramBuilder& builder, const char* kind, uint32_t a, uint32_t b) {
    const uint32_t result = builder.intermediate(npu::DataType::FLOAT32, builder.tensor(a).dims);
    npu::LayerParamsUnion params;
    params.Set(Params{});
    builder.addLayer(kind, std::move(params), {a, b}, {result});
    return result;
}

// Where the core's PReLU applies: a constant float slope that varies along the input's last
// axis only (all other slope dims 1), so the output keeps the input's shape.
bool slopePerChannel(const OperationContext& context) {
    const auto& input = context.input(0).dims;
    const auto& slope = context.input(1).dims;
    if (context.inputType(0) != OperandType::TENSOR_FLOAT32 || !context.hasValue(1)) return false;
    if (input.empty() || slope.empty() || slope.size() > input.size()) return false;
    for (size_t d = 0; d + 1 < slope.size(); ++d) {
        if (slope[d] != 1) return false;
    }
    return slope.back() == 1 || slope.back() == input.back();
}

}  // namespace

// Clamps move values: a quantized output keeps the input's quantization (NNAPI requires it).
bool lowering::supportsClamp(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 1 && sameTypeUnary(context));
    if (isQuant8(context.inputType(0))) {
        NN_RET_CHECK(context.input(0).scale == context.output(0).scale &&
                     context.input(0).zeroPoint == context.output(0).zeroPoint);
    }
    return true;
}

bool lowering::lowerRelu(const OperationContext&, ProgramBuilder& builder) { return lowerClamp(builder, "Relu", 1); }

bool lowering::lowerRelu1(const OperationContext&, ProgramBuilder& builder) { return lowerClamp(builder, "Relu1", 2); }

bool lowering::lowerRelu6(const OperationContext&, ProgramBuilder& builder) { return lowerClamp(builder, "Relu6", 3); }

// Quantized LOGISTIC has the fixed output quantization that the core's sigmoid needs.
bool lowering::supportsLogistic(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 1 && sameTypeUnary(context));
    return fixedOutputQuantization(context, 1.0f / 256, 0);
}

bool lowering::lowerLogistic(const OperationContext&, ProgramBuilder& builder) {
    npu::LayerParamsUnion params;
    params.Set(npu::SigmoidT{});
    builder.addLayer("Sigmoid", std::move(params), {builder.input(0)}, {builder.output(0)});
    return true;
}

bool lowering::supportsTanh(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 1 && sameTypeUnary(context));
    return fixedOutputQuantization(context, 1.0f / 128, 128);
}

// The core has no tanh: tanh(x) = 2·sigmoid(2x) − 1, in float.
bool lowering::lowerTanh(const OperationContext&, ProgramBuilder& builder) {
    const uint32_t x = asFloat(builder, builder.input(0));
    const uint32_t twice = binary<npu::MultiplyT>(builder, "TanhScale", x, floatScalar(builder, 2.0f));
    const uint32_t sigmoid = builder.intermediate(npu::DataType::FLOAT32, builder.tensor(x).dims);
    npu::LayerParamsUnion params;
    params.Set(npu::SigmoidT{});
    builder.addLayer("TanhSigmoid", std::move(params), {twice}, {sigmoid});
    const uint32_t doubled = binary<npu::MultiplyT>(builder, "TanhScale", sigmoid, floatScalar(builder, 2.0f));
    const bool quantized = builder.tensor(builder.output(0)).type != npu::DataType::FLOAT32;
    const uint32_t result = quantized ? builder.intermediate(npu::DataType::FLOAT32, builder.tensor(x).dims)
                                      : builder.output(0);
    npu::LayerParamsUnion shift;
    shift.Set(npu::AddT{});
    builder.addLayer("TanhShift", std::move(shift), {doubled, floatScalar(builder, -1.0f)}, {result});
    if (quantized) convertInto(builder, result, builder.output(0));
    return true;
}

// Softmax along the last axis; beta scales the input first.
bool lowering::supportsSoftmax(const OperationContext& context) {
    NN_RET_CHECK((context.numInputs() == 2 || context.numInputs() == 3) && sameTypeUnary(context));
    NN_RET_CHECK(context.hasValue(1) && context.inputType(1) == OperandType::FLOAT32);
    NN_RET_CHECK(context.scalar<float>(1) > 0.0f);
    const uint32_t rank = context.input(0).rank();
    NN_RET_CHECK(rank >= 1);
    if (context.numInputs() == 3) {
        NN_RET_CHECK(context.hasValue(2));
        const auto axis = context.scalar<int32_t>(2);
        NN_RET_CHECK(axis == -1 || axis == static_cast<int32_t>(rank) - 1);
    }
    return fixedOutputQuantization(context, 1.0f / 256, 0);
}

// The core's softmax is float-only: quantized inputs go through float and back.
bool lowering::lowerSoftmax(const OperationContext& context, ProgramBuilder& builder) {
    uint32_t x = asFloat(builder, builder.input(0));
    const float beta = context.scalar<float>(1);
    if (beta != 1.0f) x = binary<npu::MultiplyT>(builder, "SoftmaxBeta", x, floatScalar(builder, beta));
    const bool quantized = builder.tensor(builder.output(0)).type != npu::DataType::FLOAT32;
    const uint32_t result = quantized ? builder.intermediate(npu::DataType::FLOAT32, builder.tensor(x).dims)
                                      : builder.output(0);
    npu::LayerParamsUnion params;
    params.Set(npu::SoftmaxT{});
    builder.addLayer("Softmax", std::move(params), {x}, {result});
    if (quantized) convertInto(builder, result, builder.output(0));
    return true;
}

// Float or uint8 throughout, ranks within the core's. The output has the broadcast shape.
bool lowering::supportsPrelu(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 2);
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatOrQuant8(type) && context.inputType(1) == type && context.output(0).type == type);
    return hal::rankAtMostOrUnknown(context.input(0), 4) && hal::rankAtMostOrUnknown(context.input(1), 4);
}

// The core's PReLU where it applies (one slope value for all channels is repeated per channel),
// else the core's broadcasting PReLU layer.
bool lowering::lowerPrelu(const OperationContext& context, ProgramBuilder& builder) {
    npu::LayerParamsUnion params;
    uint32_t slope = builder.input(1);
    if (slopePerChannel(context)) {
        const uint32_t channels = context.input(0).dims.back();
        if (context.input(1).elements() != channels) {
            const std::vector<float> repeated(channels, context.input(1).as<float>()[0]);
            slope = builder.constant(npu::DataType::FLOAT32, {channels}, repeated.data(),
                                     repeated.size() * sizeof(float));
        }
        params.Set(npu::PreluT{});
    } else {
        params.Set(npu::BroadcastPreluT{});
    }
    builder.addLayer("Prelu", std::move(params), {builder.input(0), slope}, {builder.output(0)});
    return true;
}

// HARD_SWISH (feature level 30) on float32 only: XNNPACK's hardswish.
bool lowering::supportsHardSwish(const OperationContext& context) {
    return context.numInputs() == 1 && context.inputType(0) == OperandType::TENSOR_FLOAT32 &&
           context.output(0).type == OperandType::TENSOR_FLOAT32;
}

bool lowering::lowerHardSwish(const OperationContext&, ProgramBuilder& builder) {
    npu::LayerParamsUnion params;
    params.Set(npu::HardSwishT{});
    builder.addLayer("HardSwish", std::move(params), {builder.input(0)}, {builder.output(0)});
    return true;
}

}  // namespace nnemu::synap
