// TensorFlow Lite's C structs (builtin_op_data.h, common.h) for the random builtins,
// EMBEDDING_LOOKUP_SPARSE and sparse tensors, as the front end's file reader fills them and a
// delegate's host (TFLite itself) hands them over. Layouts checked below (x86-64).
#pragma once

#include <cstddef>
#include <cstdint>

#include "nnemu/delegate/TfLiteAbi.h"

extern "C" {

// RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL, MULTINOMIAL. TFLite keeps the file's 64-bit seeds as
// int: their low 32 bits, sign-extended when the kernel seeds its generator.
typedef struct TfLiteRandomParams {
    int seed;
    int seed2;
} TfLiteRandomParams;

typedef enum {
    kTfLiteCombinerTypeSum = 0,
    kTfLiteCombinerTypeMean = 1,
    kTfLiteCombinerTypeSqrtn = 2,
} TfLiteCombinerType;

typedef struct TfLiteEmbeddingLookupSparseParams {
    TfLiteCombinerType combiner;
} TfLiteEmbeddingLookupSparseParams;

typedef enum TfLiteDimensionType {
    kTfLiteDimDense = 0,
    kTfLiteDimSparseCSR = 1,
} TfLiteDimensionType;

typedef struct TfLiteDimensionMetadata {
    TfLiteDimensionType format;
    int dense_size;
    TfLiteIntArray* array_segments;
    TfLiteIntArray* array_indices;
} TfLiteDimensionMetadata;

// TfLiteTensor.sparsity.
typedef struct TfLiteSparsity {
    TfLiteIntArray* traversal_order;
    TfLiteIntArray* block_map;
    TfLiteDimensionMetadata* dim_metadata;
    int dim_metadata_size;
} TfLiteSparsity;

}  // extern "C"

static_assert(sizeof(TfLiteRandomParams) == 8 && sizeof(TfLiteEmbeddingLookupSparseParams) == 4);
static_assert(offsetof(TfLiteDimensionMetadata, array_segments) == 8 &&
              offsetof(TfLiteDimensionMetadata, array_indices) == 16 && sizeof(TfLiteDimensionMetadata) == 24);
static_assert(offsetof(TfLiteSparsity, dim_metadata) == 16 && offsetof(TfLiteSparsity, dim_metadata_size) == 24 &&
              sizeof(TfLiteSparsity) == 32);
