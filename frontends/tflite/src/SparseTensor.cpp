// Sparse constants: readers and the expansion TFLite's DENSIFY performs. The walk follows
// TFLite's converter: levels in traversal order, a dense level counts through its dense size, a
// sparse level walks the segment of its parent position in the indices array (positions without
// a segment, or past the indices, are skipped as TFLite skips them); each stored value lands at
// the original coordinates (block levels refine their mapped dimension), in order. Unlike the
// converter, a coordinate outside the shape, a value past the stored ones, or an encoding that
// does not describe the shape is an error.
#include "SparseTensor.h"

#include <cstring>
#include <string>

#include "RandomSparseAbi.h"

namespace nnemu::tflite {
namespace {

Status bad(const std::string& message) { return badData("sparse tensor: " + message); }

template <typename Vector>
std::vector<int32_t> valuesOf(const Vector* vector) {
    std::vector<int32_t> values;
    if (vector != nullptr && vector->values() != nullptr) values.assign(vector->values()->begin(), vector->values()->end());
    return values;
}

Result<std::vector<int32_t>> indexVector(fb::SparseIndexVector type, const void* value) {
    switch (type) {
        case fb::SparseIndexVector_NONE: return std::vector<int32_t>{};
        case fb::SparseIndexVector_Int32Vector: return valuesOf(static_cast<const fb::Int32Vector*>(value));
        case fb::SparseIndexVector_Uint16Vector: return valuesOf(static_cast<const fb::Uint16Vector*>(value));
        case fb::SparseIndexVector_Uint8Vector: return valuesOf(static_cast<const fb::Uint8Vector*>(value));
        default: return bad("unknown index vector type " + std::to_string(static_cast<int>(type)));
    }
}

std::vector<int32_t> arrayOf(const TfLiteIntArray* array) {
    if (array == nullptr || array->size <= 0) return {};
    return std::vector<int32_t>(array->data, array->data + array->size);
}

// The walk's fixed facts, checked once.
struct Walk {
    Walk(const Sparsity& sparsity, const std::vector<int32_t>& dense) : s(sparsity), shape(dense) {}
    const Sparsity& s;
    const std::vector<int32_t>& shape;
    size_t rank = 0;
    std::vector<int32_t> blockSize, blockedShape, extent;   // extent: per level
    size_t elementSize = 0;
    const uint8_t* values = nullptr;
    size_t valueCount = 0, next = 0;
    uint8_t* out = nullptr;
    std::vector<int32_t> coordinates;   // per level

    Status check() {
        rank = shape.size();
        const size_t levels = s.traversalOrder.size(), blocks = s.blockMap.size();
        if (s.dimensions.size() != levels || levels != rank + blocks) {
            return bad(std::to_string(levels) + " traversed dimensions and " + std::to_string(s.dimensions.size()) +
                       " dimension metadata for rank " + std::to_string(rank) + " with " + std::to_string(blocks) +
                       " block dimensions");
        }
        std::vector<bool> seen(levels, false);
        for (size_t l = 0; l < levels; ++l) {
            const int32_t d = s.traversalOrder[l];
            const bool inRange = l < rank ? d >= 0 && static_cast<size_t>(d) < rank
                                          : static_cast<size_t>(d) >= rank && static_cast<size_t>(d) < levels;
            if (!inRange || seen[d]) return bad("traversal order is not a permutation of its dimensions");
            seen[d] = true;
        }
        for (size_t b = 0; b < blocks; ++b) {
            const int32_t d = s.blockMap[b];
            if (d < 0 || static_cast<size_t>(d) >= rank || (b > 0 && d <= s.blockMap[b - 1])) {
                return bad("block map must name increasing dimensions below the rank");
            }
            // TFLite's converter: the block size is the dense size at the level its traversal entry names.
            const int32_t size = s.dimensions[s.traversalOrder[rank + b]].denseSize;
            if (size <= 0 || shape[d] % size != 0) {
                return bad("block size " + std::to_string(size) + " does not divide dimension " + std::to_string(d));
            }
            blockSize.push_back(size);
        }
        blockedShape = shape;
        for (size_t b = 0; b < blocks; ++b) blockedShape[s.blockMap[b]] /= blockSize[b];
        for (size_t l = 0; l < levels; ++l) {
            const auto d = static_cast<size_t>(s.traversalOrder[l]);
            extent.push_back(l < rank ? blockedShape[d] : blockSize[d - rank]);
            const SparseDimension& dim = s.dimensions[l];
            if (!dim.sparse && (dim.denseSize < 0 || dim.denseSize > extent[l])) {
                return bad("dense size " + std::to_string(dim.denseSize) + " of level " + std::to_string(l) +
                           " exceeds its dimension " + std::to_string(extent[l]));
            }
            if (dim.sparse && dim.segments.empty()) return bad("sparse level " + std::to_string(l) + " has no segments");
            for (size_t i = 0; i < dim.segments.size(); ++i) {
                if (dim.segments[i] < 0 || (i > 0 && dim.segments[i] < dim.segments[i - 1])) {
                    return bad("segments of level " + std::to_string(l) + " decrease");
                }
            }
        }
        coordinates.assign(levels, 0);
        return {};
    }

