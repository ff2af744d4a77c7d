// EMBEDDING_LOOKUP and HASHTABLE_LOOKUP in the forms NNAPI has none for (LowerLookup.cpp lowers the
// rest), as TFLite's kernels compute them:
// - EMBEDDING_LOOKUP copies rows of a float32, uint8 or int8 table, or dequantizes a uint8/int8
//   table into a float32 output ("hybrid"): each stored byte read as int8 times the table's scale
//   (the row's own scale when quantized per row), in double, rounded once to float. A row index
//   outside the table fails the node.
// - HASHTABLE_LOOKUP finds each lookup among the keys by binary search (the C library's bsearch,
//   as TFLite's, so unsorted keys give TFLite's answer too), copies the row or writes zeros, and
//   sets hits to 1 or 0.
#include <cstdlib>

#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::lookup {

bool oneDimensionalInt32(const CpuKernelCall& call, const CpuOperand& operand, const char* what) {
    if (operand.type() != ElementType::INT32 || operand.rank() != 1) {
        return call.fail(std::string(what) + " must be a 1-D int32 tensor");
    }
    return true;
}

std::vector<int32_t> lookedUpShape(const CpuOperand& lookup, const CpuOperand& value) {
    std::vector<int32_t> shape = value.shape();
    shape[0] = lookup.shape()[0];
    return shape;
}

bool hybridEmbedding(const CpuKernelCall& call) {
    const ElementType table = call.in(1).type();
    return (table == ElementType::UINT8 || table == ElementType::INT8) && call.out(0).type() == ElementType::FLOAT32;
}

bool prepareEmbeddingLookup(const CpuKernelCall& call) {
    if (!call.expectCounts(2, 2, 1) || !oneDimensionalInt32(call, call.in(0), "the lookup input")) return false;
    const CpuOperand& value = call.in(1);
    if (value.rank() < 2) return call.fail("the value tensor must have at least 2 dimensions");
    if (!call.expectType(value, {ElementType::FLOAT32, ElementType::UINT8, ElementType::INT8}, "value")) return false;
    const Tensor& table = *value.tensor;
    if (hybridEmbedding(call)) {
        if (table.zeroPoint != 0) return call.fail("a dequantized table must have zero point 0");
        if (table.channelScales.size() > 1 &&
            (table.quantizedDimension != 0 || table.channelScales.size() != static_cast<size_t>(value.shape()[0]))) {
            return call.fail("a table quantized per row must have one scale per row, along dimension 0");
        }
    } else {
        if (call.out(0).type() != value.type()) return call.fail("the output type differs from the table's");
        if (table.channelScales.size() > 1) return call.fail("only a dequantized table may be quantized per row");
    }
    return call.expectOutputShape(0, lookedUpShape(call.in(0), value));
}

bool runEmbeddingLookup(const CpuKernelCall& call) {
    if (!prepareEmbeddingLookup(call)) return false;
    const CpuOperand &lookup = call.in(0), &value = call.in(1), &out = call.out(0);
    const auto rows = static_cast<size_t>(value.shape()[0]);
    const size_t columns = rows == 0 ? 0 : value.count() / rows;
    const bool hybrid = hybridEmbedding(call);
    const size_t rowBytes = columns * elementSize(value.type());
    const Tensor& table = *value.tensor;
    for (size_t i = 0; i < lookup.count(); ++i) {
        const int32_t row = lookup.at<int32_t>(i);
        if (row < 0 || static_cast<size_t>(row) >= rows) {
            return call.fail("Embedding Lookup: index out of bounds. Got " + std::to_string(row) +
                             ", and bounds are [0, " + std::to_string(static_cast<int64_t>(rows) - 1) + "]");
        }
        if (!hybrid) {
            if (rowBytes != 0) std::memcpy(out.out + i * rowBytes, value.data + static_cast<size_t>(row) * rowBytes, rowBytes);
            continue;
        }
        const double scale = table.channelScales.size() > 1 ? table.channelScales[static_cast<size_t>(row)] : table.scale;
        for (size_t j = 0; j < columns; ++j) {
            const auto stored = static_cast<int8_t>(value.data[static_cast<size_t>(row) * columns + j]);
            out.set<float>(i * columns + j, static_cast<float>(stored * scale));
        }
    }
    return true;
}

bool prepareHashtableLookup(const CpuKernelCall& call) {
    if (!call.expectCounts(3, 3, 2) || !oneDimensionalInt32(call, call.in(0), "the lookup input") ||
        !oneDimensionalInt32(call, call.in(1), "the keys")) {
        return false;
    }
    const CpuOperand& value = call.in(2);
    if (value.rank() < 1) return call.fail("the value tensor must have at least 1 dimension");
    if (elementSize(value.type()) == 0) return call.fail("the value type is not supported");
    if (value.shape()[0] != call.in(1).shape()[0]) return call.fail("the keys and the values differ in count");
    if (call.out(0).type() != value.type()) return call.fail("the output type differs from the values'");
    if (call.out(1).type() != ElementType::UINT8) return call.fail("the hits output must be uint8");
    return call.expectOutputShape(0, lookedUpShape(call.in(0), value)) &&
           call.expectOutputShape(1, {call.in(0).shape()[0]});
}

// TFLite's comparator: the difference of the two keys, wrapping as the machine does.
int compareKeys(const void* a, const void* b) {
    int32_t x, y;
    std::memcpy(&x, a, sizeof(x));
    std::memcpy(&y, b, sizeof(y));
    return static_cast<int32_t>(static_cast<uint32_t>(x) - static_cast<uint32_t>(y));
}

bool runHashtableLookup(const CpuKernelCall& call) {
    if (!prepareHashtableLookup(call)) return false;
    const CpuOperand &lookup = call.in(0), &keys = call.in(1), &value = call.in(2);
    const auto rows = static_cast<size_t>(keys.shape()[0]);
    const size_t rowBytes = rows == 0 ? 0 : value.count() / rows * elementSize(value.type());
    // bsearch wants aligned int32 keys; constants in the model file have no alignment guarantee.
    std::vector<int32_t> sortedKeys(rows);
    if (rows != 0) std::memcpy(sortedKeys.data(), keys.data, rows * sizeof(int32_t));
    for (size_t i = 0; i < lookup.count(); ++i) {
        const int32_t wanted = lookup.at<int32_t>(i);
        const void* found = rows == 0 ? nullptr
                                      : std::bsearch(&wanted, sortedKeys.data(), rows, sizeof(int32_t), compareKeys);
        uint8_t* row = call.out(0).out + i * rowBytes;
        if (found == nullptr) {
            if (rowBytes != 0) std::memset(row, 0, rowBytes);
            call.out(1).set<uint8_t>(i, 0);
            continue;
        }
        const auto index = static_cast<size_t>(static_cast<const int32_t*>(found) - sortedKeys.data());
        if (rowBytes != 0) std::memcpy(row, value.data + index * rowBytes, rowBytes);
        call.out(1).set<uint8_t>(i, 1);
    }
    return true;
}

}  // namespace kernels::lookup

}  // namespace nnemu::tflite
