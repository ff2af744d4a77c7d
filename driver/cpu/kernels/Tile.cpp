// Reference kernel of TILE: output element (i0, ..., in) is input element
// (i0 mod d0, ..., in mod dn). Bytes are copied as they are, whatever the element type.
#include <cstring>
#include <vector>

#include "nnemu/cpu/ElementAccess.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/ShapeUtils.h"
#include "KernelList.h"

namespace nnemu::cpu {

bool kernels::tile(OperationContext& context) {
    const OperandView& input = context.input(0);
    OperandView& output = context.output(0);
    NN_RET_CHECK(isPlainTensorType(input.type));
    const uint32_t rank = input.rank();
    NN_RET_CHECK(output.rank() == rank);
    for (uint32_t d = 0; d < rank; ++d) NN_RET_CHECK(input.dim(d) > 0);
    const size_t size = hal::elementSize(input.type);
    const uint64_t total = output.elements();
    NN_RET_CHECK(output.length >= total * size);
    const std::vector<size_t> strides = hal::rowMajorStrides(input.dims);
    std::vector<uint32_t> index(rank, 0);  // position in the output, last axis fastest
    for (uint64_t n = 0; n < total; ++n) {
        size_t from = 0;
        for (uint32_t d = 0; d < rank; ++d) from += (index[d] % input.dim(d)) * strides[d];
        std::memcpy(output.data + n * size, input.data + from * size, size);
        for (uint32_t d = rank; d-- > 0;) {
            if (++index[d] < output.dim(d)) break;
            index[d] = 0;
        }
    }
    return true;
}

}  // namespace nnemu::cpu