    Status place() {
        std::vector<int64_t> original(rank, 0);
        for (size_t l = 0; l < rank; ++l) original[s.traversalOrder[l]] = coordinates[l];
        for (size_t l = rank; l < coordinates.size(); ++l) {
            const size_t block = s.traversalOrder[l] - rank;
            const auto d = static_cast<size_t>(s.blockMap[block]);
            original[d] = original[d] * blockSize[block] + coordinates[l];
        }
        size_t flat = 0;
        for (size_t d = 0; d < rank; ++d) {
            if (original[d] >= shape[d]) return bad("a stored value lies outside the shape");
            flat = flat * static_cast<size_t>(shape[d]) + static_cast<size_t>(original[d]);
        }
        if (next >= valueCount) return bad("the encoding needs more than its " + std::to_string(valueCount) + " values");
        if (out != nullptr) std::memcpy(out + flat * elementSize, values + next * elementSize, elementSize);
        ++next;
        return {};
    }

    Status visit(size_t level, size_t parent) {
        if (level == coordinates.size()) return place();
        const SparseDimension& dim = s.dimensions[level];
        if (!dim.sparse) {
            for (int32_t i = 0; i < dim.denseSize; ++i) {
                coordinates[level] = i;
                NNEMU_RETURN_IF_ERROR(visit(level + 1, parent * static_cast<size_t>(dim.denseSize) + i));
            }
            return {};
        }
        if (parent + 1 >= dim.segments.size()) return {};
        const int32_t begin = dim.segments[parent], end = dim.segments[parent + 1];   // checked: 0 <= begin <= end
        for (int32_t i = begin; i < end && static_cast<size_t>(i) < dim.indices.size(); ++i) {
            const int32_t index = dim.indices[i];
            if (index < 0 || index >= extent[level]) {
                return bad("index " + std::to_string(index) + " of level " + std::to_string(level) +
                           " is outside its dimension " + std::to_string(extent[level]));
            }
            coordinates[level] = index;
            NNEMU_RETURN_IF_ERROR(visit(level + 1, static_cast<size_t>(i)));
        }
        return {};
    }
};

}  // namespace

Result<std::shared_ptr<const Sparsity>> readSparsity(const fb::SparsityParameters& source) {
    auto sparsity = std::make_shared<Sparsity>();
    if (source.traversal_order() != nullptr) {
        sparsity->traversalOrder.assign(source.traversal_order()->begin(), source.traversal_order()->end());
    }
    if (source.block_map() != nullptr) sparsity->blockMap.assign(source.block_map()->begin(), source.block_map()->end());
    if (source.dim_metadata() != nullptr) {
        for (const fb::DimensionMetadata* metadata : *source.dim_metadata()) {
            SparseDimension dim;
            dim.sparse = metadata->format() == fb::DimensionType_SPARSE_CSR;
            dim.denseSize = metadata->dense_size();
            Result<std::vector<int32_t>> segments = indexVector(metadata->array_segments_type(), metadata->array_segments());
            Result<std::vector<int32_t>> indices = indexVector(metadata->array_indices_type(), metadata->array_indices());
            if (!segments) return segments.status();
            if (!indices) return indices.status();
            dim.segments = std::move(segments).value();
            dim.indices = std::move(indices).value();
            sparsity->dimensions.push_back(std::move(dim));
        }
    }
    return std::shared_ptr<const Sparsity>(std::move(sparsity));
}

Result<std::shared_ptr<const Sparsity>> readSparsity(const TfLiteSparsity& source) {
    auto sparsity = std::make_shared<Sparsity>();
    sparsity->traversalOrder = arrayOf(source.traversal_order);
    sparsity->blockMap = arrayOf(source.block_map);
    if (source.dim_metadata_size < 0 || (source.dim_metadata_size > 0 && source.dim_metadata == nullptr)) {
        return bad("no dimension metadata");
    }
    for (int i = 0; i < source.dim_metadata_size; ++i) {
        const TfLiteDimensionMetadata& metadata = source.dim_metadata[i];
        SparseDimension dim;
        dim.sparse = metadata.format == kTfLiteDimSparseCSR;
        dim.denseSize = metadata.dense_size;
        dim.segments = arrayOf(metadata.array_segments);
        dim.indices = arrayOf(metadata.array_indices);
        sparsity->dimensions.push_back(std::move(dim));
    }
    return std::shared_ptr<const Sparsity>(std::move(sparsity));
}

Status densify(const Sparsity& sparsity, const std::vector<int32_t>& shape, size_t elementSize, const uint8_t* values,
               size_t valueBytes, uint8_t* out) {
    Walk walk(sparsity, shape);
    NNEMU_RETURN_IF_ERROR(walk.check());
    if (elementSize == 0 || valueBytes % elementSize != 0) return bad("its buffer is not a whole number of values");
    size_t count = 1;
    for (int32_t dim : shape) count *= static_cast<size_t>(dim);
    if (count > 0 && out != nullptr) std::memset(out, 0, count * elementSize);
    walk.elementSize = elementSize;
    walk.values = values;
    walk.valueCount = valueBytes / elementSize;
    walk.out = out;
    return walk.visit(0, 0);
}

Status checkSparseTensorUses(const Subgraph& subgraph) {
    const auto sparse = [&](int32_t t) {
        return t >= 0 && static_cast<size_t>(t) < subgraph.tensors.size() && subgraph.tensors[t].sparsity != nullptr;
    };
    for (const Node& node : subgraph.nodes) {
        if (node.builtinCode == fb::BuiltinOperator_DENSIFY) continue;
        for (int32_t t : node.inputs) {
            if (sparse(t)) {
                return badData("node " + std::to_string(node.index) + " (" + node.opName + ") reads the sparse tensor " +
                               std::to_string(t) + ": only DENSIFY reads sparse tensors");
            }
        }
    }
    for (int32_t t : subgraph.outputs) {
        if (sparse(t)) return badData("the sparse tensor " + std::to_string(t) + " is a graph output");
    }
    return {};
}

}  // namespace nnemu::tflite
