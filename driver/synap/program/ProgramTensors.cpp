#include "ProgramTensors.h"

#include <limits>

namespace nnemu::synap {

size_t elementBytes(npu::DataType type) {
    switch (type) {
        case npu::DataType::QUINT8:
        case npu::DataType::QINT8:
        case npu::DataType::QCINT8:
            return 1;
        case npu::DataType::FLOAT16:
            return 2;
        default:
            return 4;
    }
}

// Saturating, so that dims from a damaged or hostile program never wrap to a small size.
size_t elementCount(const npu::Tensor& tensor) {
    constexpr size_t kMax = std::numeric_limits<size_t>::max();
    size_t count = 1;
    for (uint32_t d : *tensor.dims()) {
        if (d == 0) return 0;
        count = count > kMax / d ? kMax : count * d;
    }
    return count;
}

size_t byteSize(const npu::Tensor& tensor) {
    const size_t count = elementCount(tensor);
    const size_t element = elementBytes(tensor.type());
    return count > std::numeric_limits<size_t>::max() / element ? std::numeric_limits<size_t>::max()
                                                                 : count * element;
}

}  // namespace nnemu::synap
