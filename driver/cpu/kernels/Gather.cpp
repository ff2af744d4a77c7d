// Reference kernel of GATHER: for every outer position (dims before the axis) and every index,
// copies the input's slice at that index along the axis. Bytes are copied as they are, so one
// kernel serves every element type. An index outside [0, axis size) fails the execution.
#include <cstring>

#include "nnemu/cpu/ElementAccess.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Axis.h"
#include "KernelList.h"

namespace nnemu::cpu {

bool kernels::gatherKernel(OperationContext& context) {
    const OperandView& input = context.input(0);
    const OperandView& indices = context.input(2);
    OperandView& output = context.output(0);
    NN_RET_CHECK(isPlainTensorType(input.type));
    uint32_t axis = 0;
    NN_RET_CHECK(hal::resolveAxis(context.scalar<int32_t>(1), input.rank(), &axis));
    const hal::AxisSplit split = hal::splitAtAxis(input.dims, axis);
    const uint64_t count = indices.elements();
    const uint64_t sliceBytes = split.inner * hal::elementSize(input.type);
    NN_RET_CHECK(indices.length >= count * sizeof(int32_t));
    NN_RET_CHECK(output.length >= split.outer * count * sliceBytes);
    const int32_t* index = indices.as<int32_t>();
    for (uint64_t k = 0; k < count; ++k) {
        NN_RET_CHECK(index[k] >= 0 && static_cast<uint32_t>(index[k]) < split.size);
    }
    for (uint64_t o = 0; o < split.outer; ++o) {
        for (uint64_t k = 0; k < count; ++k) {
            const uint64_t from = o * split.size + static_cast<uint32_t>(index[k]);
            std::memcpy(output.data + (o * count + k) * sliceBytes, input.data + from * sliceBytes,
                        sliceBytes);
        }
    }
    return true;
}

}  // namespace nnemu::cpu
