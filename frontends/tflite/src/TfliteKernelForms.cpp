#include "TfliteKernelForms.h"

#include <algorithm>

#include "cpu/CpuKernel.h"
#include "nnemu/base/Log.h"

namespace nnemu::tflite {
namespace {

struct KernelForm {
    fb::BuiltinOperator code;
    std::vector<ElementType> inputTypes;   // of input 0
    const char* why;
    std::vector<ElementType> weightTypes = {};   // of input 1; empty: any
    bool (*applies)(const Model& model, const Node& node) = nullptr;   // a further condition; nullptr: none
};

// The output is quantized otherwise than the input.
bool rescales(const Model& model, const Node& node) {
    if (node.outputs.empty() || node.outputs[0] < 0) return false;
    const Tensor& in = model.tensors()[node.inputs[0]];
    const Tensor& out = model.tensors()[node.outputs[0]];
    return in.scale != out.scale || in.zeroPoint != out.zeroPoint;
}

// The two inputs and the output are not all quantized alike.
bool quantizedOtherwise(const Model& model, const Node& node) {
    if (rescales(model, node)) return true;
    if (node.inputs.size() < 2 || node.inputs[1] < 0) return false;
    const Tensor& a = model.tensors()[node.inputs[0]];
    const Tensor& b = model.tensors()[node.inputs[1]];
    return a.scale != b.scale || a.zeroPoint != b.zeroPoint;
}

// align_corners or half_pixel_centers is set.
bool alignsCorners(const Model&, const Node& node) {
    const auto* options = static_cast<const TfLiteResizeBilinearParams*>(node.builtinData);
    return options != nullptr && (options->align_corners || options->half_pixel_centers);
}

constexpr const char* kReluWhy =
        "TFLite requantizes to the output's quantization; NNAPI's keeps the input's (a temporary takes it, a model "
        "output declared otherwise is refused)";

constexpr const char* kComparisonWhy =
        "TFLite compares the offset values shifted left by 8 and scaled by their scales in fixed point (values a step "
        "apart can become equal); NNAPI's reference compares the exact real values";

// The table: builtin, input types, and how TFLite's kernel differs from NNAPI's operation.
const std::vector<KernelForm>& kernelForms() {
    static const std::vector<KernelForm> forms = {
            {fb::BuiltinOperator_MEAN, {ElementType::UINT8, ElementType::INT8},
             "TFLite rescales the integer sum through fixed-point multipliers; NNAPI rounds the dequantized mean"},
            {fb::BuiltinOperator_SUM, {ElementType::UINT8, ElementType::INT8},
             "TFLite rescales the integer sum in float and narrows without clamping"},
            {fb::BuiltinOperator_QUANTIZE, {ElementType::UINT8, ElementType::INT8},
             "TFLite requantizes in fixed point (a Q31 multiplier for scale_in / scale_out); the lowering goes "
             "through float (DEQUANTIZE + QUANTIZE)"},
            {fb::BuiltinOperator_QUANTIZE, {ElementType::FLOAT32},
             "TFLite's x86 kernel divides by the scale in double; NNAPI's QUANTIZE divides in float"},
            {fb::BuiltinOperator_L2_NORMALIZATION, {ElementType::UINT8, ElementType::INT8},
             "TFLite takes the inverse square root in fixed point (Newton-Raphson); NNAPI's reference divides in "
             "double"},
            {fb::BuiltinOperator_SOFTMAX, {ElementType::UINT8, ElementType::INT8},
             "TFLite's x86 kernel sums a float exp table and scales each entry by 1 / (sum * scale_out); "
             "nnapi-reference's fixed-point softmax is a step off on rare values"},
            {fb::BuiltinOperator_LOG_SOFTMAX, {ElementType::UINT8, ElementType::INT8},
             "TFLite computes it through a float exp table; NNAPI's is float only"},
            {fb::BuiltinOperator_RESIZE_BILINEAR, {ElementType::UINT8, ElementType::INT8},
             "TFLite interpolates the stored values in its own fixed-point or float steps"},
            {fb::BuiltinOperator_MAXIMUM, {ElementType::UINT8, ElementType::INT8},
             "TFLite compares and stores the stored values whatever the quantizations; NNAPI's compares the real "
             "values and requantizes", {}, quantizedOtherwise},
            {fb::BuiltinOperator_MINIMUM, {ElementType::UINT8, ElementType::INT8},
             "TFLite compares and stores the stored values whatever the quantizations; NNAPI's compares the real "
             "values and requantizes", {}, quantizedOtherwise},
            {fb::BuiltinOperator_EQUAL, {ElementType::UINT8, ElementType::INT8}, kComparisonWhy},
            {fb::BuiltinOperator_NOT_EQUAL, {ElementType::UINT8, ElementType::INT8}, kComparisonWhy},
            {fb::BuiltinOperator_LESS, {ElementType::UINT8, ElementType::INT8}, kComparisonWhy},
            {fb::BuiltinOperator_LESS_EQUAL, {ElementType::UINT8, ElementType::INT8}, kComparisonWhy},
            {fb::BuiltinOperator_GREATER, {ElementType::UINT8, ElementType::INT8}, kComparisonWhy},
            {fb::BuiltinOperator_GREATER_EQUAL, {ElementType::UINT8, ElementType::INT8}, kComparisonWhy},
            {fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, {ElementType::UINT8, ElementType::INT8},
             "TFLite copies the stored values whatever the output's quantization; NNAPI's takes the input's only",
             {}, rescales},
            {fb::BuiltinOperator_RESIZE_BILINEAR, {ElementType::FLOAT32},
             "TFLite's optimized kernel steps the aligned or half-pixel source coordinates otherwise (a few ULP)", {},
             alignsCorners},
            {fb::BuiltinOperator_HARD_SWISH, {ElementType::FLOAT32},
             "TFLite's float kernel rounds the product and the division in float; NNAPI's reference evaluates in "
             "double"},
            {fb::BuiltinOperator_TANH, {ElementType::FLOAT32},
             "TFLite's float kernel evaluates Eigen's rational approximation; NNAPI's is the C library's tanh"},
            {fb::BuiltinOperator_LOGISTIC, {ElementType::FLOAT32},
             "TFLite's float kernel evaluates Eigen's logistic (exp(x / 2) squared over 1 + that; the C library's "
             "expf on the last 0-3 elements) and flushes denormal results; NNAPI's reference rounds the exact value "
             "(up to 6 ULP apart)"},
            // Denormal inputs, read as zero in TFLite's invoke and in the tools' (DenormalFlush.h).
            {fb::BuiltinOperator_RELU, {ElementType::FLOAT32},
             "TFLite's float kernel takes Eigen's max, which gives a denormal input as a signed zero; NNAPI's "
             "reference passes it"},
            {fb::BuiltinOperator_RELU_N1_TO_1, {ElementType::FLOAT32},
             "TFLite's float kernel compares and selects, which passes a denormal input; NNAPI's reference gives a "
             "signed zero"},
            // The tools' kernels (ConvInt8.cpp) take the int8 forms only; a grouped int8 CONV_2D
            // stays on NNAPI (its prepare refuses it). The int8 FULLY_CONNECTED with one weight
            // scale derives its multiplier as NNAPI does, but rounds as ruy.
            {fb::BuiltinOperator_CONV_2D, {ElementType::INT8},
             "TFLite's x86 build runs the GEMM on ruy, which rounds the requantization's last shift with ties up"},
            {fb::BuiltinOperator_FULLY_CONNECTED, {ElementType::INT8},
             "TFLite's x86 build runs the GEMM on ruy, which rounds the requantization's last shift with ties up"},
            // The int8 depthwise (DepthwiseInt8.cpp); the uint8 forms of all three compute
            // NNAPI's values in TFLite too (the float product, gemmlowp's rounding) and stay on it.
            {fb::BuiltinOperator_DEPTHWISE_CONV_2D, {ElementType::INT8},
             "TFLite derives each channel's multiplier from the double product of the input and weight scales; "
             "NNAPI from their float product",
             {ElementType::INT8}},
            // Float convolutions: the same products, summed in another order (FloatGemmEigen.h,
            // FloatConv.cpp); a grouped CONV_2D stays on NNAPI (its prepare refuses it).
            {fb::BuiltinOperator_CONV_2D, {ElementType::FLOAT32},
             "TFLite's x86 build sums in the order of its Eigen GEMM (depth blocks sized from the L1 cache, channels "
             "and pixels in register groups); NNAPI's reference sums each window in its own order",
             {ElementType::FLOAT32}},
            {fb::BuiltinOperator_FULLY_CONNECTED, {ElementType::FLOAT32},
             "TFLite's x86 build sums in the order of its Eigen GEMM or matrix-vector product; NNAPI's reference "
             "sums each row in its own order",
             {ElementType::FLOAT32}},
            {fb::BuiltinOperator_DEPTHWISE_CONV_2D, {ElementType::FLOAT32},
             "TFLite's float kernel starts each output at its bias and adds the taps; NNAPI's reference adds the "
             "bias last",
             {ElementType::FLOAT32}},
            {fb::BuiltinOperator_SOFTMAX, {ElementType::FLOAT32},
             "TFLite's float kernel evaluates Eigen's exp approximation and sums each row in Eigen's packet "
             "order; NNAPI's reference uses the C library's exp and its own sums"},
            // A quantized RELU whose output is quantized otherwise: TFLite's delegate lowers it as
            // it is, so a device runs NNAPI's (or declines it and TFLite's kernel runs it).
            {fb::BuiltinOperator_RELU, {ElementType::UINT8, ElementType::INT8}, kReluWhy, {}, rescales},
            {fb::BuiltinOperator_RELU6, {ElementType::UINT8, ElementType::INT8}, kReluWhy, {}, rescales},
            {fb::BuiltinOperator_RELU_N1_TO_1, {ElementType::UINT8, ElementType::INT8}, kReluWhy, {}, rescales},
            // Hybrid (dynamic-range) forms, which TFLite's delegate lowers as DEQUANTIZE + the
            // float operation.
            {fb::BuiltinOperator_FULLY_CONNECTED, {ElementType::FLOAT32},
             "TFLite's hybrid kernel quantizes the float input to int8 and scales integer dot products back; NNAPI "
             "multiplies in float by the dequantized weights",
             {ElementType::INT8}},
            {fb::BuiltinOperator_CONV_2D, {ElementType::FLOAT32},
             "TFLite's hybrid kernel quantizes the float input to int8 and scales integer dot products back; NNAPI "
             "multiplies in float by the dequantized filter",
             {ElementType::INT8}},
    };
    return forms;
}

const KernelForm* formOf(const Model& model, const Node& node) {
    if (node.inputs.empty() || node.inputs[0] < 0) return nullptr;
    const ElementType type = model.tensors()[node.inputs[0]].type;
    const bool hasWeights = node.inputs.size() > 1 && node.inputs[1] >= 0;
    const ElementType weights = hasWeights ? model.tensors()[node.inputs[1]].type : ElementType::FLOAT32;
    const auto listed = [](const std::vector<ElementType>& types, ElementType t) {
        return std::find(types.begin(), types.end(), t) != types.end();
    };
    for (const KernelForm& form : kernelForms()) {
        if (static_cast<int32_t>(form.code) == node.builtinCode && listed(form.inputTypes, type) &&
            (form.weightTypes.empty() || (hasWeights && listed(form.weightTypes, weights))) &&
            (form.applies == nullptr || form.applies(model, node))) {
            return &form;
        }
    }
    return nullptr;
}

}  // namespace

bool tfliteKernelDiffersFromNnapi(const Model& model, const Node& node) { return formOf(model, node) != nullptr; }

void moveNodeToCpuKernel(const Node& node, NnapiGraph& graph) {
    graph.nodeOperations[node.index].clear();
    graph.cpuKernel[node.index] = true;
    graph.cpuOnly[node.index] = true;
    for (int32_t t : node.inputs) {
        if (t < 0) continue;
        std::vector<uint32_t>& readers = graph.tensorReaders[t];
        if (std::find(readers.begin(), readers.end(), node.index) == readers.end()) readers.push_back(node.index);
    }
}

void runTfliteFormsOnCpuKernels(const Model& model, const std::vector<bool>& delegated, NnapiGraph& graph) {
    for (const Node& node : model.nodes()) {
        if (delegated[node.index] || graph.cpuKernel[node.index]) continue;
        const KernelForm* form = formOf(model, node);
        if (form == nullptr || CpuKernelTable::get().find(node) == nullptr) continue;
        if (!prepareCpuKernel(model.subgraphs()[0], node).isOk()) continue;
        NN_LOG(INFO) << "nnemu tflite: operator " << node.opName << " at node " << node.index
                     << " runs on the tools' CPU kernel, as TFLite's (" << form->why << ")";
        moveNodeToCpuKernel(node, graph);
    }
}

}  // namespace nnemu::tflite
