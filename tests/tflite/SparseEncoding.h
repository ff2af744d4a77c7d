// Test-side encoder of sparse constants: a dense tensor written in TFLite's sparse format
// (traversal order, block map, per level DENSE or SPARSE_CSR with int32, uint16 or uint8 index
// vectors), as a pruning converter writes DENSIFY's input.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "GraphBuilder.h"

namespace nnemu::tflite::test {

struct SparseFormat {
    std::vector<int32_t> traversalOrder;   // rank + blocks entries
    std::vector<int32_t> blockMap;         // per block dimension: the original dimension it splits
    std::vector<int32_t> blockSize;        // per block dimension
    std::vector<bool> sparse;              // per level (traversal order): SPARSE_CSR
    fb::SparseIndexVector indexType = fb::SparseIndexVector_Int32Vector;
};

struct SparseEncoded {
    std::vector<uint8_t> values;   // the stored values' bytes
    std::vector<int32_t> denseSize;
    std::vector<std::vector<int32_t>> segments, indices;   // per level
};

// Encodes `dense` (elementSize bytes per element, row-major `shape`) in `format`.
class SparseEncoder {
public:
    SparseEncoder(const std::vector<int32_t>& shape, const SparseFormat& format, size_t elementSize, const uint8_t* dense)
        : shape_(shape), f_(format), size_(elementSize), dense_(dense) {
        const size_t rank = shape.size(), levels = f_.traversalOrder.size();
        std::vector<int32_t> blocked = shape;
        for (size_t b = 0; b < f_.blockMap.size(); ++b) blocked[f_.blockMap[b]] /= f_.blockSize[b];
        for (size_t l = 0; l < levels; ++l) {
            const auto d = static_cast<size_t>(f_.traversalOrder[l]);
            extent_.push_back(l < rank ? blocked[d] : f_.blockSize[d - rank]);
        }
        out_.denseSize.assign(levels, 0);
        out_.segments.assign(levels, {});
        out_.indices.assign(levels, {});
        for (size_t l = 0; l < levels; ++l) {
            if (f_.sparse[l]) {
                out_.segments[l] = {0};
            } else {
                out_.denseSize[l] = extent_[l];
            }
        }
        coordinates_.assign(levels, 0);
        encode(0);
    }
    const SparseEncoded& encoded() const { return out_; }

    // The SparsityParameters table of this encoding.
    GraphBuilder::Sparsity parameters() const {
        const SparseEncoded e = out_;
        const SparseFormat f = f_;
        return [e, f](flatbuffers::FlatBufferBuilder& b) {
            std::vector<flatbuffers::Offset<fb::DimensionMetadata>> dims;
            for (size_t l = 0; l < e.denseSize.size(); ++l) {
                if (!f.sparse[l]) {
                    dims.push_back(fb::CreateDimensionMetadata(b, fb::DimensionType_DENSE, e.denseSize[l]));
                    continue;
                }
                const auto segments = indexVector(b, f.indexType, e.segments[l]);
                const auto indices = indexVector(b, f.indexType, e.indices[l]);
                dims.push_back(fb::CreateDimensionMetadata(b, fb::DimensionType_SPARSE_CSR, 0, f.indexType, segments,
                                                           f.indexType, indices));
            }
            return fb::CreateSparsityParametersDirect(b, &f.traversalOrder, f.blockMap.empty() ? nullptr : &f.blockMap,
                                                      &dims);
        };
    }

    static flatbuffers::Offset<void> indexVector(flatbuffers::FlatBufferBuilder& b, fb::SparseIndexVector type,
                                                 const std::vector<int32_t>& values) {
        switch (type) {
            case fb::SparseIndexVector_Uint16Vector: {
                const std::vector<uint16_t> v(values.begin(), values.end());
                return fb::CreateUint16VectorDirect(b, &v).Union();
            }
            case fb::SparseIndexVector_Uint8Vector: {
                const std::vector<uint8_t> v(values.begin(), values.end());
                return fb::CreateUint8VectorDirect(b, &v).Union();
            }
            default: return fb::CreateInt32VectorDirect(b, &values).Union();
        }
    }

private:
    // The row-major element offset of the current coordinates.
    size_t offset() const {
        const size_t rank = shape_.size();
        std::vector<size_t> original(rank, 0);
        for (size_t l = 0; l < rank; ++l) original[f_.traversalOrder[l]] = coordinates_[l];
        for (size_t l = rank; l < coordinates_.size(); ++l) {
            const size_t block = f_.traversalOrder[l] - rank;
            original[f_.blockMap[block]] = original[f_.blockMap[block]] * f_.blockSize[block] + coordinates_[l];
        }
        size_t flat = 0;
        for (size_t d = 0; d < rank; ++d) flat = flat * shape_[d] + original[d];
        return flat;
    }
    bool nonzeroBelow(size_t level) {
        if (level == coordinates_.size()) {
            const uint8_t* p = dense_ + offset() * size_;
            for (size_t i = 0; i < size_; ++i) {
                if (p[i] != 0) return true;
            }
            return false;
        }
        for (int32_t i = 0; i < extent_[level]; ++i) {
            coordinates_[level] = i;
            if (nonzeroBelow(level + 1)) return true;
        }
        return false;
    }
    void encode(size_t level) {
        if (level == coordinates_.size()) {
            const uint8_t* p = dense_ + offset() * size_;
            out_.values.insert(out_.values.end(), p, p + size_);
            return;
        }
        for (int32_t i = 0; i < extent_[level]; ++i) {
            coordinates_[level] = i;
            if (f_.sparse[level]) {
                if (!nonzeroBelow(level + 1)) continue;
                coordinates_[level] = i;
                out_.indices[level].push_back(i);
            }
            encode(level + 1);
        }
        if (f_.sparse[level]) out_.segments[level].push_back(static_cast<int32_t>(out_.indices[level].size()));
    }

    std::vector<int32_t> shape_;
    SparseFormat f_;
    size_t size_;
    const uint8_t* dense_;
    std::vector<int32_t> extent_;
    std::vector<size_t> coordinates_;
    SparseEncoded out_;
};

}  // namespace nnemu::tflite::test
