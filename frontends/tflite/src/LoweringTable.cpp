// The table of lowerings (kLowerings: every builtin's, by code) and the lowering of a whole model.
#include "LoweringList.h"
#include "cpu/CpuKernel.h"

namespace nnemu::tflite {

void LoweringTable::add(fb::BuiltinOperator code, LoweringFunction function) {
    const auto index = static_cast<size_t>(code);
    if (functions_.size() <= index) functions_.resize(index + 1, nullptr);
    functions_[index] = function;
}

void LoweringTable::addCustom(const std::string& name, LoweringFunction function) { custom_[name] = function; }

LoweringFunction LoweringTable::find(const Node& node) const {
    if (node.builtinCode == fb::BuiltinOperator_CUSTOM) {
        const auto found = custom_.find(node.opName);
        return found == custom_.end() ? nullptr : found->second;
    }
    if (node.builtinCode < 0 || static_cast<size_t>(node.builtinCode) >= functions_.size()) return nullptr;
    return functions_[static_cast<size_t>(node.builtinCode)];
}

namespace lowerings {
namespace {

struct LoweringRow {
    fb::BuiltinOperator code;
    LoweringFunction function;
};

// Every builtin's lowering but those of the families that add their own (NodeLowering.h), one
// row per builtin code, grouped by the Lower<Family>.cpp that defines its function (declared in
// LoweringList.h).
const LoweringRow kLowerings[] = {
    // LowerActivation.cpp
    {fb::BuiltinOperator_HARD_SWISH, activation::lowerHardSwish},
    {fb::BuiltinOperator_LEAKY_RELU, activation::lowerLeakyRelu},
    {fb::BuiltinOperator_ELU, activation::lowerElu},
    {fb::BuiltinOperator_SQUARED_DIFFERENCE, activation::lowerSquaredDifference},
    // LowerComparison.cpp
    {fb::BuiltinOperator_EQUAL, comparison::lowerEqual},
    {fb::BuiltinOperator_NOT_EQUAL, comparison::lowerNotEqual},
    {fb::BuiltinOperator_GREATER, comparison::lowerGreater},
    {fb::BuiltinOperator_GREATER_EQUAL, comparison::lowerGreaterEqual},
    {fb::BuiltinOperator_LESS, comparison::lowerLess},
    {fb::BuiltinOperator_LESS_EQUAL, comparison::lowerLessEqual},
    {fb::BuiltinOperator_LOGICAL_AND, comparison::lowerLogicalAnd},
    {fb::BuiltinOperator_LOGICAL_OR, comparison::lowerLogicalOr},
    {fb::BuiltinOperator_LOGICAL_NOT, comparison::lowerLogicalNot},
    // LowerControlFlow.cpp
    {fb::BuiltinOperator_WHILE, control_flow::lowerWhile},
    {fb::BuiltinOperator_IF, control_flow::lowerIf},
    // LowerConvolution.cpp
    {fb::BuiltinOperator_CONV_2D, convolution::lowerConv2D},
    {fb::BuiltinOperator_DEPTHWISE_CONV_2D, convolution::lowerDepthwiseConv2D},
    // LowerDataMovement.cpp
    {fb::BuiltinOperator_MIRROR_PAD, data_movement::lowerMirrorPad},
    {fb::BuiltinOperator_REVERSE_V2, data_movement::lowerReverseV2},
    {fb::BuiltinOperator_BATCH_MATMUL, data_movement::lowerBatchMatmul},
    // LowerDetection.cpp
    // LowerElementwise.cpp
    {fb::BuiltinOperator_ADD, elementwise::lowerAdd},
    {fb::BuiltinOperator_SUB, elementwise::lowerSub},
    {fb::BuiltinOperator_MUL, elementwise::lowerMul},
    {fb::BuiltinOperator_DIV, elementwise::lowerDiv},
    {fb::BuiltinOperator_RELU, elementwise::lowerRelu},
    {fb::BuiltinOperator_RELU_N1_TO_1, elementwise::lowerRelu1},
    {fb::BuiltinOperator_RELU6, elementwise::lowerRelu6},
    {fb::BuiltinOperator_LOGISTIC, elementwise::lowerLogistic},
    {fb::BuiltinOperator_TANH, elementwise::lowerTanh},
    {fb::BuiltinOperator_FLOOR, elementwise::lowerFloor},
    {fb::BuiltinOperator_ABS, elementwise::lowerAbs},
    {fb::BuiltinOperator_EXP, elementwise::lowerExp},
    {fb::BuiltinOperator_LOG, elementwise::lowerLog},
    {fb::BuiltinOperator_NEG, elementwise::lowerNeg},
    {fb::BuiltinOperator_RSQRT, elementwise::lowerRsqrt},
    {fb::BuiltinOperator_SIN, elementwise::lowerSin},
    {fb::BuiltinOperator_SQRT, elementwise::lowerSqrt},
    // LowerFullyConnected.cpp
    {fb::BuiltinOperator_FULLY_CONNECTED, fully_connected::lowerFullyConnected},
    // LowerMath.cpp
    {fb::BuiltinOperator_MAXIMUM, math::lowerMaximum},
    {fb::BuiltinOperator_MINIMUM, math::lowerMinimum},
    {fb::BuiltinOperator_POW, math::lowerPow},
    {fb::BuiltinOperator_PRELU, math::lowerPrelu},
    {fb::BuiltinOperator_LOG_SOFTMAX, math::lowerLogSoftmax},
    {fb::BuiltinOperator_CAST, math::lowerCast},
    // LowerNormalization.cpp
    {fb::BuiltinOperator_SOFTMAX, normalization::lowerSoftmax},
    {fb::BuiltinOperator_L2_NORMALIZATION, normalization::lowerL2Normalization},
    {fb::BuiltinOperator_LOCAL_RESPONSE_NORMALIZATION, normalization::lowerLocalResponseNormalization},
    // LowerPooling.cpp
    {fb::BuiltinOperator_AVERAGE_POOL_2D, pooling::lowerAveragePool},
    {fb::BuiltinOperator_MAX_POOL_2D, pooling::lowerMaxPool},
    {fb::BuiltinOperator_L2_POOL_2D, pooling::lowerL2Pool},
    // LowerQuantization.cpp
    {fb::BuiltinOperator_QUANTIZE, quantization::lowerQuantize},
    {fb::BuiltinOperator_DEQUANTIZE, quantization::lowerDequantize},
    // LowerReduction.cpp
    {fb::BuiltinOperator_MEAN, reduction::lowerMean},
    {fb::BuiltinOperator_SUM, reduction::lowerSum},
    {fb::BuiltinOperator_REDUCE_MAX, reduction::lowerReduceMax},
    {fb::BuiltinOperator_REDUCE_MIN, reduction::lowerReduceMin},
    {fb::BuiltinOperator_REDUCE_PROD, reduction::lowerReduceProd},
    // LowerReshaping.cpp
    {fb::BuiltinOperator_RESHAPE, reshaping::lowerReshape},
    {fb::BuiltinOperator_EXPAND_DIMS, reshaping::lowerExpandDims},
    {fb::BuiltinOperator_TILE, reshaping::lowerTile},
    {fb::BuiltinOperator_SQUEEZE, reshaping::lowerSqueeze},
    {fb::BuiltinOperator_CONCATENATION, reshaping::lowerConcatenation},
    {fb::BuiltinOperator_SPLIT, reshaping::lowerSplit},
    {fb::BuiltinOperator_SPLIT_V, reshaping::lowerSplitV},
    {fb::BuiltinOperator_UNPACK, reshaping::lowerUnpack},
    {fb::BuiltinOperator_TRANSPOSE, reshaping::lowerTranspose},
    {fb::BuiltinOperator_SPACE_TO_DEPTH, reshaping::lowerSpaceToDepth},
    {fb::BuiltinOperator_DEPTH_TO_SPACE, reshaping::lowerDepthToSpace},
    {fb::BuiltinOperator_PAD, reshaping::lowerPad},
    {fb::BuiltinOperator_PADV2, reshaping::lowerPadV2},
    {fb::BuiltinOperator_SLICE, reshaping::lowerSlice},
    {fb::BuiltinOperator_STRIDED_SLICE, reshaping::lowerStridedSlice},
    // LowerResize.cpp
    {fb::BuiltinOperator_RESIZE_BILINEAR, resize::lowerResizeBilinear},
    {fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, resize::lowerResizeNearest},
    // LowerSelection.cpp
    {fb::BuiltinOperator_SELECT, selection::lowerSelect},
    {fb::BuiltinOperator_SELECT_V2, selection::lowerSelectV2},
    {fb::BuiltinOperator_GATHER, selection::lowerGather},
    {fb::BuiltinOperator_TOPK_V2, selection::lowerTopK},
    {fb::BuiltinOperator_ARG_MAX, selection::lowerArgMax},
    {fb::BuiltinOperator_ARG_MIN, selection::lowerArgMin},
    // LowerShapeOps.cpp
    {fb::BuiltinOperator_PACK, shape_ops::lowerPack},
    {fb::BuiltinOperator_FILL, shape_ops::lowerFill},
    {fb::BuiltinOperator_SPACE_TO_BATCH_ND, shape_ops::lowerSpaceToBatch},
    {fb::BuiltinOperator_BATCH_TO_SPACE_ND, shape_ops::lowerBatchToSpace},
    {fb::BuiltinOperator_REDUCE_ANY, shape_ops::lowerReduceAny},
    // LowerTransposeConv.cpp
    {fb::BuiltinOperator_TRANSPOSE_CONV, transpose_conv::lowerTransposeConv},
};

}  // namespace
}  // namespace lowerings

const LoweringTable& LoweringTable::get() {
    static const LoweringTable table = [] {
        LoweringTable t;
        for (const auto& row : lowerings::kLowerings) t.add(row.code, row.function);
        t.addCustom("TFLite_Detection_PostProcess", lowerings::detection::lowerDetectionPostProcess);
        addLookupLowerings(t);
        addSequenceLowerings(t);
        addRecurrentLowerings(t);
        return t;
    }();
    return table;
}

namespace {

// Lowers one node of `subgraph`. A node that fails may have added operations.
Status lowerNode(const Model& model, const Subgraph& subgraph, const Node& node, NnapiGraph& graph) {
    NodeLowering lowering(model, subgraph, node, graph);
    const LoweringFunction lower = LoweringTable::get().find(node);
    if (lower == nullptr && node.builtinCode == fb::BuiltinOperator_CUSTOM) {
        // TFLite's words for a custom operator no kernel is registered for.
        return badData("Encountered unresolved custom op: " + node.opName +
                       ".\nSee instructions: https://www.tensorflow.org/lite/guide/ops_custom \nNode number " +
                       std::to_string(node.index) + " (" + node.opName + ") failed to prepare.");
    }
    if (lower == nullptr) {
        lowering.fail("unsupported operator (no NNAPI mapping)");
        return lowering.status();
    }
    if (!lower(lowering) || lowering.rejected()) {
        if (lowering.status().isOk()) lowering.fail("");   // a lowering that refused without a reason
        return lowering.status();
    }
    if (graph.nodeOperations[node.index].empty()) {
        lowering.fail("no NNAPI operation");
        return lowering.status();
    }
    return {};
}

void startGraph(const Subgraph& subgraph, NnapiGraph& graph) {
    graph.stateFeedback.clear();
    graph.tensorOperand.assign(subgraph.tensors.size(), -1);
    graph.nodeOperations.assign(subgraph.nodes.size(), {});
    graph.cpuOnly.assign(subgraph.nodes.size(), false);
    graph.cpuKernel.assign(subgraph.nodes.size(), false);
}

void findReaders(const Subgraph& subgraph, NnapiGraph& graph) {
    graph.tensorReaders.assign(subgraph.tensors.size(), {});
    for (const NnOperation& operation : graph.operations) {
        for (uint32_t operand : operation.inputs) {
            const int32_t tensor = graph.operands[operand].tensor;
            if (tensor >= 0) graph.tensorReaders[tensor].push_back(operation.node);
        }
    }
    // CPU-kernel nodes read tensors too: a partition must hand them what they need.
    for (const Node& node : subgraph.nodes) {
        if (!graph.cpuKernel[node.index]) continue;
        for (int32_t tensor : node.inputs) {
            if (tensor >= 0) graph.tensorReaders[tensor].push_back(node.index);
        }
    }
}

// A node that has no NNAPI form runs on the tools' CPU kernel when it has one that accepts it;
// its operations (if any were added) go. Otherwise the lowering's reason, and the kernel's.
Status lowerOrKeepForCpuKernel(const Model& model, const Subgraph& subgraph, const Node& node, NnapiGraph& graph) {
    const size_t operationsBefore = graph.operations.size(), statesBefore = graph.stateFeedback.size();
    Status lowered = lowerNode(model, subgraph, node, graph);
    if (lowered || !graph.allowCpuKernels) return lowered;
    if (const Result<const CpuKernel*> kernel = prepareCpuKernel(subgraph, node); !kernel) {
        if (CpuKernelTable::get().find(node) == nullptr) return lowered;
        return Status(lowered.code(), lowered.message() + " (CPU kernel: " + kernel.message() + ")");
    }
    graph.operations.resize(operationsBefore);
    graph.stateFeedback.resize(statesBefore);
    graph.nodeOperations[node.index].clear();
    graph.cpuKernel[node.index] = true;
    graph.cpuOnly[node.index] = true;
    return {};
}

}  // namespace

Status lowerSubgraph(const Model& model, uint32_t index, NnapiGraph& graph) {
    const Subgraph& subgraph = model.subgraphs()[index];
    startGraph(subgraph, graph);
    for (const Node& node : subgraph.nodes) NNEMU_RETURN_IF_ERROR(lowerOrKeepForCpuKernel(model, subgraph, node, graph));
    findReaders(subgraph, graph);
    return {};
}

std::vector<bool> lowerMappableNodes(const Model& model, NnapiGraph& graph, std::vector<std::string>* reasons) {
    const Subgraph& subgraph = model.subgraphs()[0];
    startGraph(subgraph, graph);
    std::vector<bool> lowered(subgraph.nodes.size(), false);
    if (reasons != nullptr) reasons->assign(subgraph.nodes.size(), {});
    for (const Node& node : subgraph.nodes) {
        const size_t operationsBefore = graph.operations.size(), statesBefore = graph.stateFeedback.size();
        const Status status = lowerNode(model, subgraph, node, graph);
        lowered[node.index] = status.isOk();
        if (!lowered[node.index]) {
            // Its operands stay (unused); its operations and state feedback go.
            graph.operations.resize(operationsBefore);
            graph.stateFeedback.resize(statesBefore);
            graph.nodeOperations[node.index].clear();
            if (reasons != nullptr) (*reasons)[node.index] = status.message();
        }
    }
    findReaders(subgraph, graph);
    return lowered;
}

}  // namespace nnemu::tflite
