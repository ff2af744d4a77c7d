// A sparse constant's encoding (TFLite's SparsityParameters): the traversal order of its
// dimensions and block dimensions, which original dimension each block dimension splits, and per
// traversed dimension either its dense size or the CSR segments and indices of its stored
// coordinates. Only DENSIFY reads such a tensor; its data are the stored values alone.
#pragma once

#include <cstdint>
#include <vector>

namespace nnemu::tflite {

struct SparseDimension {
    bool sparse = false;              // SPARSE_CSR; otherwise DENSE
    int32_t denseSize = 0;            // DENSE
    std::vector<int32_t> segments;    // SPARSE_CSR (uint8/uint16/int32 in the file)
    std::vector<int32_t> indices;
};

struct Sparsity {
    std::vector<int32_t> traversalOrder;
    std::vector<int32_t> blockMap;
    std::vector<SparseDimension> dimensions;   // in traversal order
};

}  // namespace nnemu::tflite
