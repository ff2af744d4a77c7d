// ARGMAX and ARGMIN along a constant axis, in the core's own layers.
#include "../Lowering.h"
#include "nnemu/hal/Axis.h"
#include "LoweringList.h"

namespace nnemu::synap {
namespace {

using hal::OperandType;
using hal::OperationContext;

template <typename Params>
bool lowerArgMinMax(const OperationContext& context, ProgramBuilder& builder, const char* kind) {
    Params reduce;
    if (!hal::resolveAxis(context.scalar<int32_t>(1), context.input(0).rank(), &reduce.axis)) return false;
    npu::LayerParamsUnion params;
    params.Set(std::move(reduce));
    builder.addLayer(kind, std::move(params), {builder.input(0)}, {builder.output(0)});
    return true;
}

}  // namespace

// Every input type NNAPI allows: they only need to be compared.
bool lowering::supportsArgMinMax(const OperationContext& context) {
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(context.numInputs() == 2 && context.hasValue(1));
    NN_RET_CHECK(isFloatOrAnyQuant8(type) || type == OperandType::TENSOR_FLOAT16 || type == OperandType::TENSOR_INT32);
    NN_RET_CHECK(context.output(0).type == OperandType::TENSOR_INT32);
    return hal::rankAtMostOrUnknown(context.input(0), 4);
}

bool lowering::lowerArgMax(const OperationContext& context, ProgramBuilder& builder) {
    return lowerArgMinMax<npu::ArgMaxT>(context, builder, "ArgMax");
}

bool lowering::lowerArgMin(const OperationContext& context, ProgramBuilder& builder) {
    return lowerArgMinMax<npu::ArgMinT>(context, builder, "ArgMin");
}

}  // namespace nnemu::synap
