// Reference kernel of SPLIT: every output receives its slice of the input along the axis; the
// bytes are copied as they are, so one kernel serves every element type.
#include <cstring>

#include "nnemu/cpu/Kernels.h"
#include "KernelList.h"

namespace nnemu::cpu {

bool kernels::split(OperationContext& context) {
    const OperandView& input = context.input(0);
    const auto rank = static_cast<int32_t>(input.rank());
    int32_t axis = context.scalar<int32_t>(1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return false;
    const size_t size = hal::elementSize(input.type);
    // The input is [outer, dims[axis], inner]; output i takes rows [i * piece, (i + 1) * piece)
    // of the axis for every outer index.
    uint64_t outer = 1;
    for (int32_t k = 0; k < axis; ++k) outer *= input.dim(k);
    uint64_t inner = 1;
    for (int32_t k = axis + 1; k < rank; ++k) inner *= input.dim(k);
    const uint64_t inputBlock = static_cast<uint64_t>(input.dim(axis)) * inner * size;
    uint64_t offset = 0;
    for (uint32_t i = 0; i < context.numOutputs(); ++i) {
        OperandView& output = context.output(i);
        const uint64_t block = static_cast<uint64_t>(output.dim(axis)) * inner * size;
        for (uint64_t o = 0; o < outer; ++o) {
            if (block > 0) std::memcpy(output.data + o * block, input.data + o * inputBlock + offset, block);
        }
        offset += block;
    }
    return true;
}

}  // namespace nnemu::cpu
