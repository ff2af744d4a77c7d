// Reference kernels of STRIDED_SLICE, SLICE, PAD and PAD_V2. They move whole elements of the
// operand's byte size; only the padding value depends on the type.
#include <cstring>
#include <vector>

#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/ShapeUtils.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

using hal::SliceAxis;

// Writes the selected elements of `input` to `out` in row-major order of the selection.
void gather(const OperandView& input, const std::vector<SliceAxis>& axes, uint8_t* out) {
    const size_t size = hal::elementSize(input.type);
    const std::vector<size_t> strides = hal::rowMajorStrides(input.dims);
    const size_t rank = axes.size();
    uint64_t total = 1;
    for (const SliceAxis& axis : axes) total *= axis.count;
    std::vector<uint32_t> index(rank, 0);
    for (uint64_t n = 0; n < total; ++n) {
        size_t from = 0;
        for (size_t i = 0; i < rank; ++i) {
            from += static_cast<size_t>(axes[i].begin + static_cast<int64_t>(index[i]) * axes[i].stride) *
                    strides[i];
        }
        std::memcpy(out + n * size, input.data + from * size, size);
        for (size_t i = rank; i-- > 0;) {
            if (++index[i] < axes[i].count) break;
            index[i] = 0;
        }
    }
}

// Copies `input` into the output, surrounded by `padValue` (one element's bytes).
void padWith(OperationContext& context, const uint8_t* padValue) {
    const OperandView& input = context.input(0);
    OperandView& output = context.output(0);
    const size_t size = hal::elementSize(input.type);
    const int32_t* pads = context.input(1).as<int32_t>();  // [rank, 2]: before, after
    const uint32_t rank = input.rank();
    const std::vector<size_t> inStrides = hal::rowMajorStrides(input.dims);
    const uint64_t total = output.elements();
    std::vector<uint32_t> index(rank, 0);  // position in the output
    for (uint64_t n = 0; n < total; ++n) {
        bool inside = true;
        size_t from = 0;
        for (uint32_t i = 0; i < rank; ++i) {
            const int64_t position = static_cast<int64_t>(index[i]) - pads[2 * i];
            if (position < 0 || position >= input.dim(i)) {
                inside = false;
                break;
            }
            from += static_cast<size_t>(position) * inStrides[i];
        }
        std::memcpy(output.data + n * size, inside ? input.data + from * size : padValue, size);
        for (uint32_t i = rank; i-- > 0;) {
            if (++index[i] < output.dims[i]) break;
            index[i] = 0;
        }
    }
}

}  // namespace

bool kernels::stridedSlice(OperationContext& context) {
    const OperandView& input = context.input(0);
    const OperandType type = input.type;
    if (type != OperandType::TENSOR_FLOAT32 && type != OperandType::TENSOR_FLOAT16 && !hal::isQuant8Asymm(type)) {
        return false;
    }
    std::vector<SliceAxis> axes;
    std::vector<uint32_t> dims;
    if (!hal::resolveStridedSlice(input.dims, context.input(1).as<int32_t>(),
                                  context.input(2).as<int32_t>(), context.input(3).as<int32_t>(),
                                  context.scalar<int32_t>(4), context.scalar<int32_t>(5),
                                  context.scalar<int32_t>(6), &axes, &dims)) {
        return false;
    }
    gather(input, axes, context.output(0).data);
    return true;
}

bool kernels::slice(OperationContext& context) {
    const OperandView& input = context.input(0);
    const OperandType type = input.type;
    if (type != OperandType::TENSOR_FLOAT32 && type != OperandType::TENSOR_FLOAT16 &&
        !hal::isQuant8Asymm(type) && type != OperandType::TENSOR_INT32) {
        return false;
    }
    const int32_t* begin = context.input(1).as<int32_t>();
    std::vector<SliceAxis> axes(input.rank());
    for (uint32_t i = 0; i < input.rank(); ++i) {
        axes[i].begin = begin[i];
        axes[i].stride = 1;
        axes[i].count = context.output(0).dims[i];
    }
    gather(input, axes, context.output(0).data);
    return true;
}

bool kernels::pad(OperationContext& context) {
    // The padding is a logical zero: +0.0 for floats, the zero point for Q8 and Q8S (its byte in
    // either representation).
    uint8_t padValue[4] = {0, 0, 0, 0};
    switch (context.inputType(0)) {
        case OperandType::TENSOR_FLOAT32:
        case OperandType::TENSOR_FLOAT16:
            break;
        case OperandType::TENSOR_QUANT8_ASYMM:
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            padValue[0] = static_cast<uint8_t>(context.output(0).zeroPoint);
            break;
        default:
            return false;
    }
    padWith(context, padValue);
    return true;
}

bool kernels::padV2(OperationContext& context) {
    uint8_t padValue[4] = {0, 0, 0, 0};
    switch (context.inputType(0)) {
        case OperandType::TENSOR_FLOAT32: {
            const float value = context.scalar<float>(2);
            std::memcpy(padValue, &value, sizeof value);
            break;
        }
        case OperandType::TENSOR_FLOAT16: {
            // Keep the FLOAT16 scalar's bits as they are.
            if (context.input(2).data != nullptr) std::memcpy(padValue, context.input(2).data, 2);
            break;
        }
        case OperandType::TENSOR_QUANT8_ASYMM:
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:  // already quantized, in the type's range
            padValue[0] = static_cast<uint8_t>(context.scalar<int32_t>(2));
            break;
        default:
            return false;
    }
    padWith(context, padValue);
    return true;
}

}  // namespace nnemu::cpu
