// Reference kernels for LOGICAL_AND, LOGICAL_OR (numpy-style broadcasting) and LOGICAL_NOT on
// TENSOR_BOOL8: any non-zero byte reads as true; results are written as 1 or 0.
#include <cstdint>

#include "Broadcast.h"
#include "nnemu/cpu/Kernels.h"
#include "KernelList.h"

namespace nnemu::cpu {

bool kernels::andOrKernel(OperationContext& context) {
    if (!broadcastFits(context.input(0), context.input(1), context.output(0))) return false;
    if (context.inputType(0) != OperandType::TENSOR_BOOL8 ||
        context.inputType(1) != OperandType::TENSOR_BOOL8) {
        return false;
    }
    const uint8_t* a = context.input(0).as<uint8_t>();
    const uint8_t* b = context.input(1).as<uint8_t>();
    uint8_t* out = context.output(0).as<uint8_t>();
    const bool isAnd = context.type == OperationType::LOGICAL_AND;
    forEachBroadcast(context.output(0).dims, context.input(0).dims, context.input(1).dims,
                     [&](uint64_t o, uint64_t i, uint64_t j) {
                         const bool x = a[i] != 0, y = b[j] != 0;
                         out[o] = (isAnd ? x && y : x || y) ? 1 : 0;
                     });
    return true;
}

bool kernels::notKernel(OperationContext& context) {
    const hal::OperandView& input = context.input(0);
    hal::OperandView& output = context.output(0);
    if (input.type != OperandType::TENSOR_BOOL8 || input.dims != output.dims) return false;
    if (!holdsElements(input) || !holdsElements(output)) return false;
    const uint8_t* in = input.as<uint8_t>();
    uint8_t* out = output.as<uint8_t>();
    for (uint64_t i = 0; i < output.elements(); ++i) out[i] = in[i] == 0 ? 1 : 0;
    return true;
}

}  // namespace nnemu::cpu
