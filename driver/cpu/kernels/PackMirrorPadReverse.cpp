// Reference kernels of PACK, MIRROR_PAD and REVERSE: element copies, independent of the type
// beyond its size (quantized outputs share the input's quantization).
#include <cstdint>
#include <cstring>
#include <vector>

#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/ShapeUtils.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

// Index into an input dimension of size `dim` for output coordinate `o` after `before` padding:
// REFLECT (mode 0) mirrors around the border element, SYMMETRIC (mode 1) repeats it.
int64_t mirrorIndex(int64_t o, int64_t before, int64_t dim, int32_t mode) {
    int64_t i = o - before;
    if (i < 0) i = mode == 0 ? -i : -i - 1;
    if (i >= dim) i = mode == 0 ? 2 * dim - 2 - i : 2 * dim - 1 - i;
    return i;
}

}  // namespace

// PACK: the output is [outer, N, inner] with inner = product of the input dims from `axis` on.
bool kernels::packKernel(OperationContext& context) {
    const int32_t axis = context.scalar<int32_t>(0);
    const std::vector<uint32_t>& dims = context.input(1).dims;
    const size_t size = hal::elementSize(context.output(0).type);
    uint64_t outer = 1, inner = 1;
    for (size_t i = 0; i < dims.size(); ++i) (static_cast<int32_t>(i) < axis ? outer : inner) *= dims[i];
    const uint32_t count = context.numInputs() - 1;
    NN_RET_CHECK(context.output(0).length >= outer * count * inner * size);
    uint8_t* out = context.output(0).data;
    for (uint64_t o = 0; o < outer; ++o) {
        for (uint32_t n = 0; n < count; ++n) {
            const hal::OperandView& input = context.input(n + 1);
            NN_RET_CHECK(input.length >= outer * inner * size);
            std::memcpy(out, input.data + o * inner * size, inner * size);
            out += inner * size;
        }
    }
    return true;
}

bool kernels::mirrorPadKernel(OperationContext& context) {
    const hal::OperandView& input = context.input(0);
    const hal::OperandView& output = context.output(0);
    const int32_t* paddings = context.input(1).as<int32_t>();
    const int32_t mode = context.scalar<int32_t>(2);
    const size_t size = hal::elementSize(input.type);
    const size_t rank = input.rank();
    const std::vector<size_t> inStrides = hal::rowMajorStrides(input.dims);
    const uint64_t n = output.elements();
    NN_RET_CHECK(output.length >= n * size && input.length >= input.elements() * size);
    std::vector<uint32_t> coord(rank, 0);
    for (uint64_t o = 0; o < n; ++o) {
        uint64_t from = 0;
        for (size_t d = 0; d < rank; ++d) {
            const int64_t i = mirrorIndex(coord[d], paddings[2 * d], input.dim(d), mode);
            NN_RET_CHECK(i >= 0 && i < static_cast<int64_t>(input.dim(d)));
            from += static_cast<uint64_t>(i) * inStrides[d];
        }
        std::memcpy(output.data + o * size, input.data + from * size, size);
        for (size_t d = rank; d-- > 0;) {  // next output coordinate, row-major
            if (++coord[d] < output.dim(d)) break;
            coord[d] = 0;
        }
    }
    return true;
}

// REVERSE: the tensor is [outer, dim, inner] around the axis; the middle index runs backwards.
bool kernels::reverseKernel(OperationContext& context) {
    const hal::OperandView& input = context.input(0);
    const uint32_t axis = static_cast<uint32_t>(context.input(1).as<int32_t>()[0]);
    const size_t size = hal::elementSize(input.type);
    uint64_t outer = 1, inner = size;
    for (uint32_t i = 0; i < input.rank(); ++i) {
        if (i < axis) outer *= input.dim(i);
        if (i > axis) inner *= input.dim(i);
    }
    const uint32_t dim = input.dim(axis);
    NN_RET_CHECK(input.length >= outer * dim * inner && context.output(0).length >= outer * dim * inner);
    uint8_t* out = context.output(0).data;
    for (uint64_t o = 0; o < outer; ++o) {
        for (uint32_t k = 0; k < dim; ++k) {
            std::memcpy(out + (o * dim + k) * inner, input.data + (o * dim + (dim - 1 - k)) * inner, inner);
        }
    }
    return true;
}

}  // namespace nnemu::cpu
