// Reference kernel of CHANNEL_SHUFFLE: the axis of size C is read as [groups, C / groups] and
// transposed, so output channel i * groups + g is input channel g * (C / groups) + i. Whole
// slices of the dims after the axis are copied as bytes, whatever the element type.
#include <cstring>

#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Axis.h"
#include "KernelList.h"

namespace nnemu::cpu {

bool kernels::channelShuffle(OperationContext& context) {
    const OperandView& input = context.input(0);
    OperandView& output = context.output(0);
    NN_RET_CHECK(input.type == OperandType::TENSOR_FLOAT32 || input.type == OperandType::TENSOR_FLOAT16 ||
                 hal::isQuant8Asymm(input.type));
    const int32_t groups = context.scalar<int32_t>(1);
    uint32_t axis = 0;
    NN_RET_CHECK(hal::resolveAxis(context.scalar<int32_t>(2), input.rank(), &axis));
    const hal::AxisSplit split = hal::splitAtAxis(input.dims, axis);
    NN_RET_CHECK(groups >= 1 && split.size % static_cast<uint32_t>(groups) == 0);
    const uint32_t groupSize = split.size / static_cast<uint32_t>(groups);
    const uint64_t sliceBytes = split.inner * hal::elementSize(input.type);
    NN_RET_CHECK(output.length >= split.outer * split.size * sliceBytes);
    for (uint64_t o = 0; o < split.outer; ++o) {
        for (uint32_t c = 0; c < split.size; ++c) {
            const uint32_t from = (c % static_cast<uint32_t>(groups)) * groupSize + c / static_cast<uint32_t>(groups);
            std::memcpy(output.data + (o * split.size + c) * sliceBytes,
                        input.data + (o * split.size + from) * sliceBytes, sliceBytes);
        }
    }
    return true;
}

}  // namespace nnemu::cpu
