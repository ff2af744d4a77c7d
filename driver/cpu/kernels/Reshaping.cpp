// Reference kernels of RESHAPE, SQUEEZE, EXPAND_DIMS, TRANSPOSE, DEPTH_TO_SPACE, SPACE_TO_DEPTH,
// BATCH_TO_SPACE_ND and SPACE_TO_BATCH_ND. They only move elements, so they work on whole
// elements of the operand's byte size whatever the type (F32, F16, Q8, Q8S).
#include <array>
#include <cstring>
#include <vector>

#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/ShapeUtils.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

using hal::Image4;

bool isDataType(OperandType type) {
    return type == OperandType::TENSOR_FLOAT32 || type == OperandType::TENSOR_FLOAT16 || hal::isQuant8Asymm(type);
}

// Copies element `from` of `src` to element `to` of `dst`, elements being `size` bytes.
inline void moveElement(uint8_t* dst, size_t to, const uint8_t* src, size_t from, size_t size) {
    std::memcpy(dst + to * size, src + from * size, size);
}

}  // namespace

// RESHAPE and SQUEEZE keep the element order (RESHAPE also moves TENSOR_INT32).
bool kernels::copyAll(OperationContext& context) {
    const OperandType type = context.inputType(0);
    if (!isDataType(type) && !(context.type == hal::OperationType::RESHAPE && type == OperandType::TENSOR_INT32)) {
        return false;
    }
    const size_t bytes = context.input(0).elements() * hal::elementSize(context.inputType(0));
    if (bytes > 0) std::memcpy(context.output(0).data, context.input(0).data, bytes);
    return true;
}

// EXPAND_DIMS keeps the element order too, and also takes TENSOR_INT32.
bool kernels::expandDims(OperationContext& context) {
    const OperandType type = context.inputType(0);
    if (!isDataType(type) && type != OperandType::TENSOR_INT32) return false;
    const size_t bytes = context.input(0).elements() * hal::elementSize(type);
    NN_RET_CHECK(context.output(0).length >= bytes);
    if (bytes > 0) std::memcpy(context.output(0).data, context.input(0).data, bytes);
    return true;
}

bool kernels::transpose(OperationContext& context) {
    const hal::OperandView& input = context.input(0);
    if (!isDataType(input.type)) return false;
    const uint32_t rank = input.rank();
    std::vector<uint32_t> perm(rank);
    const hal::OperandView& permOperand = context.input(1);
    const bool hasPerm = !permOperand.omitted && permOperand.data != nullptr &&
                         permOperand.rank() == 1 && permOperand.dim(0) > 0;
    for (uint32_t i = 0; i < rank; ++i) {
        perm[i] = hasPerm ? static_cast<uint32_t>(permOperand.as<int32_t>()[i]) : rank - 1 - i;
    }
    const std::vector<size_t> inStrides = hal::rowMajorStrides(input.dims);
    const std::vector<uint32_t>& outDims = context.output(0).dims;
    const uint64_t total = context.output(0).elements();
    const size_t size = hal::elementSize(input.type);
    if (total == 0) return true;
    if (rank == 0) {
        std::memcpy(context.output(0).data, input.data, size);
        return true;
    }
    // The output is written row by row (its last axis); a row reads the input with one stride,
    // a contiguous run when the last axis stays last.
    const uint32_t rowLength = outDims[rank - 1];
    const size_t rowStride = inStrides[perm[rank - 1]];
    std::vector<uint32_t> index(rank, 0);  // position in the output; index[rank - 1] stays 0
    uint8_t* out = context.output(0).data;
    for (uint64_t row = 0; row < total / rowLength; ++row, out += rowLength * size) {
        size_t from = 0;
        for (uint32_t i = 0; i + 1 < rank; ++i) from += index[i] * inStrides[perm[i]];
        const uint8_t* in = input.data + from * size;
        if (rowStride == 1) {
            std::memcpy(out, in, rowLength * size);
        } else if (size == 4) {
            for (uint32_t k = 0; k < rowLength; ++k) std::memcpy(out + k * 4, in + k * rowStride * 4, 4);
        } else if (size == 1) {
            for (uint32_t k = 0; k < rowLength; ++k) out[k] = in[k * rowStride];
        } else {
            for (uint32_t k = 0; k < rowLength; ++k) std::memcpy(out + k * size, in + k * rowStride * size, size);
        }
        for (uint32_t i = rank - 1; i-- > 0;) {  // next output row
            if (++index[i] < outDims[i]) break;
            index[i] = 0;
        }
    }
    return true;
}

