// MIRROR_PAD, REVERSE_V2 and BATCH_MATMUL onto the NNAPI operations of feature levels 6 and 7.
// The TFLite sources searched (an older nnapi_delegate.cc) map none of them, but real TFLite 2.21
// (../shared/tflite, benchmark_model --use_nnapi=true with nnemu's library) delegates all three
// one-operator models of RealTfliteLoweringTest.cpp, so they are delegate candidates here too:
//   MIRROR_PAD   -> MIRROR_PAD (constant paddings; REFLECT or SYMMETRIC)
//   REVERSE_V2   -> one REVERSE per axis (constant axes)
//   BATCH_MATMUL -> BATCH_MATMUL (float32, int8; same rank and batch dimensions, no broadcast)
#include <android/NeuralNetworks.h>

#include <algorithm>

#include "LoweringList.h"
#include "RuntimeLevel.h"

namespace nnemu::tflite {
namespace lowerings::data_movement {

constexpr int64_t kFeatureLevel6 = 1000006;   // BATCH_MATMUL
constexpr int64_t kFeatureLevel7 = 1000007;   // MIRROR_PAD, REVERSE

bool atLevel(NodeLowering& l, int64_t needed, const char* what) {
    const int64_t level = nnapiRuntimeFeatureLevel();
    if (level >= needed) return true;
    return l.fail(std::string(what) + " needs NNAPI feature level " + std::to_string(needed) +
                  "; the runtime implements " + std::to_string(level));
}

bool movableType(NodeLowering& l, ElementType type) {
    if (type == ElementType::FLOAT32 || type == ElementType::UINT8 || type == ElementType::INT8 ||
        type == ElementType::INT32) {
        return true;
    }
    return l.fail(std::string("input type ") + elementTypeName(type) + " has no NNAPI form (float32, uint8, int8, int32)");
}

bool lowerMirrorPad(NodeLowering& l) {
    if (!l.expectCounts(2, 2, 1)) return false;
    const auto* options = l.params<TfLiteMirrorPaddingParams>();
    if (options == nullptr) return l.fail("missing MirrorPadOptions");
    if (options->mode != kTfLiteMirrorPaddingReflect && options->mode != kTfLiteMirrorPaddingSymmetric) {
        return l.fail("unknown mirror padding mode " + std::to_string(options->mode));
    }
    if (!movableType(l, l.input(0).type) || !atLevel(l, kFeatureLevel7, "MIRROR_PAD")) return false;
    uint32_t input, output;
    std::vector<int32_t> paddings;
    if (!l.inputOperand(0, &input) || !l.constantInts(1, &paddings)) return false;
    const auto rank = static_cast<uint32_t>(l.operand(input).dims.size());
    if (rank == 0 || paddings.size() != 2 * rank) return l.fail("paddings must be [rank, 2]");
    if (!l.outputOperand(0, &output)) return false;
    const int32_t mode = options->mode == kTfLiteMirrorPaddingReflect ? 0 : 1;
    l.addOperation(ANEURALNETWORKS_MIRROR_PAD, {input, l.tensorInt32(paddings, {rank, 2}), l.scalarInt32(mode)},
                   {output});
    return true;
}

bool lowerReverseV2(NodeLowering& l) {
    if (!l.expectCounts(2, 2, 1)) return false;
    if (!movableType(l, l.input(0).type) || !atLevel(l, kFeatureLevel7, "REVERSE")) return false;
    uint32_t input, output;
    std::vector<int32_t> axes;
    if (!l.inputOperand(0, &input) || !l.constantInts(1, &axes)) return false;
    const auto rank = static_cast<int32_t>(l.operand(input).dims.size());
    if (axes.empty()) return l.fail("no axis to reverse");
    for (int32_t& axis : axes) {
        if (axis < -rank || axis >= rank) return l.fail("axis " + std::to_string(axis) + " out of range");
        if (axis < 0) axis += rank;
    }
    std::vector<int32_t> sorted = axes;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return l.fail("an axis appears twice");
    if (!l.outputOperand(0, &output)) return false;
    uint32_t current = input;
    for (size_t i = 0; i < axes.size(); ++i) {
        const NnOperand like = l.operand(input);
        const uint32_t next = i + 1 == axes.size() ? output : l.temporary(like, like.dims);
        l.addOperation(ANEURALNETWORKS_REVERSE, {current, l.vectorInt32({axes[i]})}, {next});
        current = next;
    }
    return true;
}

bool lowerBatchMatmul(NodeLowering& l) {
    if (!l.expectCounts(2, 2, 1)) return false;
    const auto* options = l.params<TfLiteBatchMatMulParams>();
    if (options == nullptr) return l.fail("missing BatchMatMulOptions");
    const ElementType type = l.input(0).type;
    if (type != ElementType::FLOAT32 && type != ElementType::INT8) {
        return l.fail(std::string("input type ") + elementTypeName(type) + " has no NNAPI form (float32, int8)");
    }
    if (l.input(1).type != type || l.output(0).type != type) return l.fail("input and output types differ");
    if (!atLevel(l, kFeatureLevel6, "BATCH_MATMUL")) return false;
    const std::vector<int32_t>& x = l.input(0).shape;
    const std::vector<int32_t>& y = l.input(1).shape;
    if (x.size() != y.size() || x.size() < 2 || x.size() > 4 || !std::equal(x.begin(), x.end() - 2, y.begin())) {
        return l.fail("NNAPI BATCH_MATMUL takes ranks 2 to 4 with equal batch dimensions (no broadcast)");
    }
    uint32_t a, b, output;
    if (!l.inputOperand(0, &a) || !l.inputOperand(1, &b) || !l.outputOperand(0, &output)) return false;
    if (l.operand(a).type == ANEURALNETWORKS_TENSOR_QUANT8_ASYMM) return l.fail("NNAPI BATCH_MATMUL has no unsigned 8-bit form");
    l.addOperation(ANEURALNETWORKS_BATCH_MATMUL, {a, b, l.scalarBool(options->adj_x), l.scalarBool(options->adj_y)},
                   {output});
    return true;
}

}  // namespace lowerings::data_movement

}  // namespace nnemu::tflite
