// Signatures of the table lookup operations: EMBEDDING_LOOKUP, HASHTABLE_LOOKUP, LSH_PROJECTION.
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

// ---- EMBEDDING_LOOKUP: 0 lookups (I32, 1-D), 1 values (rank >= 2) -> rows of values.

// ---- HASHTABLE_LOOKUP: 0 lookups (I32 1-D), 1 keys (I32 1-D, sorted), 2 values [keys, ...]
//      -> 0 rows of values (zero where the key is missing), 1 hits (Q8, 1 = found).

// ---- LSH_PROJECTION: 0 hash seeds [numHash, numBits] (F32/F16), 1 input (rank >= 1),
//      2 weight [input dim 0] (type of hash, may be omitted), 3 i32 type -> I32 output.
// Types: 1 sparse (deprecated form, no per-hash offset), 2 dense, 3 sparse (with offset).

constexpr int32_t kLshSparseDeprecated = 1;
constexpr int32_t kLshDense = 2;
constexpr int32_t kLshSparse = 3;

}  // namespace

bool signatures::validateEmbeddingLookup(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::TENSOR_INT32}));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                                          OperandType::TENSOR_INT32, OperandType::TENSOR_QUANT8_ASYMM,
                                          OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
    NN_RET_CHECK(context.output(0).type == context.inputType(1));
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 1));
    NN_RET_CHECK(context.input(1).dims.empty() || context.input(1).rank() >= 2);
    return true;
}

bool signatures::prepareEmbeddingLookup(OperationContext& context) {
    const OperandView& lookups = context.input(0);
    const OperandView& values = context.input(1);
    NN_RET_CHECK(lookups.rank() == 1);
    NN_RET_CHECK(values.rank() >= 2);
    std::vector<uint32_t> dims = values.dims;
    dims[0] = lookups.dim(0);
    context.output(0).dims = dims;
    return true;
}

// FLOAT16 (and signed quantized) values came with feature level 30.
int64_t signatures::embeddingLookupFeatureLevel(const OperationContext& context) {
    const OperandType values = context.inputType(1);
    const bool later = values == OperandType::TENSOR_FLOAT16 || values == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    return later ? kFeatureLevel30 : operationFeatureLevel(context.type);
}

bool signatures::validateHashtableLookup(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {3}, 2));
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::TENSOR_INT32}));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::TENSOR_INT32}));
    NN_RET_CHECK(inputTypeIs(context, 2, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32,
                                          OperandType::TENSOR_QUANT8_ASYMM}));
    NN_RET_CHECK(context.output(0).type == context.inputType(2));
    NN_RET_CHECK(context.output(1).type == OperandType::TENSOR_QUANT8_ASYMM);
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 1));
    NN_RET_CHECK(rankIsOrUnknown(context.input(1), 1));
    NN_RET_CHECK(context.input(2).dims.empty() || context.input(2).rank() >= 1);
    return true;
}

bool signatures::prepareHashtableLookup(OperationContext& context) {
    const OperandView& lookups = context.input(0);
    const OperandView& keys = context.input(1);
    const OperandView& values = context.input(2);
    NN_RET_CHECK(lookups.rank() == 1);
    NN_RET_CHECK(keys.rank() == 1);
    NN_RET_CHECK(values.rank() >= 1);
    NN_RET_CHECK(keys.dim(0) == values.dim(0));
    std::vector<uint32_t> dims = values.dims;
    dims[0] = lookups.dim(0);
    context.output(0).dims = dims;
    context.output(1).dims = {lookups.dim(0)};
    return true;
}

bool signatures::validateLshProjection(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {4}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                                          OperandType::TENSOR_INT32, OperandType::TENSOR_QUANT8_ASYMM}));
    NN_RET_CHECK(context.input(2).omitted || context.inputType(2) == context.inputType(0));
    NN_RET_CHECK(inputTypeIs(context, 3, {OperandType::INT32}));
    NN_RET_CHECK(context.output(0).type == OperandType::TENSOR_INT32);
    const OperandView& hash = context.input(0);
    NN_RET_CHECK(rankIsOrUnknown(hash, 2));
    NN_RET_CHECK(context.input(1).dims.empty() || context.input(1).rank() >= 1);
    if (!context.input(2).omitted) NN_RET_CHECK(rankIsOrUnknown(context.input(2), 1));
    return true;
}

bool signatures::prepareLshProjection(OperationContext& context) {
    const OperandView& hash = context.input(0);
    const OperandView& input = context.input(1);
    const OperandView& weight = context.input(2);
    NN_RET_CHECK(hash.rank() == 2);
    NN_RET_CHECK(hash.dim(1) <= 32);
    NN_RET_CHECK(input.rank() >= 1);
    const bool hasWeight = !weight.omitted && weight.elements() > 0;
    if (hasWeight) {
        NN_RET_CHECK(weight.rank() == 1);
        NN_RET_CHECK(weight.dim(0) == input.dim(0));
    }
    const int32_t type = context.scalar<int32_t>(3);
    if (type == kLshDense) {
        context.output(0).dims = {hash.dim(0) * hash.dim(1)};
    } else {
        NN_RET_CHECK(type == kLshSparseDeprecated || type == kLshSparse);
        context.output(0).dims = {hash.dim(0)};
    }
    return true;
}

}  // namespace nnemu::hal
