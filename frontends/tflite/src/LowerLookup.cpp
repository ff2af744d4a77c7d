// Table lookups and hashing: EMBEDDING_LOOKUP, HASHTABLE_LOOKUP and LSH_PROJECTION -> the NNAPI
// operations of the same name (feature level 27). TFLite's delegate takes the float forms (float32
// embedding values, a float32 hash-table output) and every LSH projection but the sparse one with
// weights, and the dense one without; the other forms NNAPI expresses (8-bit tables copied as they
// are, int32 tables, those projections) run on nnapi-reference, and the rest (a dequantizing
// "hybrid" embedding lookup, int8 tables) on the tools' CPU kernels (cpu/Lookup.cpp).
#include <android/NeuralNetworks.h>

#include "NodeLowering.h"

namespace nnemu::tflite {
namespace {

bool oneDimensionalInt32(NodeLowering& l, size_t i, const char* what, uint32_t* operand) {
    if (l.input(i).type != ElementType::INT32 || l.input(i).shape.size() != 1) {
        return l.fail(std::string(what) + " must be a 1-D int32 tensor");
    }
    return l.inputOperand(i, operand);
}

bool lowerEmbeddingLookup(NodeLowering& l) {
    if (!l.expectCounts(2, 2, 1)) return false;
    const Tensor& value = l.input(1);
    if (value.shape.size() < 2) return l.fail("the value tensor must have at least 2 dimensions");
    const bool floatTable = value.type == ElementType::FLOAT32;
    const bool copied8Bit = (value.type == ElementType::UINT8 || value.type == ElementType::INT8) &&
                            l.output(0).type == value.type;
    if (!floatTable && !copied8Bit) {
        return l.fail(std::string("a ") + elementTypeName(value.type) + " table with a " +
                      elementTypeName(l.output(0).type) + " output has no NNAPI EMBEDDING_LOOKUP form");
    }
    uint32_t lookups, values, output;
    if (!oneDimensionalInt32(l, 0, "the lookup input", &lookups) || !l.inputOperand(1, &values) ||
        !l.outputOperand(0, &output)) {
        return false;
    }
    if (!floatTable) l.keepOnCpu();   // the delegate maps float32 values only
    l.addOperation(ANEURALNETWORKS_EMBEDDING_LOOKUP, {lookups, values}, {output});
    return true;
}

bool lowerHashtableLookup(NodeLowering& l) {
    if (!l.expectCounts(3, 3, 2)) return false;
    const Tensor& value = l.input(2);
    if (value.type != ElementType::FLOAT32 && value.type != ElementType::INT32 && value.type != ElementType::UINT8) {
        return l.fail(std::string("a ") + elementTypeName(value.type) + " table has no NNAPI HASHTABLE_LOOKUP form");
    }
    if (value.shape.empty()) return l.fail("the value tensor must have at least 1 dimension");
    if (l.output(0).type != value.type) return l.fail("the output type differs from the values'");
    if (l.output(1).type != ElementType::UINT8) return l.fail("the hits output must be uint8");
    uint32_t lookups, keys, values, output, hits;
    if (!oneDimensionalInt32(l, 0, "the lookup input", &lookups) || !oneDimensionalInt32(l, 1, "the keys", &keys) ||
        !l.inputOperand(2, &values) || !l.outputOperand(0, &output) ||
        !l.activation(l.node().outputs[1], &hits, /*rawIntegers=*/true)) {
        return false;
    }
    if (value.type != ElementType::FLOAT32) l.keepOnCpu();   // the delegate maps a float32 output only
    l.addOperation(ANEURALNETWORKS_HASHTABLE_LOOKUP, {lookups, keys, values}, {output, hits});
    return true;
}

// NNAPI's projection types: 1 is the sparse form of feature level 27 (which leaves out each
// bucket's offset), 2 dense, 3 the sparse form TFLite computes (feature level 29).
constexpr int32_t kNnapiLshDense = 2;
constexpr int32_t kNnapiLshSparse = 3;

bool lowerLshProjection(NodeLowering& l) {
    if (!l.expectCounts(2, 3, 1)) return false;
    const auto* options = l.params<TfLiteLSHProjectionParams>();
    const TfLiteLSHProjectionType type = options != nullptr ? options->type : kTfLiteLshProjectionUnknown;
    if (type != kTfLiteLshProjectionSparse && type != kTfLiteLshProjectionDense) {
        return l.fail("the projection type must be SPARSE or DENSE");
    }
    const Tensor& hash = l.input(0);
    if (hash.type != ElementType::FLOAT32 || hash.shape.size() != 2) return l.fail("the hash must be a 2-D float32 tensor");
    if (hash.shape[1] > 32) return l.fail("the hash has more than 32 bits per function");
    const Tensor& input = l.input(1);
    if (input.shape.empty()) return l.fail("the input must have at least 1 dimension");
    // NNAPI hashes the stored bytes: int8 values would be hashed shifted by 128.
    if (input.type != ElementType::FLOAT32 && input.type != ElementType::INT32 && input.type != ElementType::UINT8) {
        return l.fail(std::string("a ") + elementTypeName(input.type) + " input has no NNAPI LSH_PROJECTION form");
    }
    const bool weighted = l.hasInput(2);
    if (weighted && (l.input(2).type != ElementType::FLOAT32 || l.input(2).shape.size() != 1 ||
                     l.input(2).shape[0] != input.shape[0])) {
        return l.fail("the weights must be a float32 vector of the input's first dimension");
    }
    uint32_t hashOperand, inputOperand, weights, output;
    if (!l.inputOperand(0, &hashOperand) || !l.inputOperand(1, &inputOperand) ||
        (weighted ? !l.inputOperand(2, &weights) : (weights = l.omitted(ANEURALNETWORKS_TENSOR_FLOAT32), false)) ||
        !l.outputOperand(0, &output)) {
        return false;
    }
    // The delegate maps the sparse form without weights only, and the dense form with them (it
    // leaves a dense projection's absent weights out of the operation, which NNAPI then refuses).
    if ((type == kTfLiteLshProjectionSparse) == weighted) l.keepOnCpu();
    const int32_t nnapiType = type == kTfLiteLshProjectionSparse ? kNnapiLshSparse : kNnapiLshDense;
    l.addOperation(ANEURALNETWORKS_LSH_PROJECTION, {hashOperand, inputOperand, weights, l.scalarInt32(nnapiType)},
                   {output});
    return true;
}

}  // namespace

void addLookupLowerings(LoweringTable& table) {
    table.add(fb::BuiltinOperator_EMBEDDING_LOOKUP, lowerEmbeddingLookup);
    table.add(fb::BuiltinOperator_HASHTABLE_LOOKUP, lowerHashtableLookup);
    table.add(fb::BuiltinOperator_LSH_PROJECTION, lowerLshProjection);
}

}  // namespace nnemu::tflite
