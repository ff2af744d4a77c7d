// Reference kernels of FILL and RANK.
#include <cstdint>
#include <cstring>

#include "nnemu/cpu/Kernels.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

template <typename T>
void fillWith(hal::OperandView& output, T value) {
    T* out = output.as<T>();
    const uint64_t n = output.elements();
    for (uint64_t i = 0; i < n; ++i) out[i] = value;
}

}  // namespace

bool kernels::fillKernel(OperationContext& context) {
    hal::OperandView& output = context.output(0);
    NN_RET_CHECK(context.hasValue(1));
    switch (output.type) {
        case OperandType::TENSOR_FLOAT32:
            fillWith(output, context.scalar<float>(1));
            return true;
        case OperandType::TENSOR_FLOAT16: {
            uint16_t half;  // stored as given: no round trip through float
            std::memcpy(&half, context.input(1).data, sizeof half);
            fillWith(output, half);
            return true;
        }
        case OperandType::TENSOR_INT32:
            fillWith(output, context.scalar<int32_t>(1));
            return true;
        default:
            return false;
    }
}

bool kernels::rankKernel(OperationContext& context) {
    hal::OperandView& output = context.output(0);
    NN_RET_CHECK(output.length >= sizeof(int32_t));
    const int32_t rank = static_cast<int32_t>(context.input(0).rank());
    std::memcpy(output.data, &rank, sizeof rank);
    return true;
}

}  // namespace nnemu::cpu
