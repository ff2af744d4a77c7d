// Reference kernel of CONCATENATION. Float inputs are copied; Q8 and Q8S inputs whose scale or
// zero point differ from the output's are requantized to it (TFLite's ConcatenationWithScaling).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "QuantValue.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/kernels/QuantMath.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

// Requantizes `count` Q8 (T = uint8_t) or Q8S (T = int8_t) values from `input`'s parameters to
// `output`'s.
template <typename T>
void requantize(const T* from, T* to, uint64_t count, const OperandView& input, const OperandView& output) {
    const float scale = input.scale * (1.0f / output.scale);
    const float bias = -static_cast<float>(input.zeroPoint) * scale;
    for (uint64_t e = 0; e < count; ++e) {
        to[e] = static_cast<T>(quant::quantizeSaturated(from[e] * scale + bias, output.zeroPoint, kQuantMin<T>, kQuantMax<T>));
    }
}

}  // namespace

bool kernels::concatenation(OperationContext& context) {
    const OperandType type = context.inputType(0);
    if (type != OperandType::TENSOR_FLOAT32 && type != OperandType::TENSOR_FLOAT16 && !hal::isQuant8Asymm(type)) {
        return false;
    }
    const uint32_t count = context.numInputs() - 1;
    const auto axis = static_cast<uint32_t>(context.scalar<int32_t>(count));
    OperandView& output = context.output(0);
    const std::vector<uint32_t>& outDims = output.dims;
    const size_t size = hal::elementSize(type);
    // The tensors are [outer, dims[axis], inner]; each input contributes one contiguous block
    // of dims[axis] * inner elements per outer index.
    uint64_t outer = 1;
    for (uint32_t k = 0; k < axis; ++k) outer *= outDims[k];
    uint64_t inner = 1;
    for (size_t k = axis + 1; k < outDims.size(); ++k) inner *= outDims[k];
    uint8_t* to = output.data;
    for (uint64_t o = 0; o < outer; ++o) {
        for (uint32_t i = 0; i < count; ++i) {
            const OperandView& input = context.input(i);
            const uint64_t block = static_cast<uint64_t>(input.dims[axis]) * inner;
            const uint8_t* from = input.data + o * block * size;
            const bool sameValues = !hal::isQuant8Asymm(type) ||
                                    (input.scale == output.scale && input.zeroPoint == output.zeroPoint);
            if (sameValues) {
                if (block > 0) std::memcpy(to, from, block * size);
            } else if (type == OperandType::TENSOR_QUANT8_ASYMM) {
                requantize(from, to, block, input, output);
            } else {
                requantize(reinterpret_cast<const int8_t*>(from), reinterpret_cast<int8_t*>(to), block, input, output);
            }
            to += block * size;
        }
    }
    return true;
}

}  // namespace nnemu::cpu
