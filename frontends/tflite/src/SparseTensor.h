// Sparse constants (pruned weights): read from the file's SparsityParameters or a host's
// TfLiteSparsity, and expanded to dense as TFLite's DENSIFY does (sparsity_format_converter).
// Every size and index is checked: malformed encodings give BAD_DATA, never a read or write out
// of bounds.
#pragma once

#include <memory>

#include "nnemu/base/Status.h"
#include "nnemu/tflite/Model.h"
#include "nnemu/tflite/tflite_generated.h"

struct TfLiteSparsity;

namespace nnemu::tflite {

Result<std::shared_ptr<const Sparsity>> readSparsity(const fb::SparsityParameters& source);
Result<std::shared_ptr<const Sparsity>> readSparsity(const TfLiteSparsity& source);

// Writes the dense tensor of `shape` (elementCount(shape) * elementSize bytes at `out`, zeroed
// first) from the stored values (`valueBytes` bytes at `values`). out == nullptr: checks only.
Status densify(const Sparsity& sparsity, const std::vector<int32_t>& shape, size_t elementSize, const uint8_t* values,
               size_t valueBytes, uint8_t* out);

// Only DENSIFY may read a sparse tensor (anything else would take its values as a dense tensor).
Status checkSparseTensorUses(const Subgraph& subgraph);

}  // namespace nnemu::tflite
