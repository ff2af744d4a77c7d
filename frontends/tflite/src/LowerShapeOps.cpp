// PACK, FILL, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND and REDUCE_ANY as TensorFlow Lite's NNAPI
// delegate (2.21) maps them:
//   PACK       -> CONCATENATION then RESHAPE (level 30; float32, int8, int32, not on the last axis)
//   FILL       -> FILL (level 30; constant int32/int64 dims, at least one; float32 or int32 value)
//   SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND -> the operations of the same name (crops all zero)
//   REDUCE_ANY -> REDUCE_ANY (not to a scalar)
// BATCH_TO_SPACE_ND with crops, which the delegate refuses, stays off the delegate (keepOnCpu) and
// runs on nnapi-reference as BATCH_TO_SPACE_ND then SLICE. PACK of uint8 or int32 or on the last
// axis, which the sources searched refuse, is delegated by real TFLite 2.21 (checked with
// benchmark_model on nnemu's library): it becomes NNAPI PACK (feature level 6; NNAPI
// CONCATENATION has no int32 form).
#include <android/NeuralNetworks.h>

#include <cstring>

#include "LoweringList.h"
#include "RuntimeLevel.h"

namespace nnemu::tflite {
namespace lowerings::shape_ops {

constexpr int64_t kLevel30 = 30;
constexpr int64_t kFeatureLevel6 = 1000006;   // NNAPI PACK

bool atLevel(NodeLowering& l, int64_t needed, const char* what) {
    const int64_t level = nnapiRuntimeFeatureLevel();
    if (level >= needed) return true;
    return l.fail(std::string(what) + " needs NNAPI feature level " + std::to_string(needed) +
                  "; the runtime implements " + std::to_string(level));
}

bool oneOf(ElementType type, std::initializer_list<ElementType> types) {
    for (ElementType t : types) {
        if (t == type) return true;
    }
    return false;
}

bool typeRefused(NodeLowering& l, ElementType type, const char* allowed) {
    return l.fail(std::string("input type ") + elementTypeName(type) + " is not mapped to NNAPI (" + allowed + ")");
}

bool lowerPack(NodeLowering& l) {
    const auto* options = l.params<TfLitePackParams>();
    if (options == nullptr) return l.fail("missing PackOptions");
    if (l.inputCount() < 1 || !l.expectCounts(l.inputCount(), l.inputCount(), 1)) return false;
    if (options->values_count != static_cast<int>(l.inputCount())) {
        return l.fail("values_count " + std::to_string(options->values_count) + " does not match " +
                      std::to_string(l.inputCount()) + " inputs");
    }
    const ElementType type = l.input(0).type;
    if (!oneOf(type, {ElementType::FLOAT32, ElementType::UINT8, ElementType::INT8, ElementType::INT32})) {
        return typeRefused(l, type, "float32, uint8, int8, int32");
    }
    const auto rank = static_cast<int32_t>(l.input(0).shape.size());
    if (rank == 0) return l.fail("NNAPI packs no scalars");
    if (options->axis < -(rank + 1) || options->axis > rank) return l.fail("axis " + std::to_string(options->axis) + " out of range");
    const int32_t axis = options->axis < 0 ? options->axis + rank + 1 : options->axis;
    std::vector<uint32_t> inputs;
    for (size_t i = 0; i < l.inputCount(); ++i) {
        uint32_t operand;
        if (!l.inputOperand(i, &operand)) return false;
        if (l.operand(operand).dims != l.operand(inputs.empty() ? operand : inputs[0]).dims) {
            return l.fail("inputs differ in shape");
        }
        inputs.push_back(operand);
    }
    uint32_t output;
    if (!l.outputOperand(0, &output)) return false;
    // The delegate's form: float32, int8 (int32 too, which NNAPI CONCATENATION lacks), not on
    // the last axis (its Validate refuses axis -1 and axis == rank).
    const bool delegated = (type == ElementType::FLOAT32 || type == ElementType::INT8) && options->axis != -1 &&
                           options->axis != rank && nnapiRuntimeFeatureLevel() >= kLevel30;
    if (delegated) {
        std::vector<uint32_t> dims = l.operand(inputs[0]).dims;
        dims[axis] *= static_cast<uint32_t>(inputs.size());
        const NnOperand first = l.operand(inputs[0]);
        const uint32_t joined = l.temporary(first, dims);
        std::vector<uint32_t> concatInputs = inputs;
        concatInputs.push_back(l.scalarInt32(axis));
        l.addOperation(ANEURALNETWORKS_CONCATENATION, concatInputs, {joined});
        std::vector<int32_t> shape(l.operand(output).dims.begin(), l.operand(output).dims.end());
        l.addOperation(ANEURALNETWORKS_RESHAPE, {joined, l.vectorInt32(shape)}, {output});
        return true;
    }
    if (!atLevel(l, kFeatureLevel6, "PACK of uint8 or int32 or on the last axis")) return false;
    std::vector<uint32_t> packInputs = {l.scalarInt32(axis)};
    packInputs.insert(packInputs.end(), inputs.begin(), inputs.end());
    l.addOperation(ANEURALNETWORKS_PACK, packInputs, {output});
    return true;
}

bool lowerFill(NodeLowering& l) {
    if (!l.expectCounts(2, 2, 1)) return false;
    if (!atLevel(l, kLevel30, "FILL")) return false;
    const Tensor& dimsTensor = l.input(0);
    if (!dimsTensor.isConstant) return l.fail("NNAPI FILL takes constant dimensions only");
    std::vector<int32_t> dims;
    if (!l.constantInts(0, &dims)) return false;
    if (dims.empty()) return l.fail("NNAPI FILL makes no scalar");
    const Tensor& value = l.input(1);
    if (value.type != ElementType::FLOAT32 && value.type != ElementType::INT32) {
        return typeRefused(l, value.type, "float32, int32 values");
    }
    if (!value.isConstant || value.dataSize < 4) return l.fail("the fill value must be a constant for the tools' NNAPI form");
    if (l.output(0).type != value.type) return l.fail("the output type differs from the value's");
    uint32_t output;
    if (!l.outputOperand(0, &output)) return false;
    uint32_t scalar = 0;
    if (value.type == ElementType::FLOAT32) {
        float v;
        std::memcpy(&v, value.data, 4);
        scalar = l.scalarFloat32(v);
    } else {
        int32_t v;
        std::memcpy(&v, value.data, 4);
        scalar = l.scalarInt32(v);
    }
    l.addOperation(ANEURALNETWORKS_FILL, {l.vectorInt32(dims), scalar}, {output});
    return true;
}

// The block shape and paddings/crops of a 4-D SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND.
bool batchSpaceInputs(NodeLowering& l, uint32_t* input, std::vector<int32_t>* block, std::vector<int32_t>* pads) {
    if (!l.expectCounts(3, 3, 1)) return false;
    if (!oneOf(l.input(0).type, {ElementType::FLOAT32, ElementType::UINT8, ElementType::INT8})) {
        return typeRefused(l, l.input(0).type, "float32, uint8, int8");
    }
    if (l.input(0).shape.size() != 4) return l.fail("NNAPI takes 4-D input only");
    if (!l.inputOperand(0, input) || !l.constantInts(1, block) || !l.constantInts(2, pads)) return false;
    if (block->size() != 2 || pads->size() != 4) return l.fail("expected a [2] block shape and [2, 2] paddings or crops");
    for (int32_t b : *block) {
        if (b < 1) return l.fail("block sizes must be >= 1");
    }
    for (int32_t p : *pads) {
        if (p < 0) return l.fail("paddings and crops must be >= 0");
    }
    return true;
}

bool lowerSpaceToBatch(NodeLowering& l) {
    uint32_t input, output;
    std::vector<int32_t> block, paddings;
    if (!batchSpaceInputs(l, &input, &block, &paddings) || !l.outputOperand(0, &output)) return false;
    l.addOperation(ANEURALNETWORKS_SPACE_TO_BATCH_ND, {input, l.vectorInt32(block), l.tensorInt32(paddings, {2, 2})},
                   {output});
    return true;
}

bool lowerBatchToSpace(NodeLowering& l) {
    uint32_t input, output;
    std::vector<int32_t> block, crops;
    if (!batchSpaceInputs(l, &input, &block, &crops) || !l.outputOperand(0, &output)) return false;
    const bool cropped = crops != std::vector<int32_t>(4, 0);
    if (!cropped) {
        l.addOperation(ANEURALNETWORKS_BATCH_TO_SPACE_ND, {input, l.vectorInt32(block)}, {output});
        return true;
    }
    // The delegate refuses crops: NNAPI has none, so BATCH_TO_SPACE_ND then SLICE, off the delegate.
    const std::vector<uint32_t> in = l.operand(input).dims;
    const auto b0 = static_cast<uint32_t>(block[0]), b1 = static_cast<uint32_t>(block[1]);
    if (in[0] % (b0 * b1) != 0) return l.fail("the batch is not a multiple of the block");
    const std::vector<uint32_t> spread = {in[0] / (b0 * b1), in[1] * b0, in[2] * b1, in[3]};
    const std::vector<uint32_t> out = l.operand(output).dims;
    if (out.size() != 4 || out[1] + crops[0] + crops[1] != spread[1] || out[2] + crops[2] + crops[3] != spread[2]) {
        return l.fail("crops do not match the output shape");
    }
    l.keepOnCpu();
    const NnOperand like = l.operand(input);
    const uint32_t whole = l.temporary(like, spread);
    l.addOperation(ANEURALNETWORKS_BATCH_TO_SPACE_ND, {input, l.vectorInt32(block)}, {whole});
    const std::vector<int32_t> begins = {0, crops[0], crops[2], 0};
    const std::vector<int32_t> sizes(out.begin(), out.end());
    l.addOperation(ANEURALNETWORKS_SLICE, {whole, l.vectorInt32(begins), l.vectorInt32(sizes)}, {output});
    return true;
}

bool lowerReduceAny(NodeLowering& l) {
    const auto* options = l.params<TfLiteReducerParams>();
    if (!l.expectCounts(2, 2, 1)) return false;
    if (l.input(0).type != ElementType::BOOL) return typeRefused(l, l.input(0).type, "bool");
    if (l.output(0).shape.empty()) return l.fail("NNAPI does not reduce to a scalar");
    uint32_t input, output;
    std::vector<int32_t> axes;
    if (!l.inputOperand(0, &input) || !l.reductionAxes(input, &axes)) return false;
    if (!l.outputOperand(0, &output)) return false;
    const bool keepDims = options != nullptr && options->keep_dims;
    l.addOperation(ANEURALNETWORKS_REDUCE_ANY, {input, l.vectorInt32(axes), l.scalarBool(keepDims)}, {output});
    return true;
}

}  // namespace lowerings::shape_ops

}  // namespace nnemu::tflite