namespace {

// DEPTH_TO_SPACE and SPACE_TO_DEPTH move every output element (b, y, x, c) from the input
// element `source(y, x, c, in, out, block)` names as (y, x, c) of the same batch.
template <typename Source>
bool moveBlocks(OperationContext& context, Source source) {
    if (!isDataType(context.inputType(0))) return false;
    const bool nchw = hal::layoutIsNchw(context, 2);
    const auto block = static_cast<uint32_t>(context.scalar<int32_t>(1));
    const Image4 in = hal::makeImage4(context.input(0).dims, nchw);
    const Image4 out = hal::makeImage4(context.output(0).dims, nchw);
    const size_t size = hal::elementSize(context.inputType(0));
    for (uint32_t b = 0; b < out.batches; ++b) {
        for (uint32_t y = 0; y < out.height; ++y) {
            for (uint32_t x = 0; x < out.width; ++x) {
                for (uint32_t c = 0; c < out.channels; ++c) {
                    const std::array<uint32_t, 3> from = source(y, x, c, in, out, block);
                    moveElement(context.output(0).data, out.at(b, y, x, c), context.input(0).data,
                                in.at(b, from[0], from[1], from[2]), size);
                }
            }
        }
    }
    return true;
}

}  // namespace

bool kernels::depthToSpace(OperationContext& context) {
    return moveBlocks(context, [](uint32_t y, uint32_t x, uint32_t c, const Image4&, const Image4& out, uint32_t block) {
        return std::array<uint32_t, 3>{y / block, x / block, ((y % block) * block + x % block) * out.channels + c};
    });
}

bool kernels::spaceToDepth(OperationContext& context) {
    return moveBlocks(context, [](uint32_t y, uint32_t x, uint32_t c, const Image4& in, const Image4&, uint32_t block) {
        const uint32_t offset = c / in.channels;  // position inside the block
        return std::array<uint32_t, 3>{y * block + offset / block, x * block + offset % block, c % in.channels};
    });
}

bool kernels::batchToSpace(OperationContext& context) {
    if (!isDataType(context.inputType(0))) return false;
    const bool nchw = hal::layoutIsNchw(context, 2);
    const int32_t* blockShape = context.input(1).as<int32_t>();
    const auto blockH = static_cast<uint32_t>(blockShape[0]);
    const auto blockW = static_cast<uint32_t>(blockShape[1]);
    const Image4 in = hal::makeImage4(context.input(0).dims, nchw);
    const Image4 out = hal::makeImage4(context.output(0).dims, nchw);
    const size_t size = hal::elementSize(context.inputType(0));
    for (uint32_t b = 0; b < out.batches; ++b) {
        for (uint32_t y = 0; y < out.height; ++y) {
            for (uint32_t x = 0; x < out.width; ++x) {
                // The input batch holding this pixel: block offsets outermost, then batch.
                const uint32_t inB = ((y % blockH) * blockW + x % blockW) * out.batches + b;
                for (uint32_t c = 0; c < out.channels; ++c) {
                    moveElement(context.output(0).data, out.at(b, y, x, c), context.input(0).data,
                                in.at(inB, y / blockH, x / blockW, c), size);
                }
            }
        }
    }
    return true;
}

bool kernels::spaceToBatch(OperationContext& context) {
    const OperandType type = context.inputType(0);
    if (!isDataType(type)) return false;
    const bool nchw = hal::layoutIsNchw(context, 3);
    const int32_t* blockShape = context.input(1).as<int32_t>();
    const auto blockH = static_cast<uint32_t>(blockShape[0]);
    const auto blockW = static_cast<uint32_t>(blockShape[1]);
    const int32_t* pads = context.input(2).as<int32_t>();  // [[top, bottom], [left, right]]
    const int64_t padTop = pads[0];
    const int64_t padLeft = pads[2];
    const Image4 in = hal::makeImage4(context.input(0).dims, nchw);
    const Image4 out = hal::makeImage4(context.output(0).dims, nchw);
    const size_t size = hal::elementSize(type);
    // Padding is a logical zero: the zero point for Q8 and Q8S (its byte in either
    // representation), +0.0 (all bits clear) for floats.
    uint8_t padValue[4] = {0, 0, 0, 0};
    if (hal::isQuant8Asymm(type)) padValue[0] = static_cast<uint8_t>(context.output(0).zeroPoint);
    for (uint32_t b = 0; b < out.batches; ++b) {
        const uint32_t inB = in.batches == 0 ? 0 : b % in.batches;
        const uint32_t blockIndex = in.batches == 0 ? 0 : b / in.batches;
        const uint32_t offsetY = blockIndex / blockW;
        const uint32_t offsetX = blockIndex % blockW;
        for (uint32_t y = 0; y < out.height; ++y) {
            const int64_t inY = static_cast<int64_t>(y) * blockH + offsetY - padTop;
            for (uint32_t x = 0; x < out.width; ++x) {
                const int64_t inX = static_cast<int64_t>(x) * blockW + offsetX - padLeft;
                const bool inside = inY >= 0 && inY < in.height && inX >= 0 && inX < in.width;
                for (uint32_t c = 0; c < out.channels; ++c) {
                    uint8_t* to = context.output(0).data + out.at(b, y, x, c) * size;
                    if (inside) {
                        std::memcpy(to,
                                    context.input(0).data +
                                            in.at(inB, static_cast<uint32_t>(inY),
                                                  static_cast<uint32_t>(inX), c) *
                                                    size,
                                    size);
                    } else {
                        std::memcpy(to, padValue, size);
                    }
                }
            }
        }
    }
    return true;
}

}  // namespace nnemu::cpu
