// AVERAGE_POOL_2D, MAX_POOL_2D and MEAN over the spatial axes.
#include <algorithm>

#include "../Lowering.h"
#include "nnemu/hal/Padding.h"
#include "LoweringList.h"

namespace nnemu::synap {
namespace {

using hal::OperandType;
using hal::OperationContext;
using hal::WindowKind;

npu::PaddingT paddingOf(const hal::WindowGeometry& g) {
    npu::PaddingT padding;
    padding.top = g.padTop;
    padding.right = g.padRight;
    padding.bottom = g.padBottom;
    padding.left = g.padLeft;
    return padding;
}

template <typename Params>
Params poolParams(const hal::WindowGeometry& g) {
    Params params;
    params.padding = std::make_unique<npu::PaddingT>(paddingOf(g));
    params.pool_height = g.filterHeight;
    params.pool_width = g.filterWidth;
    params.stride_height = g.strideH;
    params.stride_width = g.strideW;
    return params;
}

bool geometry(const OperationContext& context, hal::WindowParams* params, hal::WindowGeometry* g) {
    *params = hal::readWindowParams(context, WindowKind::POOL);
    const auto& in = context.input(0).dims;
    return hal::resolveWindow(*params, in[1], in[2], static_cast<uint32_t>(params->filterH),
                              static_cast<uint32_t>(params->filterW), g);
}

}  // namespace

bool lowering::supportsPool(const OperationContext& context) {
    if (context.numInputs() < 7 || !hal::windowCountAllowed(WindowKind::POOL, context.numInputs()) ||
        !hal::windowScalarTypesValid(context, WindowKind::POOL)) {
        return false;
    }
    for (uint32_t i = 1; i < context.numInputs(); ++i) {
        if (!context.hasValue(i)) return false;
    }
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatOrAnyQuant8(type) && context.output(0).type == type);
    const hal::WindowParams params = hal::readWindowParams(context, WindowKind::POOL);
    NN_RET_CHECK(hal::windowParamsValid(params, WindowKind::POOL) && !params.nchw);
    NN_RET_CHECK(params.filterW > 1 || params.filterH > 1);  // the core has no 1x1 pooling
    if (isQuant8(type)) {  // pools move values: same quantization
        NN_RET_CHECK(context.input(0).scale == context.output(0).scale &&
                     context.input(0).zeroPoint == context.output(0).zeroPoint);
    }
    return hal::rankIsOrUnknown(context.input(0), 4);
}

bool lowering::lowerAveragePool(const OperationContext& context, ProgramBuilder& builder) {
    hal::WindowParams params;
    hal::WindowGeometry g;
    if (!geometry(context, &params, &g)) return false;
    const std::string name = std::string("AveragePool") + activationName(params.activation);
    npu::LayerParamsUnion layer;
    const bool global = g.outHeight == 1 && g.outWidth == 1 && g.filterHeight == g.inHeight &&
                        g.filterWidth == g.inWidth && g.padTop + g.padBottom + g.padLeft + g.padRight == 0;
    npu::LayerT* added = nullptr;
    if (global) {  // the whole image: the core's global pooling, also quantized
        layer.Set(npu::GlobalAveragePool2DT{});
        added = &builder.addLayer(name, std::move(layer), {builder.input(0)}, {builder.output(0)});
    } else if (context.inputType(0) == OperandType::TENSOR_FLOAT32) {
        layer.Set(poolParams<npu::AveragePool2DT>(g));
        added = &builder.addLayer(name, std::move(layer), {builder.input(0)}, {builder.output(0)});
    } else {  // windowed 8-bit averages: the core's own, exact layer
        layer.Set(poolParams<npu::QuantizedAveragePool2DT>(g));
        added = &builder.addLayer(name, std::move(layer), {builder.input(0)}, {builder.output(0)});
    }
    activationBounds(params.activation, &added->output_min, &added->output_max);
    return true;
}

bool lowering::lowerMaxPool(const OperationContext& context, ProgramBuilder& builder) {
    hal::WindowParams params;
    hal::WindowGeometry g;
    if (!geometry(context, &params, &g)) return false;
    npu::LayerParamsUnion layer;
    layer.Set(poolParams<npu::MaxPool2DT>(g));
    auto& added = builder.addLayer(std::string("MaxPool") + activationName(params.activation), std::move(layer),
                                   {builder.input(0)}, {builder.output(0)});
    activationBounds(params.activation, &added.output_min, &added.output_max);
    return true;
}

// MEAN over axes {1, 2} of an NHWC tensor is a global average pool.
bool lowering::supportsMean(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 3 && context.hasValue(1) && context.hasValue(2));
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatOrAnyQuant8(type) && context.output(0).type == type);
    NN_RET_CHECK(context.input(0).rank() == 4);
    const auto& axes = context.input(1);
    NN_RET_CHECK(axes.type == OperandType::TENSOR_INT32 && axes.elements() == 2);
    std::vector<int32_t> values(axes.as<int32_t>(), axes.as<int32_t>() + 2);
    for (auto& axis : values) axis = axis < 0 ? axis + 4 : axis;
    std::sort(values.begin(), values.end());
    return values[0] == 1 && values[1] == 2;
}

bool lowering::lowerMean(const OperationContext& context, ProgramBuilder& builder) {
    const bool keepDims = context.scalar<int32_t>(2) != 0;
    const auto& in = context.input(0).dims;
    const auto& out = builder.tensor(builder.output(0));
    const uint32_t pooled =
            keepDims ? builder.output(0)
                     : builder.intermediate(out.type, {in[0], 1, 1, in[3]}, out.scale, out.zero_point);
    npu::LayerParamsUnion layer;
    npu::GlobalAveragePool2DT params;
    params.mean = true;
    layer.Set(params);
    builder.addLayer("Mean", std::move(layer), {builder.input(0)}, {pooled});
    if (!keepDims) {
        npu::LayerParamsUnion reshape;
        reshape.Set(npu::ReshapeT{});
        builder.addLayer("Reshape", std::move(reshape), {pooled}, {builder.output(0)});
    }
    return true;
}

}  // namespace nnemu::synap
