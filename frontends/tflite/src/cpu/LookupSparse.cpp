// EMBEDDING_LOOKUP_SPARSE as TFLite's kernel: a sparse tensor (ids, their [n, rank] indices, its
// dense shape) picks weighted rows of `params`; the rows of one output position (indices minus
// their last column) are summed in float, then divided by the weight sum (MEAN) or the root of
// the squared weights' sum (SQRTN) when the next position starts, as TFLite finalizes them (so
// unsorted indices give TFLite's numbers too). The output, [dense_shape[:-1], params[1:]], is
// sized at invoke (TFLite's is always dynamic). Every id and index is checked.
#include <cmath>

#include "../RandomSparseAbi.h"
#include "CpuKernel.h"

namespace nnemu::tflite {
namespace {

enum Input { kIds, kIndices, kDenseShape, kWeights, kParams };

bool prepareLookupSparse(const CpuKernelCall& call) {
    if (!call.expectCounts(5, 5, 1)) return false;
    const struct {
        Input input;
        ElementType type;
        size_t rank;
        const char* name;
    } expected[] = {{kIds, ElementType::INT32, 1, "ids"},
                    {kIndices, ElementType::INT32, 2, "indices"},
                    {kDenseShape, ElementType::INT32, 1, "dense shape"},
                    {kWeights, ElementType::FLOAT32, 1, "weights"}};
    for (const auto& e : expected) {
        if (!call.expectType(call.in(e.input), {e.type}, e.name)) return false;
        if (call.in(e.input).rank() != e.rank) {
            return call.fail(std::string(e.name) + " must have rank " + std::to_string(e.rank));
        }
    }
    const int32_t lookups = call.in(kIds).shape()[0];
    if (call.in(kIndices).shape()[0] != lookups || call.in(kWeights).shape()[0] != lookups) {
        return call.fail("ids, indices and weights must have as many rows");
    }
    if (call.in(kIndices).shape()[1] < 1) return call.fail("indices must have at least one column");
    if (call.in(kDenseShape).shape()[0] != call.in(kIndices).shape()[1]) {
        return call.fail("dense shape must have one value per index column");
    }
    if (call.in(kParams).rank() < 2) return call.fail("params must have rank 2 or more");
    return call.expectType(call.in(kParams), {ElementType::FLOAT32}, "params") &&
           call.expectType(call.out(0), {ElementType::FLOAT32}, "output");
}

void finalize(TfLiteCombinerType combiner, int elements, float total, float squares, float* row, size_t size) {
    if (combiner == kTfLiteCombinerTypeSum || elements == 0) return;
    const float divisor = combiner == kTfLiteCombinerTypeMean ? total
                          : combiner == kTfLiteCombinerTypeSqrtn ? std::sqrt(squares) : 1.0f;
    for (size_t k = 0; k < size; ++k) row[k] /= divisor;
}

bool runLookupSparse(const CpuKernelCall& call) {
    if (!prepareLookupSparse(call)) return false;
    const auto* params = call.params<TfLiteEmbeddingLookupSparseParams>();
    const TfLiteCombinerType combiner = params != nullptr ? params->combiner : kTfLiteCombinerTypeSum;
    const CpuOperand &ids = call.in(kIds), &indices = call.in(kIndices), &dense = call.in(kDenseShape);
    const CpuOperand &weights = call.in(kWeights), &table = call.in(kParams);
    const auto columns = static_cast<size_t>(indices.shape()[1]);
    std::vector<int32_t> shape;
    for (size_t k = 0; k + 1 < columns; ++k) {
        const int32_t dim = dense.at<int32_t>(k);
        if (dim < 0) return call.fail("dense shape has the negative dimension " + std::to_string(dim));
        shape.push_back(dim);
    }
    size_t rowSize = 1;
    for (size_t k = 1; k < table.rank(); ++k) {
        shape.push_back(table.shape()[k]);
        rowSize *= static_cast<size_t>(table.shape()[k]);
    }
    if (!call.resizeOutput(0, shape)) return false;
    const size_t outputSize = call.out(0).count();
    std::vector<float> output(outputSize, 0.0f);
    const auto rows = static_cast<int64_t>(table.shape()[0]);
    size_t current = 0, elements = 0;
    float total = 0.0f, squares = 0.0f;
    for (size_t i = 0; i < ids.count(); ++i) {
        const int32_t id = ids.at<int32_t>(i);
        if (id < 0 || id >= rows) {
            return call.fail("index out of bounds: got " + std::to_string(id) + ", bounds are [0, " +
                             std::to_string(rows - 1) + "]");
        }
        size_t bucket = 0, stride = 1;
        for (size_t k = columns - 1; k-- > 0;) {
            const int32_t index = indices.at<int32_t>(i * columns + k), dim = dense.at<int32_t>(k);
            if (index < 0 || index >= dim) {
                return call.fail("index " + std::to_string(index) + " at dimension " + std::to_string(k) +
                                 " is out of bounds [0, " + std::to_string(dim) + ")");
            }
            bucket += static_cast<size_t>(index) * stride;
            stride *= static_cast<size_t>(dim);
        }
        const size_t offset = bucket * rowSize;
        if (offset != current) {
            finalize(combiner, static_cast<int>(elements), total, squares, output.data() + current, rowSize);
            elements = 0;
            total = squares = 0.0f;
            current = offset;
        }
        ++elements;
        const float w = weights.at<float>(i);
        squares += w * w;
        total += w;
        const size_t from = static_cast<size_t>(id) * rowSize;
        for (size_t k = 0; k < rowSize; ++k) output[current + k] += table.at<float>(from + k) * w;
    }
    if (current + rowSize <= outputSize) {
        finalize(combiner, static_cast<int>(elements), total, squares, output.data() + current, rowSize);
    }
    for (size_t k = 0; k < outputSize; ++k) call.out(0).set<float>(k, output[k]);
    return true;
}

}  // namespace

void addLookupSparseKernels(CpuKernelTable& table) {
    table.add(fb::BuiltinOperator_EMBEDDING_LOOKUP_SPARSE, {prepareLookupSparse, runLookupSparse});
}

}  // namespace nnemu::tflite
