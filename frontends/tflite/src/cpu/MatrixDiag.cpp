// MATRIX_DIAG (input [..., N] -> output [..., N, N], the values on each diagonal, zero bytes
// elsewhere) and MATRIX_SET_DIAG (input [..., M, N] with its main diagonals replaced by the
// values of diagonal [..., min(M, N)]), TFLite 2.21's types: float32, int64, int32, int16, int8,
// uint8 (a quantized zero is the stored 0, as TFLite writes it).
#include <algorithm>

#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::matrix_diag {

bool diagTypes(const CpuKernelCall& call) {
    if (!call.expectType(call.in(0), {ElementType::FLOAT32, ElementType::INT64, ElementType::INT32, ElementType::INT16,
                                      ElementType::INT8, ElementType::UINT8},
                         "input")) {
        return false;
    }
    return call.out(0).type() == call.in(0).type() || call.fail("output type differs from the input's");
}

bool prepareMatrixDiag(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1) || !diagTypes(call)) return false;
    if (call.in(0).rank() == 0) return call.fail("input must have rank 1 or more");
    std::vector<int32_t> shape = call.in(0).shape();
    shape.push_back(shape.back());
    return call.expectOutputShape(0, shape);
}

bool runMatrixDiag(const CpuKernelCall& call) {
    if (!prepareMatrixDiag(call)) return false;
    const CpuOperand& in = call.in(0);
    const size_t size = elementSize(in.type());
    const auto n = static_cast<size_t>(in.shape().back());
    const size_t matrices = n == 0 ? 0 : in.count() / n;
    if (call.out(0).count() != 0) std::memset(call.out(0).out, 0, call.out(0).count() * size);
    for (size_t m = 0; m < matrices; ++m) {
        for (size_t i = 0; i < n; ++i) {
            std::memcpy(call.out(0).out + ((m * n + i) * n + i) * size, in.data + (m * n + i) * size, size);
        }
    }
    return true;
}

bool prepareMatrixSetDiag(const CpuKernelCall& call) {
    if (!call.expectCounts(2, 2, 1) || !diagTypes(call)) return false;
    const CpuOperand& in = call.in(0);
    if (in.rank() < 2) return call.fail("input must have rank 2 or more");
    if (call.in(1).type() != in.type()) return call.fail("diagonal type differs from the input's");
    std::vector<int32_t> diagonal(in.shape().begin(), in.shape().end() - 2);
    diagonal.push_back(std::min(in.shape()[in.rank() - 2], in.shape()[in.rank() - 1]));
    if (call.in(1).shape() != diagonal) {
        return call.fail("diagonal has shape " + shapeText(call.in(1).shape()) + ", expected " + shapeText(diagonal));
    }
    return call.expectOutputShape(0, in.shape());
}

bool runMatrixSetDiag(const CpuKernelCall& call) {
    if (!prepareMatrixSetDiag(call)) return false;
    const CpuOperand& in = call.in(0);
    const size_t size = elementSize(in.type());
    const auto rows = static_cast<size_t>(in.shape()[in.rank() - 2]);
    const auto cols = static_cast<size_t>(in.shape()[in.rank() - 1]);
    const size_t diagonal = std::min(rows, cols);
    if (in.count() != 0) std::memcpy(call.out(0).out, in.data, in.count() * size);
    const size_t matrices = rows * cols == 0 ? 0 : in.count() / (rows * cols);
    for (size_t m = 0; m < matrices; ++m) {
        for (size_t i = 0; i < diagonal; ++i) {
            std::memcpy(call.out(0).out + (m * rows * cols + i * cols + i) * size,
                        call.in(1).data + (m * diagonal + i) * size, size);
        }
    }
    return true;
}

}  // namespace kernels::matrix_diag

}  // namespace nnemu::tflite
