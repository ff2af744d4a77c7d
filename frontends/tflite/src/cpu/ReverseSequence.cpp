// REVERSE_SEQUENCE: along seq_dim, the first seq_lengths[b] elements of each batch b (the index
// along batch_dim) in reverse order, the rest as they are; TFLite 2.21's types (float32, uint8,
// int16, int32, int64; int32 or int64 lengths). A length above the sequence dimension is refused
// (TFLite checks only the first); zero or negative leaves the batch as it is.
#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::reverse_sequence {

bool prepareReverseSequence(const CpuKernelCall& call) {
    if (!call.expectCounts(2, 2, 1)) return false;
    const CpuOperand& in = call.in(0);
    const CpuOperand& lengths = call.in(1);
    if (!call.expectType(in, {ElementType::FLOAT32, ElementType::UINT8, ElementType::INT16, ElementType::INT32,
                              ElementType::INT64},
                         "input")) {
        return false;
    }
    if (!call.expectType(lengths, {ElementType::INT32, ElementType::INT64}, "seq_lengths")) return false;
    if (lengths.rank() != 1) return call.fail("seq_lengths must be 1-D");
    if (call.out(0).type() != in.type()) return call.fail("output type differs from the input's");
    const auto* options = call.params<TfLiteReverseSequenceParams>();
    if (options == nullptr) return call.fail("has no options");
    const auto rank = static_cast<int64_t>(in.rank());
    const int64_t seq = options->seq_dim, batch = options->batch_dim;
    if (seq < 0 || batch < 0 || seq == batch || seq >= rank || batch >= rank) {
        return call.fail("seq_dim " + std::to_string(seq) + " and batch_dim " + std::to_string(batch) +
                         " must be different dimensions of the rank-" + std::to_string(rank) + " input");
    }
    if (lengths.shape()[0] != in.shape()[static_cast<size_t>(batch)]) {
        return call.fail("seq_lengths has " + std::to_string(lengths.shape()[0]) + " values for batch dimension " +
                         std::to_string(in.shape()[static_cast<size_t>(batch)]));
    }
    return call.expectOutputShape(0, in.shape());
}

bool runReverseSequence(const CpuKernelCall& call) {
    if (!prepareReverseSequence(call)) return false;
    const auto* options = call.params<TfLiteReverseSequenceParams>();
    const CpuOperand& in = call.in(0);
    const CpuOperand& lengths = call.in(1);
    const std::vector<int32_t>& dims = in.shape();
    const auto seqDim = static_cast<size_t>(options->seq_dim), batchDim = static_cast<size_t>(options->batch_dim);
    std::vector<int64_t> length(lengths.count());
    for (size_t b = 0; b < length.size(); ++b) {
        length[b] = lengths.type() == ElementType::INT32 ? lengths.at<int32_t>(b) : lengths.at<int64_t>(b);
        if (length[b] > dims[seqDim]) {
            return call.fail("seq_lengths value " + std::to_string(length[b]) + " exceeds the sequence dimension " +
                             std::to_string(dims[seqDim]));
        }
    }
    // Element by element: the source index differs from the destination only along seq_dim.
    std::vector<size_t> strides(dims.size(), 1);
    for (size_t k = dims.size(); k-- > 1;) strides[k - 1] = strides[k] * static_cast<size_t>(dims[k]);
    const size_t size = elementSize(in.type());
    const size_t count = in.count();
    for (size_t at = 0; at < count; ++at) {
        const size_t q = at / strides[seqDim] % static_cast<size_t>(dims[seqDim]);
        const int64_t n = length[at / strides[batchDim] % static_cast<size_t>(dims[batchDim])];
        size_t from = at;
        if (static_cast<int64_t>(q) < n) from = at - q * strides[seqDim] + static_cast<size_t>(n - 1 - static_cast<int64_t>(q)) * strides[seqDim];
        std::memcpy(call.out(0).out + at * size, in.data + from * size, size);
    }
    return true;
}

}  // namespace kernels::reverse_sequence

}  // namespace nnemu::tflite
